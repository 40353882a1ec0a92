"""Settings: one engine per database, created and migrated once even when asked for at once."""

from __future__ import annotations

import threading
from pathlib import Path

from flows.config import Settings


def test_threads_asking_for_a_new_ledger_at_once_share_one_migrated_engine(
        stmtflow_home: Path) -> None:
    settings = Settings.from_env()
    start = threading.Barrier(6)
    engines, errors = [], []

    def ask() -> None:
        start.wait()
        try:
            engines.append(settings.ledger().engine)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len({id(e) for e in engines}) == 1
    assert settings.ledger().jobs() == []
