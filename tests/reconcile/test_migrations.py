"""The Alembic migrations build exactly the schema the code queries, on both databases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, inspect, text

from parsers.model import Transaction, transaction_id
from reconcile import db
from reconcile.db import make_engine, metadata


def test_migrated_schema_matches_the_tables_in_code(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.connect() as c:
        diff = compare_metadata(MigrationContext.configure(c), metadata)
    assert diff == []
    assert "alembic_version" in inspect(engine).get_table_names()


def test_migrating_twice_is_a_no_op(database_url: str) -> None:
    make_engine(database_url).dispose()
    engine = make_engine(database_url)
    assert set(metadata.tables) <= set(inspect(engine).get_table_names())


def test_a_schema_at_the_head_revision_is_left_alone_and_one_behind_is_migrated(
        database_url: str) -> None:
    """`make_engine` skips Alembic only when the schema is at `HEAD`, the migrations' head."""
    assert ScriptDirectory.from_config(_config()).get_heads() == [db.HEAD]
    engine = create_engine(database_url)
    assert db.revision(engine) is None
    _upgrade(engine, "0007")
    assert db.revision(engine) == "0007" and "output_stamps" not in inspect(
        engine).get_table_names()
    db.migrate(engine)
    assert db.revision(engine) == db.HEAD
    assert "output_stamps" in inspect(engine).get_table_names()


#: the schema check every command makes, in a fresh interpreter; then what it loaded of these
CHECK = """
import json, sys
from reconcile.db import make_engine

make_engine(sys.argv[1]).dispose()
print(json.dumps(sorted(m for m in ("alembic", "mako") if m in sys.modules)))
"""


def _loaded_by_the_check(url: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CHECK, url], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.getcwd()}, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_checking_a_schema_at_head_loads_no_alembic(database_url: str) -> None:
    """The ledger is at head at every command but the first: its check is one query of the
    version table, without Alembic and the Mako it imports (a tenth of a CPU second)."""
    make_engine(database_url).dispose()
    assert _loaded_by_the_check(database_url) == []


@pytest.mark.parametrize("behind", ["new", "one revision"])
def test_a_schema_behind_head_is_migrated_by_alembic(database_url: str, behind: str) -> None:
    """The check above can fail: a new ledger, or one a migration behind, loads Alembic."""
    engine = create_engine(database_url)
    if behind != "new":
        _upgrade(engine, str(ScriptDirectory.from_config(_config()).get_revision(
            db.HEAD).down_revision))
    assert _loaded_by_the_check(database_url) == ["alembic", "mako"]
    assert db.revision(engine) == db.HEAD
    engine.dispose()


def test_a_schema_ahead_of_the_code_is_refused_and_left_alone(database_url: str) -> None:
    """A ledger a newer release migrated is not at this code's head: Alembic refuses the
    revision it does not know, by name, and changes nothing."""
    engine = make_engine(database_url)
    with engine.begin() as c:
        c.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(CommandError, match="Can't locate revision identified by '9999'"):
        make_engine(database_url)
    assert db.revision(engine) == "9999"
    engine.dispose()


def test_review_tasks_become_open_reviews_and_their_rows_leave_the_book(
        database_url: str) -> None:
    from parsers.codes import ReviewState
    from reconcile.book import Book
    from reconcile.review import ReviewLog

    engine = create_engine(database_url)
    _upgrade(engine, "0003")
    t = "2026-11-01 00:00:00+00:00"
    with engine.begin() as c:
        for decision in ("j-flagged", "j-clean"):
            c.execute(text("INSERT INTO book_imports VALUES (:d, :i, :o, '1234', 1, :t)"),
                      {"d": decision, "i": f"in-{decision}", "o": f"out-{decision}", "t": t})
            c.execute(text("INSERT INTO book_transactions (account_last4, currency, date, "
                           "description, amount, balance, occurrence, decision_id) VALUES "
                           "('1234', 'USD', '2026-01-02', :s, '-4.50', NULL, 1, :d)"),
                      {"s": f"ROW OF {decision}", "d": decision})
        c.execute(text("INSERT INTO review_tasks VALUES ('j-flagged', '[\"x\"]', :t)"), {"t": t})
    db.migrate(engine)
    [review] = ReviewLog(engine).all()
    assert (review.decision_id, review.state, review.problems, review.output_digest) == (
        "j-flagged", ReviewState.OPEN, ("x",), "out-j-flagged")
    book = Book(engine)
    assert [r.description for r in book.records()] == ["ROW OF j-clean"]
    assert [(r.description, r.verified) for r in book.records(
        include_unreviewed=True) if not r.verified] == [("ROW OF j-flagged", False)]
    assert "review_tasks" not in inspect(engine).get_table_names()


