"""The Alembic migrations build exactly the schema the code queries, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

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


def test_review_tasks_become_open_reviews_and_their_rows_leave_the_book(
        database_url: str) -> None:
    from pathlib import Path

    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    import reconcile.db
    from reconcile.book import Book
    from reconcile.review import ReviewLog, ReviewState

    engine = create_engine(database_url)
    config = Config()
    config.set_main_option("script_location",
                           str(Path(reconcile.db.__file__).parent / "migrations"))
    with engine.begin() as c:
        config.attributes["connection"] = c
        command.upgrade(config, "0003")
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
    reconcile.db.migrate(engine)
    [review] = ReviewLog(engine).all()
    assert (review.decision_id, review.state, review.problems, review.output_digest) == (
        "j-flagged", ReviewState.OPEN, ("x",), "out-j-flagged")
    book = Book(engine)
    assert [r["description"] for r in book.transactions()] == ["ROW OF j-clean"]
    assert [(r["description"], r["verified"]) for r in book.transactions(
        include_unreviewed=True) if not r["verified"]] == [("ROW OF j-flagged", False)]
    assert "review_tasks" not in inspect(engine).get_table_names()
