"""The ledger's schema and engine: SQLite by default, any SQLAlchemy URL by configuration."""

from __future__ import annotations

import fcntl
import functools
import importlib
import operator
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    BindParameter,
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    inspect,
    text,
)
from sqlalchemy.sql.dml import Insert

metadata = MetaData()

batches = Table(
    "batches", metadata,
    Column("batch_id", String(64), primary_key=True),
    Column("source", Text, nullable=False),
    Column("bank", String(32)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("flow_run_id", String(64)),
    Column("state", String(32), nullable=False),
    Column("rerun_of", String(64)),
    #: when the source was fully listed and every file of it accepted (None: not yet)
    Column("accepted_at", DateTime(timezone=True)),
    #: JSON: the sources and options acceptance was asked for (what a resume lists again)
    Column("acceptance", Text),
    #: raised by every run that takes the batch; a state change names the epoch it read
    Column("epoch", Integer, nullable=False, server_default="0"),
    #: until when the run holding the current epoch is known alive (None: no run holds it)
    Column("lease_until", DateTime(timezone=True)),
    #: why a FAILED or ABANDONED batch ended so: a reason code, and its message or note
    Column("reason", String(64)),
    Column("message", Text),
)

jobs = Table(
    "jobs", metadata,
    Column("job_id", String(64), primary_key=True),
    Column("batch_id", String(64), ForeignKey("batches.batch_id"), nullable=False, index=True),
    Column("source_uri", Text, nullable=False),
    #: no stored input and no digest for a file refused at acceptance
    Column("input_uri", Text),
    Column("size", Integer, nullable=False),
    Column("sha256", String(64)),
    Column("bank_hint", String(32)),
    Column("submitted_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    # pinned identities: what every attempt of this job must run with
    Column("chain_revision", String(64), nullable=False),
    Column("ocr_engine", String(128), nullable=False),
    Column("policy_revision", String(64), nullable=False),
    # lifecycle: written only by reconcile.ledger's guarded transitions
    Column("status", String(16), nullable=False, index=True),
    Column("attempts", Integer, nullable=False, default=0),
    Column("lease_owner", String(64)),
    Column("lease_until", DateTime(timezone=True)),
    Column("error_class", String(16)),
    Column("reason", String(64)),
    Column("message", Text),
    Column("output_uri", Text),
    Column("output_digest", String(64)),
    Column("outputs", Text),
    Column("needs_review", Boolean, nullable=False, default=False),
    Column("bank", String(32)),
    Column("account_last4", String(64)),
    Column("transactions", Integer),
    Column("finished_at", DateTime(timezone=True)),
    Column("rerun_of", String(64), index=True),
    #: the job whose parse of the same bytes under the same pins this job reuses
    Column("duplicate_of", String(64)),
    #: a file (its name and bytes) is one job of a batch; a refused file (no digest) is kept
    #: to one by `Ledger.refuse`
    UniqueConstraint("batch_id", "source_uri", "sha256", name="one_job_per_file_per_batch"),
)

#: one job parses an input digest under one set of pinned identities: the claim's holder
input_claims = Table(
    "input_claims", metadata,
    Column("sha256", String(64), primary_key=True),
    Column("chain_revision", String(64), primary_key=True),
    Column("ocr_engine", String(128), primary_key=True),
    Column("policy_revision", String(64), primary_key=True),
    Column("job_id", String(64), ForeignKey("jobs.job_id"), nullable=False),
)

attempts = Table(
    "attempts", metadata,
    Column("job_id", String(64), ForeignKey("jobs.job_id"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("lease_owner", String(64), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True)),
    Column("outcome", String(16)),
    Column("error_class", String(16)),
    Column("reason", String(64)),
    Column("message", Text),
    #: the Prefect task run that made the attempt, when one did
    Column("task_run_id", String(64)),
)


notifications = Table(
    "notifications", metadata,
    Column("job_id", String(64), ForeignKey("jobs.job_id"), primary_key=True),
    Column("channel", String(16), primary_key=True),
    Column("attempts", Integer, nullable=False, default=0),
    Column("delivered_at", DateTime(timezone=True)),
    Column("last_error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

investigations = Table(
    "investigations", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(64), ForeignKey("jobs.job_id"), nullable=False, index=True),
    Column("owner", String(128)),
    Column("opened_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True)),
    Column("note", Text),
)

# -- the book: what the downstream consumer imported, once per decision ----------------
book_imports = Table(
    "book_imports", metadata,
    Column("decision_id", String(64), primary_key=True),
    Column("input_sha256", String(64), nullable=False, index=True),
    Column("output_digest", String(64), nullable=False),
    Column("accounts", Text, nullable=False),
    Column("transactions", Integer, nullable=False),
    Column("imported_at", DateTime(timezone=True), nullable=False),
    #: the decision that re-read the same bytes under a new parser chain and replaced this
    #: one's rows in the book
    Column("superseded_by", String(64)),
)

book_transactions = Table(
    "book_transactions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_last4", String(8), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("date", String(10), nullable=False),
    Column("description", Text, nullable=False),
    Column("amount", String(32), nullable=False),
    Column("balance", String(32)),
    #: the n-th identical transaction on that day: two equal coffees stay two rows
    Column("occurrence", Integer, nullable=False),
    Column("decision_id", String(64), nullable=False),
    Column("bank", String(32), nullable=False),
    #: `parsers.model.transaction_id`: the same transaction from any statement has this id
    Column("txn_id", String(32), nullable=False),
    #: what the row was read from: `pdf`, or a bank export's format (`ofx`, `camt`, ...)
    Column("source", String(16)),
    #: `parsers.model.match_keys`: the same transaction read from another source has this key
    Column("match_key", String(32), index=True),
    #: the bank's own id of the row, from an export (FITID, end-to-end id), where one was read
    Column("reference", Text),
    UniqueConstraint("account_last4", "txn_id", name="one_row_per_transaction_id"),
)

#: per imported statement and account section: the period and the printed balances
book_balances = Table(
    "book_balances", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("decision_id", String(64), nullable=False, index=True),
    Column("bank", String(32), nullable=False),
    Column("account_last4", String(8), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("period_start", String(10)),
    Column("period_end", String(10)),
    Column("opening_balance", String(32), nullable=False),
    Column("closing_balance", String(32), nullable=False),
    UniqueConstraint("decision_id", "account_last4", "currency",
                     name="one_balance_per_statement_account"),
)

book_deliveries = Table(
    "book_deliveries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("decision_id", String(64), nullable=False, index=True),
    Column("output_digest", String(64), nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

#: transactions of a statement that needs review, held apart from the book until decided
held_transactions = Table(
    "held_transactions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("decision_id", String(64), nullable=False, index=True),
    Column("account_last4", String(8), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("date", String(10), nullable=False),
    Column("description", Text, nullable=False),
    Column("amount", String(32), nullable=False),
    Column("balance", String(32)),
    Column("bank", String(32), nullable=False),
    Column("txn_id", String(32), nullable=False),
)

#: one per statement that needs review: open until a person accepts, corrects or rejects it
reviews = Table(
    "reviews", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("decision_id", String(64), nullable=False, unique=True),
    Column("input_sha256", String(64), nullable=False),
    Column("output_uri", Text),
    Column("output_digest", String(64), nullable=False),
    Column("problems", Text, nullable=False),
    Column("state", String(16), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("decided_at", DateTime(timezone=True)),
    Column("decided_by", String(128)),
    Column("note", Text),
    #: the corrected statement: a new version beside the original, never over it
    Column("version_uri", Text),
    Column("version_digest", String(64)),
    Column("flow_run_id", String(64)),
)

#: the audit trail: every decision and refused attempt, who, when, and what changed
review_events = Table(
    "review_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("review_id", Integer, ForeignKey("reviews.id"), nullable=False, index=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(128), nullable=False),
    Column("via", String(64), nullable=False),
    Column("action", String(16), nullable=False),
    #: JSON list of {"target", "old", "new"}
    Column("changes", Text),
    Column("note", Text),
)

#: an output object's size and listing stamp when its bytes were last hashed, and their
#: digest: a reconciliation pass re-reads only objects whose listing differs
output_stamps = Table(
    "output_stamps", metadata,
    Column("uri", Text, primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("stamp", Text, nullable=False),
    Column("sha256", String(64), nullable=False),
)

quarantine = Table(
    "quarantine", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("decision_id", String(64), nullable=False),
    Column("input_sha256", String(64), nullable=False),
    Column("known_digest", String(64), nullable=False),
    Column("new_digest", String(64), nullable=False),
    Column("reason", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("decision_id", "new_digest", name="one_quarantine_per_conflict"),
)


@functools.cache
def dialect_insert(dialect: str, table: Table) -> Insert:
    """The insert of `dialect`, which can say what to do on a conflict. Its module is
    imported here, by the engine's name: a ledger on SQLite never loads PostgreSQL's."""
    if dialect not in ("sqlite", "postgresql"):
        raise NotImplementedError(f"the ledger runs on SQLite or PostgreSQL, not {dialect}")
    insert: Insert = importlib.import_module(f"sqlalchemy.dialects.{dialect}").insert(table)
    return insert


@functools.cache
def stamps_upsert(dialect: str) -> Insert:
    """The upsert of `output_stamps` rows (uri, size, stamp, sha256): what a listing showed
    of each object when its bytes were hashed. One statement per dialect, so that
    SQLAlchemy compiles it once."""
    upsert = dialect_insert(dialect, output_stamps)
    return upsert.on_conflict_do_update(index_elements=["uri"], set_={
        k: getattr(upsert.excluded, k) for k in ("size", "stamp", "sha256")})


def executemany(c: Connection, statement: Insert, rows: list[dict[str, Any]]) -> None:
    """`statement` once for every row, through the driver's executemany: SQLAlchemy would
    build each row's parameters in Python first, most of the time of a large batch. For rows
    of plain text and numbers only: values reach the driver without SQLAlchemy's type
    processing (a time goes through `bound` first)."""
    compiled = statement.compile(dialect=c.dialect, column_keys=list(rows[0]))
    params: list[Any] = rows
    if compiled.positional:
        keys = list(compiled.positiontup or ())
        pick = operator.itemgetter(*keys) if len(keys) > 1 else lambda r: (r[keys[0]],)
        params = [pick(r) for r in rows]
    c.exec_driver_sql(str(compiled), params)


#: the page cache (KiB) of a pass that writes many rows: the book's index of transaction
#: ids takes inserts all over it, which SQLite's default cache of 2 MB spills and reads
#: back page by page throughout a large batch
BULK_CACHE_KIB = 65536


@contextmanager
def bulk(engine: Engine) -> Iterator[Connection]:
    """One connection for a pass of many writes (each in its own `transaction`): on SQLite
    with a page cache of `BULK_CACHE_KIB`, given back to the pool with the cache it had, its
    pages let go."""
    with engine.connect() as c:
        if c.dialect.name != "sqlite":
            yield c
            return
        before = c.exec_driver_sql("PRAGMA cache_size").scalar()
        c.exec_driver_sql(f"PRAGMA cache_size=-{BULK_CACHE_KIB}")
        c.commit()
        try:
            yield c
        finally:
            c.rollback()
            c.exec_driver_sql(f"PRAGMA cache_size={int(before)}")
            c.commit()


@contextmanager
def transaction(engine: Engine, connection: Connection | None = None) -> Iterator[Connection]:
    """A transaction on `connection` (a pass's own, from `bulk`) when given, else on one of
    the engine's pool."""
    if connection is None:
        with engine.begin() as c:
            yield c
        return
    with connection.begin():
        yield connection


def param(column: Column[Any], prefix: str = "v_") -> BindParameter[Any]:
    """A parameter for `column`'s values, named apart from the columns SQLAlchemy binds: a
    statement built once with it (building one costs more than running it) takes its values
    by name (`v_<column>` to set, `g_<column>` to guard)."""
    return bindparam(f"{prefix}{column.name}", type_=column.type)


def bound(c: Connection, column: Column[Any], value: Any) -> Any:
    """`value` as SQLAlchemy would hand it to the driver for `column` (a time is text on
    SQLite): worked out once for a value that many rows of an `executemany` share."""
    process = column.type.dialect_impl(c.dialect).bind_processor(c.dialect)
    return process(value) if process is not None else value


def make_engine(url: str) -> Engine:
    """An engine with the schema migrated to head; SQLite gets WAL and a busy timeout.

    Its pool never makes a thread wait for a connection (`max_overflow=-1`): the threads of
    one process bound how many are open at once, and a pool smaller than them let a thread
    that kept losing the race for a returned connection fail after 30 s (16 claim threads
    against the default 5 + 10, on a busy host)."""
    sqlite = url.startswith("sqlite")
    engine = create_engine(
        url,
        connect_args={"timeout": 30, "check_same_thread": False} if sqlite else {},
        pool_pre_ping=not sqlite,
        max_overflow=-1,
    )
    if sqlite:
        @event.listens_for(engine, "connect")
        def _pragmas(conn, _record) -> None:  # type: ignore[no-untyped-def]
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
    migrate(engine)
    return engine


#: the newest revision of `reconcile/migrations` (a test holds the two together)
HEAD = "0012"
#: the key of the PostgreSQL advisory lock a migration holds (any constant of stmtflow's)
MIGRATION_LOCK_KEY = 0x73746D74


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (a no-op when it is there: Alembic, and
    the Mako it imports, load only for a schema not at `HEAD`, which spares every command a
    tenth of a CPU second). A revision this code does not know is Alembic's to refuse.

    Processes that first use one new ledger at once (the first imports on a new home, an
    import and a run an automation started beside it) would all find it empty and all
    migrate it, failing on each other's tables: one migrates at a time, under a lock (a
    file beside a SQLite database, an advisory lock on PostgreSQL), and each looks again
    once it holds it.
    """
    if revision(engine) == HEAD:
        return
    with _migration_lock(engine):
        if revision(engine) != HEAD:
            _upgrade(engine)


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """Held by one process (and thread) at a time for `engine`'s database."""
    url = engine.url
    if url.get_backend_name() == "postgresql":
        with engine.connect() as c:
            c.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            try:
                yield
            finally:
                c.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK_KEY})
                c.commit()
        return
    database = url.database if url.get_backend_name() == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        with _THREAD_MIGRATION:
            yield
        return
    with _THREAD_MIGRATION, open(f"{database}.migration-lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released as the file closes
        yield


#: threads of one process share a file's lock (flock is per open file): they take turns
_THREAD_MIGRATION = threading.Lock()


def _upgrade(engine: Engine) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def revision(engine: Engine) -> str | None:
    """The schema's Alembic revision; None before the first migration."""
    with engine.connect() as c:
        if not inspect(c).has_table("alembic_version"):
            return None
        return c.execute(text("SELECT version_num FROM alembic_version")).scalar()
