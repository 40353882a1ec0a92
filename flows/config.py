"""Configuration: every `STMTFLOW_*` variable read once, at the edge, into `Settings`.

The README's Configuration table is the one list of variables (Prefect's own are Prefect's;
only where the UI is, for links, is read here). On a Prefect server, Secret blocks stand in
for the variables that carry secrets (`flows/secret_blocks.py`; a variable that is set wins).
Entry points (the CLI, a
flow run, a task run on a worker) call `Settings.from_env()`; everything below them takes
`Settings`, or the parts it builds (ledger, storage, templates, page reader, limits), as
arguments. Nothing reads the environment when a module is imported.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from flows import crashpoint
from flows.secret_blocks import (
    ALERT_WEBHOOK,
    DATABASE_URL,
    WEBHOOK_URL,
    passwords_by_bank,
    s3_credentials,
    server_secrets,
)
from parsers.limits import Limits
from reconcile.db import make_engine
from reconcile.ledger import Ledger
from reconcile.records import Clock, utc_now
from reconcile.storage import Storage

TASK_RUNNERS = ("threads", "dask", "task-workers")
#: `stmtflow review serve`'s address: loopback only, on a port of its own
REVIEW_URL = "http://127.0.0.1:8377"


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str
    storage_url: str
    s3_endpoint: str | None = None
    #: S3 access key and secret from the `stmtflow-s3-credentials` block (else boto's own
    #: chain: `AWS_*` variables, profiles, instance roles)
    s3_key: str | None = field(default=None, repr=False)
    s3_secret: str | None = field(default=None, repr=False)
    workers: int = 2
    #: parse processes under hard limits; 0 parses in the calling thread (for debugging)
    parse_workers: int = 2
    queue_limit: timedelta = timedelta(hours=24)
    lease: timedelta = timedelta(minutes=10)
    #: the delay before a transient failure's first retry; later ones back off from it
    retry_seconds: float = 20.0
    webhook_url: str | None = None
    operator: str | None = None
    capacity: int = 500
    task_runner: str = "threads"
    dask_address: str | None = None
    alert_webhook: str | None = None
    #: an open review older than this raises an alert
    review_alert: timedelta = timedelta(hours=48)
    #: the page reader by name: `pdfium` or `pdfplumber`
    reader: str = "pdfium"
    #: template directories beside the built-in ones
    template_dirs: tuple[Path, ...] = ()
    #: whether the built-in templates are in force (off: only `template_dirs`' templates,
    #: and the generic reader for every other bank)
    builtin_templates: bool = True
    #: the bank-export settings file (`STMTFLOW_EXPORTS`: per account, its bank and trust)
    exports_file: Path | None = None
    limits: Limits = field(default_factory=Limits)
    #: the Prefect UI that status links to: Prefect's `PREFECT_UI_URL`, else its API's host
    ui_url: str | None = None
    #: where `stmtflow review serve` serves the review pages, as links to them give it
    review_url: str = REVIEW_URL
    #: fault tests only: the point where the process kills itself (`flows.crashpoint`)
    crash_at: str | None = None
    #: bank -> the candidate passwords of its password-protected statements
    pdf_passwords: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False,
                                                          compare=False)
    #: where the ledger, the book and the reports read the time (tests move it)
    clock: Clock = field(default=utc_now, compare=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The process environment and, on a Prefect server, the Secret blocks; a mapping
        given here is read alone."""
        secrets = _secrets_of_this_run() if env is None else {}
        env = os.environ if env is None else env
        s3 = s3_credentials(secrets)
        given_keys = "AWS_ACCESS_KEY_ID" in env
        home = Path(env.get("STMTFLOW_HOME", ".stmtflow")).absolute()
        task_runner = env.get("STMTFLOW_TASK_RUNNER", "threads")
        if task_runner not in TASK_RUNNERS:
            raise ValueError(f"STMTFLOW_TASK_RUNNER must be one of {', '.join(TASK_RUNNERS)}, "
                             f"not {task_runner!r}")
        return cls(
            home=home,
            database_url=(env.get("STMTFLOW_DATABASE_URL") or secrets.get(DATABASE_URL)
                          or f"sqlite:///{home}/ledger.db"),
            storage_url=env.get("STMTFLOW_STORAGE", str(home / "storage")),
            s3_endpoint=env.get("STMTFLOW_S3_ENDPOINT") or s3.get("endpoint_url"),
            s3_key=None if given_keys else s3.get("key"),
            s3_secret=None if given_keys else s3.get("secret"),
            workers=int(env.get("STMTFLOW_WORKERS", os.cpu_count() or 2)),
            parse_workers=int(env.get("STMTFLOW_PARSE_WORKERS", os.cpu_count() or 2)),
            queue_limit=timedelta(hours=float(env.get("STMTFLOW_QUEUE_LIMIT_HOURS", 24))),
            lease=timedelta(seconds=float(env.get("STMTFLOW_LEASE_SECONDS", 600))),
            retry_seconds=float(env.get("STMTFLOW_RETRY_SECONDS", 20)),
            webhook_url=env.get("STMTFLOW_WEBHOOK_URL") or secrets.get(WEBHOOK_URL) or None,
            operator=env.get("STMTFLOW_OPERATOR") or None,
            capacity=int(env.get("STMTFLOW_CAPACITY", 500)),
            task_runner=task_runner,
            dask_address=env.get("STMTFLOW_DASK_ADDRESS") or None,
            alert_webhook=(env.get("STMTFLOW_ALERT_WEBHOOK") or secrets.get(ALERT_WEBHOOK)
                           or None),
            review_alert=timedelta(hours=float(env.get("STMTFLOW_REVIEW_ALERT_HOURS", 48))),
            reader=env.get("STMTFLOW_READER", "pdfium"),
            template_dirs=tuple(Path(p) for p in env.get("STMTFLOW_TEMPLATES", "").split(
                os.pathsep) if p),
            builtin_templates=_flag(env, "STMTFLOW_BUILTIN_TEMPLATES", True),
            exports_file=Path(env["STMTFLOW_EXPORTS"]) if env.get("STMTFLOW_EXPORTS") else None,
            limits=Limits.from_variables(env),
            pdf_passwords=passwords_by_bank(secrets, env.get("STMTFLOW_PDF_PASSWORDS")),
            ui_url=env.get("PREFECT_UI_URL") or (
                env.get("PREFECT_API_URL", "").removesuffix("/api") or None),
            review_url=env.get("STMTFLOW_REVIEW_URL") or REVIEW_URL,
            crash_at=crashpoint.check(env.get("STMTFLOW_CRASH_AT")),
        )

    def fs_options(self, url: str) -> dict[str, Any]:
        """fsspec options for `url`: the S3 endpoint and credentials for `s3://`, nothing
        otherwise."""
        if not url.startswith("s3://"):
            return {}
        options: dict[str, Any] = {}
        if self.s3_endpoint:
            options["client_kwargs"] = {"endpoint_url": self.s3_endpoint}
        if self.s3_key and self.s3_secret:
            options.update(key=self.s3_key, secret=self.s3_secret)
        return {**options, "skip_instance_cache": True} if options else {}

    def passwords_for(self, bank: str | None) -> tuple[str, ...]:
        """Candidate passwords for a statement of `bank`; every bank's when it is unknown
        (a locked file's bank cannot be read before it is opened)."""
        if bank is not None:
            return self.pdf_passwords.get(bank, ())
        return tuple(dict.fromkeys(p for ps in self.pdf_passwords.values() for p in ps))

    def engine(self) -> Engine:
        return _engine(self.database_url, self.home)

    def ledger(self) -> Ledger:
        return Ledger(self.engine(), lease=self.lease, clock=self.clock)

    def storage(self) -> Storage:
        return Storage(self.storage_url, self.fs_options(self.storage_url))


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (true/false, yes/no, on/off), not {value!r}")