def test_existing_book_rows_get_their_bank_and_stable_id(database_url: str) -> None:
    engine = create_engine(database_url)
    _upgrade(engine, "0003")
    now = datetime.now(UTC)
    with engine.begin() as c:
        c.execute(text(
            "INSERT INTO batches (batch_id, source, created_at, state) "
            "VALUES ('b-1', 'x', :now, 'COMPLETED')"), {"now": now})
        c.execute(text(
            "INSERT INTO jobs (job_id, batch_id, source_uri, input_uri, size, sha256, "
            "submitted_at, expires_at, chain_revision, ocr_engine, policy_revision, status, "
            "attempts, needs_review, bank) VALUES ('j-1', 'b-1', 's', 'i', 1, 'd', :now, :now, "
            "'c', 'o', 'p', 'SUCCEEDED', 1, false, 'northwind')"), {"now": now})
        for n in (1, 2):
            c.execute(text(
                "INSERT INTO book_transactions (account_last4, currency, date, description, "
                "amount, balance, occurrence, decision_id) VALUES ('1234', 'USD', "
                "'2026-01-31', 'COFFEE', '-4.50', NULL, :n, 'j-1')"), {"n": n})
    _upgrade(engine, "head")
    with engine.connect() as c:
        rows = c.execute(text("SELECT bank, txn_id FROM book_transactions ORDER BY id")).all()
    coffee = Transaction(date(2026, 1, 31), "COFFEE", Decimal("-4.50"))
    assert [tuple(r) for r in rows] == [
        ("northwind", transaction_id("northwind", "1234", "USD", coffee, n)) for n in (1, 2)]
    engine.dispose()


def test_task_run_ids_come_after_the_review_and_transaction_id_migrations(
        database_url: str) -> None:
    from reconcile.ledger import Ledger

    engine = create_engine(database_url)
    _upgrade(engine, "0005")
    now = datetime.now(UTC)
    with engine.begin() as c:
        c.execute(text(
            "INSERT INTO batches (batch_id, source, created_at, state) "
            "VALUES ('b-1', 'x', :now, 'COMPLETED')"), {"now": now})
        c.execute(text(
            "INSERT INTO jobs (job_id, batch_id, source_uri, input_uri, size, sha256, "
            "submitted_at, expires_at, chain_revision, ocr_engine, policy_revision, status, "
            "attempts, needs_review) VALUES ('j-1', 'b-1', 's', 'i', 1, 'd', :now, :now, "
            "'c', 'o', 'p', 'SUCCEEDED', 1, false)"), {"now": now})
        c.execute(text(
            "INSERT INTO attempts (job_id, number, lease_owner, started_at, outcome) "
            "VALUES ('j-1', 1, 'w', :now, 'succeeded')"), {"now": now})
    _upgrade(engine, "head")
    [attempt] = Ledger(engine).attempts("j-1")
    assert (attempt.number, attempt.lease_owner, attempt.task_run_id) == (1, "w", None)
    engine.dispose()


def test_what_succeeded_before_input_claims_is_claimed_by_the_migration(
        database_url: str) -> None:
    from datetime import timedelta

    from parsers.codes import Status
    from reconcile.ledger import Ledger
    from reconcile.records import Identities

    assert ScriptDirectory.from_config(_config()).get_heads() == [db.HEAD]
    engine = create_engine(database_url)
    _upgrade(engine, "0006")
    now = datetime.now(UTC)
    with engine.begin() as c:
        c.execute(text(
            "INSERT INTO batches (batch_id, source, created_at, state) "
            "VALUES ('b-1', 'x', :now, 'COMPLETED')"), {"now": now})
        for job, status in (("j-1", "SUCCEEDED"), ("j-2", "SUCCEEDED"), ("j-3", "FAILED")):
            c.execute(text(
                "INSERT INTO jobs (job_id, batch_id, source_uri, input_uri, size, sha256, "
                "submitted_at, expires_at, chain_revision, ocr_engine, policy_revision, "
                "status, attempts, needs_review) VALUES (:j, 'b-1', 's', 'i', 1, :d, :now, "
                ":now, 'c', 'o', 'p', :s, 1, false)"),
                {"j": job, "d": f"d-{job}", "s": status, "now": now})
    _upgrade(engine, "head")
    ledger = Ledger(engine)
    batch = ledger.batch("b-1")
    assert batch is not None and batch.accepted_at is not None and batch.epoch == 0
    ledger.open_batch("b-2", "y", None)
    again = [ledger.accept("b-2", source_uri="s", input_uri="i", size=1, sha256=f"d-{j}",
                           bank_hint=None, ids=Identities("c", "o", "p"),
                           queue_limit=timedelta(hours=1)) for j in ("j-1", "j-3")]
    assert [(j.status, j.duplicate_of) for j in again] == [
        (Status.DUPLICATE, "j-1"), (Status.QUEUED, None)]
    engine.dispose()


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    return config


def _upgrade(engine: Engine, revision: str) -> None:
    config = _config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def test_processes_first_using_one_fresh_ledger_together_all_get_it_migrated(
        database_url: str, tmp_path: Path) -> None:
    """Two runs starting at once on a new home (an import and the rerun an automation
    started) both migrate the empty ledger: neither fails because the other got there
    first. Four processes, each ready (imported) before any of them starts."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from reconcile.db import make_engine\n"
        "Path(sys.argv[2]).touch()\n"
        "while not Path(sys.argv[3]).exists():\n"
        "    time.sleep(0.005)\n"
        "make_engine(sys.argv[1]).dispose()\n")
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{n}" for n in range(4)]
    procs = [subprocess.Popen([sys.executable, "-c", script, database_url, str(r), str(go)],
                              stderr=subprocess.PIPE, text=True) for r in ready]
    while not all(r.exists() for r in ready):
        assert all(p.poll() is None for p in procs), [p.stderr.read() for p in procs]
    go.touch()
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    assert db.revision(create_engine(database_url)) == db.HEAD
