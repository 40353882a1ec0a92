"""The life of a file as plain functions: accept, then claim, process, write, record.

Prefect calls these from thin tasks (`import_flow.py`); tests call them directly. Every
failure is classified once (`taxonomy.classify`) and recorded by the ledger before it is
re-raised, so the attempt count equals the number of runs on every path.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from flows import crashpoint
from flows.config import Settings
from flows.leases import kept
from flows.notify import channels, notify_ended
from flows.parser import Parse, Parser
from flows.taxonomy import (
    ChainMismatch,
    JobExcluded,
    LeaseLost,
    TransientError,
    classify,
    classify_source,
)
from parsers.codes import ErrorClass, Reason, Status
from parsers.model import mask_account, mask_digits
from parsers.worker.rendered import Rendered
from reconcile.acceptance import (
    KEEP,
    MOVE,
    Refused,
    check_after_import,
    move_accepted,
    read_checked,
    source_root,
)
from reconcile.ledger import MAX_ATTEMPTS, Claim, Ledger
from reconcile.records import Identities, Job
from reconcile.recovery import leased
from reconcile.storage import Storage, list_sources

log = logging.getLogger("stmtflow")

#: how often a duplicate looks whether the job holding its input has ended
HOLDER_POLL_SECONDS = 0.5
#: why a duplicate reclaimed its holder's attempt
TAKEN_OVER = "its run stopped; a duplicate of the job took its work over"

@dataclass(frozen=True)
class Worker:
    """What one attempt runs with: built from `Settings` at the edge (the task), or handed
    other parts by a test (a parse that fails, a storage that drops a write)."""

    ledger: Ledger
    storage: Storage
    parse: Parse
    #: the identities this worker runs: a job pinned to others is refused
    identities: Identities
    #: notify(job) once a job has ended (its record when the transition that ended it also
    #: wrote the notifications it owes on `channels`, else its id); never changes its outcome
    notify: Callable[[str | Job], None]
    #: the notification channels a job's terminal transition writes its owed rows for
    channels: tuple[str, ...] = ()
    #: fault tests only: where this process kills itself (`flows.crashpoint`)
    crash_at: str | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Worker:
        parser = Parser.from_settings(settings)
        return cls(settings.ledger(), settings.storage(),
                   parser.in_workers(settings.parse_workers, settings.passwords_for),
                   parser.identities(),
                   functools.partial(notify_ended, settings), tuple(channels(settings)),
                   settings.crash_at)

    def ended(self, job: Job) -> None:
        """Notify for `job`, which this worker's transition just ended."""
        self.notify(job if self.channels else job.job_id)


@dataclass(frozen=True)
class Accepted:
    """What acceptance returns per file: the job, when it was submitted, where to look."""

    job_id: str
    source: str
    submitted_at: datetime

    @property
    def status_location(self) -> str:
        return f"stmtflow status {self.job_id}"


def open_batch(settings: Settings, batch_id: str, sources: list[str], bank: str | None,
               *, follow_links: bool = False, after_import: str = KEEP) -> None:
    """Record the batch, with what a resume lists again, unless it exists."""
    check_after_import(after_import)
    settings.ledger().open_batch(batch_id, " ".join(sources), bank, acceptance={
        "sources": sources, "bank": bank, "follow_links": follow_links,
        "after_import": after_import})


def accept_batch(settings: Settings, batch_id: str, sources: list[str], bank: str | None,
                 *, follow_links: bool = False, after_import: str = KEEP) -> list[Accepted]:
    """Envelope every file of `sources`, bytes first into content-addressed storage.

    Each file on its own: one that cannot be read, leads out of its folder or is too large
    becomes a FAILED job and the others go on. The batch is recorded as accepted only once
    every source was listed and every file enveloped, so a run that dies here leaves a
    batch that a resume lists again (`resume_acceptance`); files already enveloped return
    their job.
    """
    ledger, storage = settings.ledger(), settings.storage()
    open_batch(settings, batch_id, sources, bank, follow_links=follow_links,
               after_import=after_import)
    ids = Parser.from_settings(settings).identities()
    accepted = []
    for source in sources:
        options = settings.fs_options(source)
        root = source_root(source, options)
        uris = list_sources(source, options)
        crashpoint.reached(settings.crash_at, "listing")
        for uri in uris:
            try:
                data = read_checked(uri, root, max_bytes=settings.limits.max_bytes,
                                    follow_links=follow_links, options=options)
            except (Refused, OSError) as exc:
                job = _refuse(settings, ledger, batch_id, uri, bank, ids, exc)
            else:
                input_uri, digest = storage.put_input(data)
                job = ledger.accept(batch_id, source_uri=uri, input_uri=input_uri,
                                    size=len(data), sha256=digest, bank_hint=bank, ids=ids,
                                    queue_limit=settings.queue_limit)
                move_accepted(uri, root, data, after_import, options,
                              settings.fs_options(after_import.removeprefix(MOVE)))
            accepted.append(Accepted(job.job_id, uri, job.submitted_at))
            crashpoint.reached(settings.crash_at, "acceptance")
    ledger.accepted(batch_id)
    return accepted


