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
