"""The life of a file as plain functions: accept, then claim, process, write, record.

Prefect calls these from thin tasks (`import_flow.py`); tests call them directly. Every
failure is classified once (`taxonomy.classify`) and recorded by the ledger before it is
re-raised, so the attempt count equals the number of runs on every path.
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flows.config import Settings
from flows.notify import notify_ended
from flows.outputs import output_files
from flows.taxonomy import (
    DETERMINISTIC,
    TRANSIENT,
    ChainMismatch,
    JobExcluded,
    LeaseLost,
    TransientError,
    classify,
)
from parsers.api import ParseResult, chain_revision
from parsers.limits import Limits
from parsers.model import mask_account
from parsers.ocr import engine_identity
from parsers.pool import ParsePool, parser_settings
from parsers.validate import POLICY_REVISION
from reconcile.ledger import (
    EXPIRED,
    FAILED,
    MAX_ATTEMPTS,
    QUEUED,
    SUCCEEDED,
    Claim,
    Identities,
    Ledger,
)
from reconcile.storage import IntegrityError, Storage, list_sources, read_source, sha256

log = logging.getLogger("stmtflow")
_pool: tuple[tuple, ParsePool] | None = None
_pool_lock = threading.Lock()


def current_identities() -> Identities:
    return Identities(chain_revision(), engine_identity(), POLICY_REVISION)


@dataclass(frozen=True)
class Accepted:
    """What acceptance returns per file: the job, when it was submitted, where to look."""

    job_id: str
    source: str
    submitted_at: datetime

    @property
    def status_location(self) -> str:
        return f"stmtflow status {self.job_id}"


def accept_batch(settings: Settings, batch_id: str, sources: list[str],
                 bank: str | None) -> list[Accepted]:
    """Envelope every file of `sources`, bytes first into content-addressed storage."""
    ledger, storage = settings.ledger(), settings.storage()
    ledger.open_batch(batch_id, " ".join(sources), bank)
    ids = current_identities()
    accepted = []
    for source in sources:
        for uri in list_sources(source, settings.fs_options(source)):
            data = read_source(uri, settings.fs_options(uri))
            input_uri, digest = storage.put_input(data)
            job_id = ledger.accept(batch_id, source_uri=uri, input_uri=input_uri, size=len(data),
                                   sha256=digest, bank_hint=bank, ids=ids,
                                   queue_limit=settings.queue_limit)
            job = ledger.job(job_id)
            assert job is not None
            accepted.append(Accepted(job_id, uri, job["submitted_at"]))
    return accepted


def process_job(settings: Settings, job_id: str) -> dict[str, Any]:
    """Run one attempt of `job_id`; return its terminal record or raise what ended it."""
    ledger, storage = settings.ledger(), settings.storage()
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    claim = ledger.claim(job_id, owner)
    if claim is None:
        return _unclaimed(settings, ledger, job_id)
    try:
        job = ledger.job(job_id)
        assert job is not None
        record = _run(ledger, storage, claim, job)
    except LeaseLost:
        raise
    except Exception as exc:
        if _record_failure(ledger, claim, exc):
            notify_ended(settings, job_id)
        raise
    notify_ended(settings, job_id)
    return record


def _run(ledger: Ledger, storage: Storage, claim: Claim, job: dict[str, Any]) -> dict[str, Any]:
    pinned = Identities(job["chain_revision"], job["ocr_engine"], job["policy_revision"])
    mine = current_identities()
    if pinned != mine:
        raise ChainMismatch(f"job pinned {pinned}, this worker runs {mine}")
    data = storage.read(job["input_uri"])
    if sha256(data) != job["sha256"]:
        raise IntegrityError("stored input does not match its pinned digest")
    result = parse_pdf(data, bank=job["bank_hint"])
    files = output_files(result, job)
    digests = storage.write_outputs(f"results/{job['job_id']}", files,
                                    token=f"{claim.attempt}-{claim.owner.rsplit(':', 1)[-1]}")
    won = ledger.succeed(
        claim, output_uri=storage.uri(f"results/{job['job_id']}/statement.json"),
        output_digest=digests["statement.json"], outputs=digests,
        needs_review=not result.validation.ok, bank=result.statement.bank,
        account_last4=",".join(a.account_last4 for a in result.statement.accounts),
        transactions=result.statement.transaction_count)
    if not won:
        raise LeaseLost(f"{job['job_id']}: the lease was taken over; nothing committed")
    _log_success(job["job_id"], claim.attempt, result)
    record = ledger.job(job["job_id"])
    assert record is not None
    return record


def parse_pdf(data: bytes, bank: str | None = None) -> ParseResult:
    """Parse in this process's parse workers, each parse under the file's hard limits."""
    return parse_pool(Settings.from_env()).parse(data, bank=bank)


def parse_pool(settings: Settings) -> ParsePool:
    """One pool per process, started on first use (again if the parser settings it runs
    changed), stopped at exit; `STMTFLOW_PARSE_WORKERS=0` parses in the calling thread."""
    global _pool
    env = parser_settings()
    key = (settings.parse_workers, Limits.from_env(), tuple(sorted(env.items())))
    with _pool_lock:
        if _pool is None or _pool[0] != key:
            _close_pool()
            _pool = key, ParsePool(settings.parse_workers, key[1], env=env)
        return _pool[1]


@atexit.register
def _close_pool() -> None:
    if _pool is not None:
        _pool[1].close()


def _record_failure(ledger: Ledger, claim: Claim, exc: BaseException) -> bool:
    """Record the attempt's failure; True when it ended the job (and this worker won)."""
    c = classify(exc)
    message = f"{type(exc).__name__}: {exc}"[:2000]
    terminal = False
    if c.transient and claim.attempt < MAX_ATTEMPTS:
        ledger.retry(claim, c.reason, message)
    elif c.transient:
        terminal = ledger.fail(claim, TRANSIENT, "retries_exhausted", f"{c.reason}: {message}")
    else:
        terminal = ledger.fail(claim, DETERMINISTIC, c.reason, message)
    level = logging.ERROR if c.reason == "unclassified" else logging.WARNING
    log.log(level, "job %s attempt %d: %s (%s)", claim.job_id, claim.attempt, c.reason,
            c.error_class, exc_info=c.reason == "unclassified")
    return terminal


def _unclaimed(settings: Settings, ledger: Ledger, job_id: str) -> dict[str, Any]:
    """Why a claim was lost: already finished (a rerun), expired, or held by someone else."""
    job = ledger.job(job_id)
    if job is None:
        raise KeyError(f"no job {job_id}")
    if job["status"] == QUEUED and ledger.expire(job_id):
        notify_ended(settings, job_id)
        job = ledger.job(job_id)
        assert job is not None
    if job["status"] == SUCCEEDED:
        return job
    if job["status"] in (FAILED, EXPIRED):
        raise JobExcluded(job["status"], job["reason"])
    raise TransientError("claimed_elsewhere", f"{job_id} is {job['status']} under another lease")


def _log_success(job_id: str, attempt: int, result: ParseResult) -> None:
    accounts = ", ".join(mask_account(a.account_last4) for a in result.statement.accounts)
    log.info("job %s attempt %d: %s %s, %d transactions, %s", job_id, attempt,
             result.statement.bank, accounts, result.statement.transaction_count,
             "validated" if result.validation.ok else "needs review")
