"""Configuration from the environment, with defaults that run on one machine unset.

| variable | default | meaning |
|---|---|---|
| `STMTFLOW_HOME` | `./.stmtflow` | data directory of the embedded default |
| `STMTFLOW_DATABASE_URL` | `sqlite:///$STMTFLOW_HOME/ledger.db` | the ledger (any SQLAlchemy URL) |
| `STMTFLOW_STORAGE` | `$STMTFLOW_HOME/storage` | inputs and results root (any fsspec URL) |
| `STMTFLOW_S3_ENDPOINT` | unset | S3 endpoint for `s3://` storage and sources |
| `STMTFLOW_WORKERS` | CPU count | files processed at once |
| `STMTFLOW_PARSE_WORKERS` | CPU count | parse processes under hard limits (0: parse in-process) |
| `STMTFLOW_QUEUE_LIMIT_HOURS` | `24` | a job not claimed within this expires |
| `STMTFLOW_LEASE_SECONDS` | `600` | a claim's lease; a dead worker's job is reclaimed after it |
| `STMTFLOW_WEBHOOK_URL` | unset | POST a JSON notification here when a job ends |
| `STMTFLOW_OPERATOR` | unset | owner given to investigations the reconciliation opens |
| `STMTFLOW_CAPACITY` | `500` | queued jobs beyond this raise a backlog alert |
| `STMTFLOW_TASK_RUNNER` | `threads` | `dask` runs per-file tasks on a Dask cluster |
| `STMTFLOW_DASK_ADDRESS` | unset | scheduler of an existing Dask cluster (else a local one) |
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from reconcile.db import make_engine
from reconcile.ledger import Ledger
from reconcile.storage import Storage


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str
    storage_url: str
    s3_endpoint: str | None
    workers: int
    parse_workers: int
    queue_limit: timedelta
    lease: timedelta
    webhook_url: str | None
    operator: str | None
    capacity: int

    @classmethod
    def from_env(cls) -> Settings:
        home = Path(os.environ.get("STMTFLOW_HOME", ".stmtflow")).absolute()
        return cls(
            home=home,
            database_url=os.environ.get("STMTFLOW_DATABASE_URL", f"sqlite:///{home}/ledger.db"),
            storage_url=os.environ.get("STMTFLOW_STORAGE", str(home / "storage")),
            s3_endpoint=os.environ.get("STMTFLOW_S3_ENDPOINT") or None,
            workers=int(os.environ.get("STMTFLOW_WORKERS", os.cpu_count() or 2)),
            parse_workers=int(os.environ.get("STMTFLOW_PARSE_WORKERS", os.cpu_count() or 2)),
            queue_limit=timedelta(hours=float(os.environ.get("STMTFLOW_QUEUE_LIMIT_HOURS", 24))),
            lease=timedelta(seconds=float(os.environ.get("STMTFLOW_LEASE_SECONDS", 600))),
            webhook_url=os.environ.get("STMTFLOW_WEBHOOK_URL") or None,
            operator=os.environ.get("STMTFLOW_OPERATOR") or None,
            capacity=int(os.environ.get("STMTFLOW_CAPACITY", 500)),
        )

    def fs_options(self, url: str) -> dict[str, Any]:
        """fsspec options for `url`: the S3 endpoint for `s3://`, nothing otherwise."""
        if url.startswith("s3://") and self.s3_endpoint:
            return {"client_kwargs": {"endpoint_url": self.s3_endpoint},
                    "skip_instance_cache": True}
        return {}

    def ledger(self) -> Ledger:
        return Ledger(_engine(self.database_url, self.home), lease=self.lease)

    def storage(self) -> Storage:
        return Storage(self.storage_url, self.fs_options(self.storage_url))


@functools.cache
def _engine(url: str, home: Path):  # type: ignore[no-untyped-def]
    if url.startswith("sqlite:///"):
        home.mkdir(parents=True, exist_ok=True)
    return make_engine(url)
