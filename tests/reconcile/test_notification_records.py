"""Delivery records: what they say, and the connection each leaves behind."""

from __future__ import annotations

from pathlib import Path

from reconcile.db import make_engine
from reconcile.notifications import Notifications

#: SQLite's default `synchronous` (`FULL`), which every other commit of the ledger keeps
FULL = 2


def test_a_delivery_record_leaves_its_connection_as_synced_as_it_found_it(
        tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/ledger.db")
    store = Notifications(engine)
    store.expect("j-1", ["event", "webhook"])
    store.record("j-1", "event", None)
    store.record("j-1", "webhook", "ConnectionError: down")
    assert engine.pool.checkedin() == 1  # the one connection the records went through
    with engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA synchronous").scalar() == FULL
    assert store.pending() == [("j-1", "webhook")]
    summary = store.summary()["channels"]
    assert summary["event"] == {"expected": 1, "delivered": 1, "undelivered": 0, "attempts": 1}
    assert summary["webhook"] == {"expected": 1, "delivered": 0, "undelivered": 1, "attempts": 1}