def resume_acceptance(settings: Settings, batch_id: str) -> None:
    """List a batch's source again when its acceptance never finished (a run died in it)."""
    batch = settings.ledger().batch(batch_id)
    if batch is not None and batch.accepted_at is None and batch.acceptance:
        a = batch.acceptance
        accept_batch(settings, batch_id, list(a["sources"]), a.get("bank"),
                     follow_links=bool(a.get("follow_links")),
                     after_import=a.get("after_import") or KEEP)


def _refuse(settings: Settings, ledger: Ledger, batch_id: str, uri: str, bank: str | None,
            ids: Identities, exc: Refused | OSError) -> Job:
    """Record a source file acceptance will not store, or re-raise what another try may
    cure (the batch then stays unaccepted, and a resume lists its source again)."""
    if isinstance(exc, Refused):
        reason, size = exc.reason, exc.size
    else:
        c = classify_source(exc)
        if c.transient:
            raise exc
        reason, size = c.reason, 0
    log.warning("batch %s: %s refused: %s", batch_id, mask_digits(uri.rsplit("/", 1)[-1]),
                reason)
    return ledger.refuse(batch_id, source_uri=uri, size=size, reason=reason,
                         message=f"{type(exc).__name__}: {mask_digits(str(exc))}"[:2000],
                         bank_hint=bank, ids=ids, queue_limit=settings.queue_limit)


def process_job(worker: Worker, job_id: str, task_run_id: str | None = None) -> Job:
    """Run one attempt of `job_id`; return its terminal record or raise what ended it.

    `task_run_id` names the Prefect task run making the attempt, in its attempt row.
    """
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    claim = worker.ledger.claim(job_id, owner, task_run_id)
    if claim is None and _took_back(worker.ledger, job_id, task_run_id):
        claim = worker.ledger.claim(job_id, owner, task_run_id)
        if claim is None:  # that was its last attempt: taking it back ended the job
            worker.notify(job_id)
    if claim is None:
        return _unclaimed(worker, job_id, task_run_id)
    try:
        with kept(worker.ledger, claim):
            record = _run(worker, claim)
    except LeaseLost:
        raise
    except Exception as exc:
        if (ended := _record_failure(worker, claim, exc)) is not None:
            worker.ended(ended)
        raise
    crashpoint.reached(worker.crash_at, "succeeded")
    worker.ended(record)
    return record


def _job(ledger: Ledger, job_id: str) -> Job:
    job = ledger.job(job_id)
    if job is None:
        raise KeyError(f"no job {job_id}")
    return job


def _run(worker: Worker, claim: Claim) -> Job:
    job = claim.job or _job(worker.ledger, claim.job_id)
    if job.identities != worker.identities:
        raise ChainMismatch(f"job pinned {job.identities}, this worker runs {worker.identities}")
    data = worker.storage.read_input(job.input_uri, job.sha256)
    crashpoint.reached(worker.crash_at, "parse")
    out = worker.parse(data, job)  # parsed, rendered and hashed in a parse worker
    # this attempt's own key: a stale attempt never writes over the objects a success names
    prefix = f"results/{job.job_id}/{claim.attempt}-{claim.owner.rsplit(':', 1)[-1]}"
    written = worker.storage.write_stamped(prefix, out.files, token="write",
                                           digests=out.digests)
    digests = {name: w.sha256 for name, w in written.items()}
    crashpoint.reached(worker.crash_at, "written")
    record = worker.ledger.succeed(
        claim, output_uri=worker.storage.uri(f"{prefix}/statement.json"),
        output_digest=digests["statement.json"], outputs=digests, stamps=list(written.values()),
        needs_review=out.needs_review, bank=out.bank, account_last4=",".join(out.account_last4),
        transactions=out.transactions, notify=worker.channels)
    if record is None:
        raise LeaseLost(f"{job.job_id}: the lease was taken over; nothing committed")
    _log_success(job.job_id, claim.attempt, out)
    return record


def _record_failure(worker: Worker, claim: Claim, exc: BaseException) -> Job | None:
    """Record the attempt's failure; the job's record when that ended it (and this worker
    won)."""
    ledger = worker.ledger
    c = classify(exc)
    message = f"{type(exc).__name__}: {exc}"[:2000]
    terminal = None
    if c.transient and claim.attempt < MAX_ATTEMPTS:
        ledger.retry(claim, c.reason, message)
    elif c.transient:
        terminal = ledger.fail(claim, ErrorClass.TRANSIENT, Reason.RETRIES_EXHAUSTED,
                               f"{c.reason}: {message}", notify=worker.channels)
    else:
        terminal = ledger.fail(claim, ErrorClass.DETERMINISTIC, c.reason, message,
                               notify=worker.channels)
    unclassified = c.reason == Reason.UNCLASSIFIED
    log.log(logging.ERROR if unclassified else logging.WARNING, "job %s attempt %d: %s (%s)",
            claim.job_id, claim.attempt, c.reason, c.error_class, exc_info=unclassified)
    return terminal