def _secrets_of_this_run() -> dict[str, Any]:
    """The server's Secret blocks, read once per flow run in a process: a run reads its
    settings in its flow and in each of its worker threads, each time a round trip to the
    API for the same answer. A block changed meanwhile is seen by the
    next run, as a worker's settings are (`import_flow._worker`); outside a flow run (a
    command), read each time."""
    if "prefect" not in sys.modules:  # a command that started no flow run
        return server_secrets()
    from prefect.runtime import flow_run
    from prefect.settings import PREFECT_API_URL

    if _command_read:
        if _command_read[0] is None:
            _command_read[0] = server_secrets()
        return dict(_command_read[0])
    run = flow_run.id
    if run is None:
        return server_secrets()
    return dict(_run_secrets(str(run), str(PREFECT_API_URL.value())))


#: while a command holds `secrets_read_once`: its one read of the Secret blocks (None
#: before it)
_command_read: list[dict[str, Any] | None] = []


@contextlib.contextmanager
def secrets_read_once() -> Iterator[None]:
    """Within: the Secret blocks are read once, as the command reads its settings, and the
    flow run it starts in this process (its flow, its worker threads) takes that read
    instead of its own, a new client and a round trip before its first file (about 35 ms
    of CPU, 60 of wall time). The command and its run then also agree on them (the ledger's
    address is one)."""
    _command_read.append(None)
    try:
        yield
    finally:
        _command_read.clear()


@functools.lru_cache(maxsize=8)
def _run_secrets(run: str, api_url: str) -> dict[str, Any]:
    """`run` and `api_url` only key the cache."""
    return server_secrets()


#: Threads of one process (the CLI's progress watcher and the flow) may ask for the first
#: engine at once: one of them creates it and migrates the schema, the other waits.
_ENGINE_LOCK = threading.Lock()


def _engine(url: str, home: Path) -> Engine:
    """One engine (and connection pool) per database for the life of the process."""
    with _ENGINE_LOCK:
        return _new_engine(url, home)


@functools.cache
def _new_engine(url: str, home: Path) -> Engine:
    if url.startswith("sqlite:///"):
        home.mkdir(parents=True, exist_ok=True)
    return make_engine(url)