def _took_back(ledger: Ledger, job_id: str, task_run_id: str | None) -> bool:
    """Take back a job that an earlier try of this very task run left PROCESSING because it
    could not record how its attempt ended (the ledger was unreachable then).

    Tries of one task run follow one another, so that try is over: its attempt counts, as
    `crashed`, and the job need not wait for a lease or a sweep.
    """
    if task_run_id is None:
        return False
    job = ledger.job(job_id)
    if job is None or job.status != Status.PROCESSING or job.lease_owner is None:
        return False
    held = ledger.attempts(job_id)
    if not held or held[-1].task_run_id != task_run_id:
        return False
    return ledger.reclaim_held(job_id, job.lease_owner, "an earlier try of this task could "
                               "not record how its attempt ended")


def _unclaimed(worker: Worker, job_id: str, task_run_id: str | None) -> Job:
    """Why a claim was lost: already finished (a rerun), a duplicate, expired, or held by
    someone else."""
    job = _job(worker.ledger, job_id)
    if job.status == Status.DUPLICATE:
        return _as_holder_ends(worker, job, task_run_id)
    if job.status == Status.QUEUED and worker.ledger.expire(job_id):
        worker.notify(job_id)
        job = _job(worker.ledger, job_id)
    if job.status == Status.SUCCEEDED:
        return job
    if job.status.terminal:
        raise JobExcluded(job.status, job.reason)
    raise TransientError(Reason.CLAIMED_ELSEWHERE,
                         f"{job_id} is {job.status} under another lease")


def _as_holder_ends(worker: Worker, job: Job, task_run_id: str | None) -> Job:
    """A duplicate ends as its holder ends; the duplicate's task then succeeds with it, or
    is excluded as it was.

    A holder that a live run holds is waited for (at most a lease): its attempt renews its
    lease, and its batch's run renews the batch's. A holder no live run holds (its run was
    killed, and its leases ran out) is never waited for: this task takes its work over at
    once, reclaiming the dead attempt and running the holder's job itself.
    """
    ledger = worker.ledger
    deadline = time.monotonic() + ledger.lease.total_seconds()
    while not (holder := ledger.outcome_of(job)).status.terminal:
        if not _held_alive(ledger, holder):
            _take_over(worker, holder, task_run_id)
            continue
        if time.monotonic() > deadline:
            raise TransientError(Reason.CLAIMED_ELSEWHERE,
                                 f"{job.job_id} waits for {holder.job_id}, still {holder.status}")
        time.sleep(HOLDER_POLL_SECONDS)
    if holder.status != Status.SUCCEEDED:
        raise JobExcluded(holder.status, holder.reason)
    return job


def _held_alive(ledger: Ledger, job: Job) -> bool:
    """Whether a live run holds the unfinished `job`: its attempt's lease, or else its
    batch's, is still renewed."""
    now = ledger.clock()
    if job.status == Status.PROCESSING:
        return job.lease_until is not None and job.lease_until >= now
    batch = ledger.batch(job.batch_id)
    return batch is not None and leased(batch, now)


def _take_over(worker: Worker, holder: Job, task_run_id: str | None) -> None:
    """Run the job `holder`, which no live run holds, here: its dead attempt reclaimed (it
    counts, as crashed), then an attempt of this worker's. Its end is the ledger's to read;
    a transient failure is raised, for the duplicate's task to try again after its backoff."""
    ledger = worker.ledger
    if holder.status == Status.PROCESSING and holder.lease_owner is not None:
        if not ledger.reclaim_held(holder.job_id, holder.lease_owner, TAKEN_OVER):
            return  # another reclaimed or finished it first: look again
        if _job(ledger, holder.job_id).status.terminal:  # that was its last attempt
            worker.notify(holder.job_id)
            return
    log.warning("job %s: no live run holds it; a duplicate of it runs it", holder.job_id)
    try:
        process_job(worker, holder.job_id, task_run_id)
    except Exception as exc:
        if classify(exc).transient and not _held_alive(ledger, _job(ledger, holder.job_id)):
            raise


def _log_success(job_id: str, attempt: int, out: Rendered) -> None:
    accounts = ", ".join(mask_account(last4) for last4 in out.account_last4)
    log.info("job %s attempt %d: %s %s, %d transactions, %s", job_id, attempt, out.bank,
             accounts, out.transactions, "needs review" if out.needs_review else "validated")
