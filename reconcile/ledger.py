"""The job ledger: every job status change is one guarded UPDATE here, checked by row count.

No other module writes a job's status. Each transition is named after what it does and
returns whether it won (a finish returns the job as it committed it, or None): the database
is the lock, so two claimants can race and exactly one wins, and a worker whose lease was
taken over commits nothing (its guarded update matches zero rows). Reads return records
(`reconcile/records.py`), never rows.

A job's life (the guard of each transition in brackets)::

    accept ──► QUEUED ──expire [now ≥ expires_at]──────────────────────────► EXPIRED
                 │
                 │ claim [QUEUED and now < expires_at, or RETRYING]: attempts + 1, lease
                 ▼
    ┌──────► PROCESSING ──succeed [same owner, same attempt]─────────────────► SUCCEEDED
    │            │  │  └──fail [same owner, same attempt]─────────────────────► FAILED
    │            │  └──reclaim [lease_until < now, or its run ended] on the last try ► FAILED
    │            │  renew [same owner, same attempt]: the lease starts again
    │            │ retry [same owner, same attempt], or reclaim [lease_until < now, or its
    │            │ run ended: `reclaim_held`]
    │            ▼
    └─claim── RETRYING

    accept ──► QUEUED ──duplicate [another job holds the input claim]─────────► DUPLICATE
    refuse ──► FAILED (unreadable, outside the source, too large: nothing was stored)
    QUEUED, RETRYING ──abandon_batch [no run holds the batch]─────────────► FAILED abandoned
    QUEUED, RETRYING ──fail_batch [the batch's epoch; its source unaccepted]► FAILED batch_failed

One job parses an input digest under one set of pinned identities: acceptance takes a
claim on (sha256, pins) in `input_claims`, whose primary key is the lock. A job that finds
the claim held by a queued, running, succeeded or deterministically failed job becomes its
DUPLICATE (zero parses; its outcome is the holder's); a holder that expired or failed for a
reason another try may cure passes the claim to the new job (`_hands_over`).

SUCCEEDED, FAILED, EXPIRED and DUPLICATE are terminal: no guard admits them, so they never
change. A batch's state is fenced the same way: every run that takes the batch raises its
epoch, and `close_batch` wins only for the epoch it took. That run also holds the batch's
own lease, from taking it to closing it, which is how a batch none of whose jobs is held (its
source being listed or accepted, its state being derived) shows that its run is alive.

Time comes from the injected `clock`, so leases and expiry are tested without sleeping.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Update,
    and_,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import Insert

from parsers.codes import BatchState, ErrorClass, Outcome, Reason, Status
from reconcile.db import (
    attempts,
    batches,
    dialect_insert,
    input_claims,
    jobs,
    notifications,
    param,
    stamps_upsert,
)
from reconcile.records import Attempt, Batch, Clock, Identities, Job, utc_now
from reconcile.storage import Stamp

MAX_ATTEMPTS = 3
#: jobs read at once by a pass over a batch (`Ledger.each_job`)
JOB_PAGE = 500

#: the statuses a job leaves (every other one is terminal)
UNFINISHED = tuple(s.value for s in Status if not s.terminal)


#: failures of a run rather than of the bytes: the next job of the same bytes tries again
RUN_FAILURES = frozenset({Reason.CHAIN_MISMATCH, Reason.INPUT_MISSING, Reason.INPUT_CORRUPT,
                          Reason.UNCLASSIFIED, Reason.ABANDONED, Reason.BATCH_FAILED})


def _hands_over(holder: Any, rerun: bool) -> bool:
    """Whether the holder of an input claim passes it to a new job of the same bytes.

    An expired holder never ran, and a transient failure or a failure of the run may not
    recur: those hand over. A deterministic failure is a property of the bytes under these
    pins, so a new job of them is its duplicate and ends the same way; only a rerun, which
    asks for another try, takes the claim from any failed holder.
    """
    if holder.status == Status.EXPIRED:
        return True
    return holder.status == Status.FAILED and (
        rerun or holder.error_class == ErrorClass.TRANSIENT or holder.reason in RUN_FAILURES)


# The statements of every attempt's transitions, built once with named parameters: building
# a statement and its cache key anew takes more CPU than SQLite takes to run it.
_CLAIM = (update(jobs)
          .where(jobs.c.job_id == param(jobs.c.job_id, "g_"),
                 or_(jobs.c.status == Status.RETRYING,
                     and_(jobs.c.status == Status.QUEUED,
                          jobs.c.expires_at > param(jobs.c.expires_at, "g_"))))
          .values(status=Status.PROCESSING, attempts=jobs.c.attempts + 1,
                  lease_owner=param(jobs.c.lease_owner), lease_until=param(jobs.c.lease_until))
          .returning(*jobs.c))
_NEW_ATTEMPT = insert(attempts)
_END_ATTEMPT = (update(attempts)
                .where(attempts.c.job_id == param(attempts.c.job_id, "g_"),
                       attempts.c.number == param(attempts.c.number, "g_"))
                .values({c: param(c) for c in (attempts.c.ended_at, attempts.c.outcome,
                                               attempts.c.error_class, attempts.c.reason,
                                               attempts.c.message)}))
_NOTIFICATION = insert(notifications)
_NEW_JOB = insert(jobs).returning(*jobs.c)


@functools.cache
def _take_input(dialect: str) -> Insert:
    """The claim on an input (sha256 and pins) for a job, unless a job holds it: no row is
    written (nor returned) then, and no error stops the envelope's transaction."""
    return dialect_insert(dialect, input_claims).on_conflict_do_nothing().returning(
        input_claims.c.job_id)


@functools.cache
def _finish_statement(keys: tuple[str, ...]) -> Update:
    """The guarded end of an attempt that sets the columns `keys` (`v_<column>` each), the
    job returned as committed."""
    return (update(jobs)
            .where(jobs.c.job_id == param(jobs.c.job_id, "g_"),
                   jobs.c.status == Status.PROCESSING,
                   jobs.c.lease_owner == param(jobs.c.lease_owner, "g_"),
                   jobs.c.attempts == param(jobs.c.attempts, "g_"))
            .values({jobs.c[k]: param(jobs.c[k]) for k in keys})
            .returning(*jobs.c))


@dataclass(frozen=True)
class Claim:
    job_id: str
    owner: str
    attempt: int
    #: the job as the claim committed it (read in the same transaction)
    job: Job | None = dataclasses.field(default=None, compare=False, hash=False)


class Ledger:
    def __init__(self, engine: Engine, lease: timedelta = timedelta(minutes=10),
                 clock: Clock = utc_now) -> None:
        self.engine = engine
        self.lease = lease
        self.clock = clock

    # -- acceptance -------------------------------------------------------------------
    def open_batch(self, batch_id: str, source: str, bank: str | None,
                   rerun_of: str | None = None,
                   acceptance: dict[str, Any] | None = None) -> None:
        """Create the batch once; `acceptance` is what a resume lists again (None: nothing
        to list, the batch is accepted as it is opened)."""
        t = self.clock()
        with self.engine.begin() as c:
            exists = c.execute(select(batches.c.batch_id).where(batches.c.batch_id == batch_id))
            if exists.first() is None:
                c.execute(insert(batches).values(
                    batch_id=batch_id, source=source, bank=bank, created_at=t,
                    state=BatchState.PROCESSING, rerun_of=rerun_of, epoch=0,
                    acceptance=json.dumps(acceptance) if acceptance is not None else None,
                    accepted_at=None if acceptance is not None else t))

    def accept(self, batch_id: str, *, source_uri: str, input_uri: str, size: int, sha256: str,
               bank_hint: str | None, ids: Identities, queue_limit: timedelta,
               rerun_of: str | None = None) -> Job:
        """Write the job envelope and claim its input: the same file (name and bytes) in
        the same batch returns the same job; bytes another job holds (of this batch too,
        under another name) make this one its DUPLICATE.

        The envelope and a claim no job holds yet (the common case) are one transaction;
        a claim that is held is settled after the envelope's commit (`_claim_input`)."""
        job_id, new, job = self._insert_job(
            batch_id, bank_hint, ids, queue_limit, rerun_of, take_input=True,
            source_uri=source_uri, input_uri=input_uri, size=size, sha256=sha256,
            status=Status.QUEUED)
        if job is not None:
            return job
        if new:
            self._claim_input(job_id, sha256, ids, rerun=rerun_of is not None)
        return self._read_back(job_id)

    def refuse(self, batch_id: str, *, source_uri: str, size: int, reason: Reason,
               message: str, bank_hint: str | None, ids: Identities,
               queue_limit: timedelta) -> Job:
        """A source file refused at acceptance: a FAILED job with no input, never run.

        Refusing the same source of the same batch again (a resume) returns the first job.
        """
        with self.engine.connect() as c:
            known = c.execute(select(jobs.c.job_id).where(
                jobs.c.batch_id == batch_id, jobs.c.source_uri == source_uri,
                jobs.c.input_uri.is_(None))).scalar()
        if known is None:
            known, _, job = self._insert_job(
                batch_id, bank_hint, ids, queue_limit, None, source_uri=source_uri,
                input_uri=None, size=size, sha256=None, status=Status.FAILED,
                error_class=ErrorClass.DETERMINISTIC, reason=reason, message=message,
                finished_at=self.clock())
            if job is not None:
                return job
        return self._read_back(known)

    def _insert_job(self, batch_id: str, bank_hint: str | None, ids: Identities,
                    queue_limit: timedelta, rerun_of: str | None, take_input: bool = False,
                    **values: Any) -> tuple[str, bool, Job | None]:
        """Insert an envelope and, with `take_input`, the claim on its input unless a job
        holds it, in one transaction: (job id, True, the job as committed), or (job id,
        True, None) when the claim is held; (the batch's job of this file, False, None)
        when there is one."""
        submitted = self.clock()
        job_id = "j-" + uuid.uuid4().hex[:16]
        try:
            with self.engine.begin() as c:
                row = c.execute(_NEW_JOB, dict(
                    job_id=job_id, batch_id=batch_id, bank_hint=bank_hint,
                    submitted_at=submitted, expires_at=submitted + queue_limit,
                    chain_revision=ids.chain_revision, ocr_engine=ids.ocr_engine,
                    policy_revision=ids.policy_revision, attempts=0, needs_review=False,
                    rerun_of=rerun_of, **values)).mappings().one()
                if take_input and c.execute(_take_input(c.dialect.name), {
                        "sha256": values["sha256"], "job_id": job_id,
                        **dataclasses.asdict(ids)}).first() is None:
                    return job_id, True, None  # held: the envelope commits on its own
                return job_id, True, Job.from_row(row)
        except IntegrityError:  # one_job_per_file_per_batch: this file is already here
            with self.engine.connect() as c:
                return c.execute(select(jobs.c.job_id).where(
                    jobs.c.batch_id == batch_id, jobs.c.source_uri == values["source_uri"],
                    jobs.c.sha256 == values["sha256"])).scalar_one(), False, None

    def _read_back(self, job_id: str) -> Job:
        job = self.job(job_id)
        if job is None:
            raise LookupError(f"{job_id} vanished right after acceptance")
        return job

    def _claim_input(self, job_id: str, sha256: str, ids: Identities,
                     rerun: bool) -> str | None:
        """Take the claim on (sha256, pins) for `job_id`, or make it the holder's DUPLICATE.

        Returns the holder it duplicates, or None when `job_id` holds the claim. The insert
        is the lock (one winner on any database); a holder that `_hands_over` passes the
        claim on by a guarded update, so that another try of those bytes can run.
        """
        key = [input_claims.c.sha256 == sha256,
               input_claims.c.chain_revision == ids.chain_revision,
               input_claims.c.ocr_engine == ids.ocr_engine,
               input_claims.c.policy_revision == ids.policy_revision]
        while True:
            try:
                with self.engine.begin() as c:
                    c.execute(insert(input_claims).values(
                        sha256=sha256, job_id=job_id, **dataclasses.asdict(ids)))
                return None
            except IntegrityError:
                pass
            with self.engine.begin() as c:
                holder = c.execute(select(input_claims.c.job_id, jobs.c.status, jobs.c.error_class,
                                          jobs.c.reason).join(
                    jobs, jobs.c.job_id == input_claims.c.job_id).where(*key)).first()
                if holder is None:  # released between our insert and this read: try again
                    continue
                if _hands_over(holder, rerun):
                    if c.execute(update(input_claims).where(
                            *key, input_claims.c.job_id == holder.job_id).values(
                            job_id=job_id)).rowcount == 1:
                        return None
                    continue
                c.execute(update(jobs).where(
                    jobs.c.job_id == job_id, jobs.c.status == Status.QUEUED).values(
                    status=Status.DUPLICATE, duplicate_of=holder.job_id,
                    finished_at=self.clock()))
                return str(holder.job_id)

    def accepted(self, batch_id: str) -> None:
        """Record that the batch's source was fully listed and every file of it accepted."""
        with self.engine.begin() as c:
            c.execute(update(batches).where(batches.c.batch_id == batch_id,
                                            batches.c.accepted_at.is_(None))
                      .values(accepted_at=self.clock()))

    def take_batch(self, batch_id: str, flow_run_id: str | None) -> int:
        """A run takes the batch over: raise its epoch (and name the run), start the batch's
        lease; return the epoch this run may renew the lease and close the batch with. A run
        that took it earlier now renews and closes nothing."""
        values: dict[str, Any] = {"epoch": batches.c.epoch + 1,
                                  "lease_until": self.clock() + self.lease}
        if flow_run_id:
            values["flow_run_id"] = flow_run_id
        with self.engine.begin() as c:
            c.execute(update(batches).where(batches.c.batch_id == batch_id).values(**values))
            return int(c.execute(select(batches.c.epoch).where(
                batches.c.batch_id == batch_id)).scalar_one())

    def renew_batch(self, batch_id: str, epoch: int) -> bool:
        """The batch's lease starts again, for the run holding `epoch`; False once another
        run took the batch, or this one closed or released it."""
        with self.engine.begin() as c:
            return c.execute(update(batches).where(
                batches.c.batch_id == batch_id, batches.c.epoch == epoch,
                batches.c.lease_until.is_not(None)).values(
                lease_until=self.clock() + self.lease)).rowcount == 1

    def release_batch(self, batch_id: str, epoch: int) -> None:
        """The run holding `epoch` has ended: nobody holds the batch any more."""
        with self.engine.begin() as c:
            c.execute(update(batches).where(batches.c.batch_id == batch_id,
                                            batches.c.epoch == epoch).values(lease_until=None))

    def close_batch(self, batch_id: str, state: BatchState, epoch: int) -> bool:
        """Set the batch's state and end its lease, guarded by the epoch its run took; False
        for a stale run."""
        with self.engine.begin() as c:
            return c.execute(update(batches).where(
                batches.c.batch_id == batch_id, batches.c.epoch == epoch).values(
                state=state, lease_until=None)).rowcount == 1

    def fail_batch(self, batch_id: str, epoch: int, reason: Reason,
                   message: str) -> list[str] | None:
        """The batch's source cannot be accepted, for a reason another run would meet too:
        the batch ends FAILED with it, and the jobs it had accepted but not yet run end
        FAILED `batch_failed` (the run's failure, not their bytes': a later import of them
        parses them).
        Guarded by the epoch its run took; None for a stale run, else the jobs it ended."""
        with self.engine.begin() as c:
            if c.execute(update(batches).where(
                    batches.c.batch_id == batch_id, batches.c.epoch == epoch).values(
                    state=BatchState.FAILED, reason=reason, message=message[:2000],
                    lease_until=None)).rowcount != 1:
                return None
            return self._end_unstarted(c, batch_id, Reason.BATCH_FAILED, message)

    def abandon_batch(self, batch_id: str, note: str) -> list[str]:
        """An operator gives the batch up: it ends ABANDONED with the note, and each of its
        jobs still QUEUED or RETRYING ends FAILED `abandoned` (no attempt of theirs runs).

        Guarded, in one transaction: the batch is not completed nor abandoned, no run holds
        its lease, and no job of it is PROCESSING (the sweep reclaims a dead worker's first).
        Returns the jobs it ended; raises `ValueError` with why when a guard refuses.
        """
        now = self.clock()
        open_states = (BatchState.PROCESSING, BatchState.INCOMPLETE, BatchState.INVALID,
                       BatchState.FAILED)
        with self.engine.begin() as c:
            batch = c.execute(select(batches).where(
                batches.c.batch_id == batch_id)).mappings().first()
            if batch is None:
                raise ValueError(f"no batch {batch_id}")
            if batch["state"] not in open_states:
                raise ValueError(f"batch {batch_id} is {batch['state']}: nothing to abandon")
            held = c.execute(select(jobs.c.job_id).where(
                jobs.c.batch_id == batch_id, jobs.c.status == Status.PROCESSING)).scalars().all()
            if held:
                raise ValueError(f"batch {batch_id}: {', '.join(held)} still processing; "
                                 f"`stmtflow recover` reclaims a dead worker's jobs")
            taken = c.execute(update(batches).where(
                batches.c.batch_id == batch_id, batches.c.state.in_(open_states),
                or_(batches.c.lease_until.is_(None), batches.c.lease_until < now)).values(
                state=BatchState.ABANDONED, reason=Reason.ABANDONED, message=note[:2000],
                lease_until=None))
            if taken.rowcount != 1:
                raise ValueError(f"batch {batch_id} is held by a live run")
            return self._end_unstarted(c, batch_id, Reason.ABANDONED,
                                       f"batch abandoned: {note}")

    def _end_unstarted(self, c: Connection, batch_id: str, reason: Reason,
                       message: str) -> list[str]:
        """End FAILED `reason` every job of the batch waiting for an attempt."""
        ended = c.execute(update(jobs).where(
            jobs.c.batch_id == batch_id,
            jobs.c.status.in_((Status.QUEUED, Status.RETRYING))).values(
            status=Status.FAILED, error_class=ErrorClass.DETERMINISTIC, reason=reason,
            message=message[:2000], lease_owner=None, lease_until=None,
            finished_at=self.clock()).returning(jobs.c.job_id))
        return sorted(ended.scalars().all())

    # -- transitions ------------------------------------------------------------------
    def claim(self, job_id: str, owner: str, task_run_id: str | None = None) -> Claim | None:
        """QUEUED|RETRYING -> PROCESSING with a lease, attempts + 1; None if not won.

        The attempt row names the Prefect task run making it, when there is one.
        """
        t = self.clock()
        with self.engine.begin() as c:
            row = c.execute(_CLAIM, {"g_job_id": job_id, "g_expires_at": t, "v_lease_owner": owner,
                                     "v_lease_until": t + self.lease}).mappings().first()
            if row is None:
                return None
            job = Job.from_row(row)
            c.execute(_NEW_ATTEMPT, {"job_id": job_id, "number": job.attempts,
                                     "lease_owner": owner, "started_at": t,
                                     "task_run_id": task_run_id})
        return Claim(job_id, owner, job.attempts, job)

    def succeed(self, claim: Claim, *, output_uri: str, output_digest: str,
                outputs: dict[str, str], needs_review: bool, bank: str, account_last4: str,
                transactions: int, notify: Sequence[str] = (),
                stamps: Sequence[Stamp] = ()) -> Job | None:
        """PROCESSING -> SUCCEEDED with the verified output's record, under the claim;
        `stamps`: its objects as the write listed and read them back (`output_stamps`), so
        that the next reconciliation vouches for them by its listing."""
        return self._finish(claim, Status.SUCCEEDED, Outcome.SUCCEEDED, None, None, None, dict(
            output_uri=output_uri, output_digest=output_digest, outputs=json.dumps(outputs),
            needs_review=needs_review, bank=bank, account_last4=account_last4,
            transactions=transactions), notify, stamps)

    def fail(self, claim: Claim, error_class: ErrorClass, reason: Reason, message: str,
             notify: Sequence[str] = ()) -> Job | None:
        """PROCESSING -> FAILED, under the claim."""
        return self._finish(claim, Status.FAILED, Outcome.FAILED, error_class, reason, message,
                            {}, notify)

    def retry(self, claim: Claim, reason: Reason, message: str) -> Job | None:
        """PROCESSING -> RETRYING after a transient failure (the attempt is over, not the job)."""
        return self._finish(claim, Status.RETRYING, Outcome.RETRY, ErrorClass.TRANSIENT, reason,
                            message, {}, ())

    def _finish(self, claim: Claim, status: Status, outcome: Outcome,
                error_class: ErrorClass | None, reason: Reason | None, message: str | None,
                extra: dict[str, Any], notify: Sequence[str],
                stamps: Sequence[Stamp] = ()) -> Job | None:
        """The transition, the attempt's end, the notifications a terminal job now owes (on
        each channel of `notify`), its objects' `stamps` and the job as committed, in one
        transaction; None when the guarded update lost (nothing is written)."""
        t = self.clock()
        terminal = {"finished_at": t} if status.terminal else {}
        values = dict(status=status, error_class=error_class, reason=reason, message=message,
                      lease_owner=None, lease_until=None, **terminal, **extra)
        with self.engine.begin() as c:
            row = c.execute(_finish_statement(tuple(values)), {
                "g_job_id": claim.job_id, "g_lease_owner": claim.owner,
                "g_attempts": claim.attempt, **{f"v_{k}": v for k, v in values.items()},
            }).mappings().first()
            if row is None:
                return None
            self._end_attempt(c, claim.job_id, claim.attempt, t, outcome, error_class,
                              reason, message)
            if notify and status.terminal:  # a job turns terminal once: no row is there yet
                c.execute(_NOTIFICATION, [
                    {"job_id": claim.job_id, "channel": ch, "attempts": 0, "created_at": t}
                    for ch in notify])
            if rows := [s._asdict() for s in stamps if s.stamp is not None]:
                c.execute(stamps_upsert(c.dialect.name), rows)
            return Job.from_row(row)  # the job as this transaction commits it

    def expire(self, job_id: str | None = None) -> list[str]:
        """QUEUED past its expiry -> EXPIRED (never processed); returns the jobs expired."""
        t = self.clock()
        cond = [jobs.c.status == Status.QUEUED, jobs.c.expires_at <= t]
        if job_id is not None:
            cond.append(jobs.c.job_id == job_id)
        with self.engine.connect() as c:
            due = [r for (r,) in c.execute(select(jobs.c.job_id).where(*cond))]
        expired = []
        for candidate in due:
            with self.engine.begin() as c:
                won = c.execute(update(jobs).where(jobs.c.job_id == candidate, *cond).values(
                    status=Status.EXPIRED, error_class=ErrorClass.DETERMINISTIC,
                    reason=Reason.EXPIRED, message="not claimed before its queue-age limit",
                    finished_at=t)).rowcount
            if won:
                expired.append(candidate)
        return expired

    def renew(self, claim: Claim) -> bool:
        """PROCESSING stays PROCESSING with a fresh lease, under the claim: a live parse
        that outlasts one lease is never taken for a dead one. False: the lease was lost."""
        with self.engine.begin() as c:
            return c.execute(update(jobs).where(
                jobs.c.job_id == claim.job_id, jobs.c.status == Status.PROCESSING,
                jobs.c.lease_owner == claim.owner, jobs.c.attempts == claim.attempt,
            ).values(lease_until=self.clock() + self.lease)).rowcount == 1

    def reclaim(self) -> list[str]:
        """PROCESSING past its lease (a dead worker) -> RETRYING, or FAILED after the last try.

        The dead attempt counts: it ran, so it is in `attempts` and ends as `crashed`.
        """
        t = self.clock()
        with self.engine.begin() as c:
            stale = c.execute(select(jobs.c.job_id, jobs.c.lease_owner).where(
                jobs.c.status == Status.PROCESSING, jobs.c.lease_until < t)).all()
        return [row.job_id for row in stale
                if self._reclaim(row.job_id, row.lease_owner, jobs.c.lease_until < t,
                                 "the worker holding the lease stopped answering")]

    def reclaim_held(self, job_id: str, owner: str,
                     message: str = "the run holding the lease is no longer running") -> bool:
        """PROCESSING held by `owner`, whose run is known to have ended -> RETRYING, or FAILED
        after the last try, without waiting for the lease to run out; the attempt counts."""
        return self._reclaim(job_id, owner, jobs.c.status == Status.PROCESSING, message)

    def _reclaim(self, job_id: str, owner: str, guard: Any, message: str) -> bool:
        t = self.clock()
        with self.engine.begin() as c:
            number = c.execute(select(jobs.c.attempts).where(
                jobs.c.job_id == job_id)).scalar_one()
            last = number >= MAX_ATTEMPTS
            values: dict[str, Any] = dict(
                status=Status.FAILED if last else Status.RETRYING, lease_owner=None,
                lease_until=None, error_class=ErrorClass.TRANSIENT,
                reason=Reason.RETRIES_EXHAUSTED if last else Reason.LEASE_EXPIRED,
                message=message)
            if last:
                values["finished_at"] = t
            won = c.execute(update(jobs).where(
                jobs.c.job_id == job_id, jobs.c.status == Status.PROCESSING,
                jobs.c.lease_owner == owner, jobs.c.attempts == number, guard,
            ).values(**values)).rowcount == 1
            if won:
                self._end_attempt(c, job_id, number, t, Outcome.CRASHED,
                                  ErrorClass.TRANSIENT, Reason.LEASE_EXPIRED, message)
        return won

    @staticmethod
    def _end_attempt(c: Connection, job_id: str, number: int, t: datetime, outcome: Outcome,
                     error_class: ErrorClass | None, reason: Reason | None,
                     message: str | None) -> None:
        c.execute(_END_ATTEMPT, {"g_job_id": job_id, "g_number": number, "v_ended_at": t,
                                 "v_outcome": outcome, "v_error_class": error_class,
                                 "v_reason": reason, "v_message": message})

    # -- reading ----------------------------------------------------------------------
    def job(self, job_id: str) -> Job | None:
        with self.engine.connect() as c:
            row = c.execute(select(jobs).where(jobs.c.job_id == job_id)).mappings().first()
        return Job.from_row(row) if row else None

    def jobs(self, batch_id: str | None = None) -> list[Job]:
        return list(self.each_job(batch_id))

    def each_job(self, batch_id: str | None = None) -> Iterator[Job]:
        """The jobs of `jobs`, read a page at a time: a pass over a batch of 10,000 files
        holds one page of them, not every one (a list of 10,000 is about 15 MB)."""
        q = select(jobs).order_by(jobs.c.submitted_at, jobs.c.source_uri)
        if batch_id is not None:
            q = q.where(jobs.c.batch_id == batch_id)
        with self.engine.connect() as c:
            result = c.execution_options(yield_per=JOB_PAGE).execute(q)
            keys = list(result.keys())
            for page in result.partitions():
                yield from Job.from_rows(page, keys)

    def attempts(self, job_id: str) -> list[Attempt]:
        with self.engine.connect() as c:
            return [Attempt.from_row(r) for r in c.execute(select(attempts).where(
                attempts.c.job_id == job_id).order_by(attempts.c.number)).mappings()]

    def attempt_counts(self) -> dict[str, int]:
        """Attempt rows per job, in one query (what reconciliation compares with `attempts`)."""
        with self.engine.connect() as c:
            return dict(c.execute(select(attempts.c.job_id, func.count()).group_by(
                attempts.c.job_id)).all())

    def last_attempts(self, unless: Collection[Status] = ()) -> dict[str, Attempt]:
        """Each job's latest attempt, in one query; of jobs in a status of `unless`, none."""
        latest = select(attempts.c.job_id, func.max(attempts.c.number).label("number")).group_by(
            attempts.c.job_id).subquery()
        q = select(attempts).join(latest, and_(
            attempts.c.job_id == latest.c.job_id, attempts.c.number == latest.c.number))
        if unless:
            q = q.join(jobs, jobs.c.job_id == attempts.c.job_id).where(
                jobs.c.status.not_in([s.value for s in unless]))
        with self.engine.connect() as c:
            return {r["job_id"]: Attempt.from_row(r) for r in c.execute(q).mappings()}

    def held(self, batch_id: str) -> list[tuple[Job, Attempt]]:
        """The batch's PROCESSING jobs, each with the attempt that holds its lease."""
        q = select(attempts).join(jobs, and_(attempts.c.job_id == jobs.c.job_id,
                                             attempts.c.number == jobs.c.attempts)).where(
            jobs.c.batch_id == batch_id, jobs.c.status == Status.PROCESSING)
        with self.engine.connect() as c:
            running = {r["job_id"]: Attempt.from_row(r) for r in c.execute(q).mappings()}
        return [(j, running[j.job_id]) for j in self.jobs(batch_id) if j.job_id in running]

    def batch(self, batch_id: str) -> Batch | None:
        with self.engine.connect() as c:
            row = c.execute(select(batches).where(batches.c.batch_id == batch_id)).mappings()
            first = row.first()
        return Batch.from_row(first) if first else None

    def batches(self) -> list[Batch]:
        with self.engine.connect() as c:
            return [Batch.from_row(r) for r in c.execute(
                select(batches).order_by(batches.c.created_at)).mappings()]

    def unclosed_batches(self) -> list[Batch]:
        """Batches no run has closed (still PROCESSING), and batches with an unfinished job."""
        unfinished = select(jobs.c.batch_id).where(jobs.c.status.in_(UNFINISHED))
        with self.engine.connect() as c:
            return [Batch.from_row(r) for r in c.execute(select(batches).where(or_(
                batches.c.state == BatchState.PROCESSING,
                batches.c.batch_id.in_(unfinished))).order_by(batches.c.batch_id)).mappings()]

    def unfinished_jobs(self) -> list[Job]:
        """Every job not yet terminal."""
        with self.engine.connect() as c:
            result = c.execute(select(jobs).where(jobs.c.status.in_(UNFINISHED)))
            return Job.from_rows(result, list(result.keys()))

    def batch_of_run(self, flow_run_id: str) -> Batch | None:
        """The batch a flow run last took (`take_batch`), if any."""
        with self.engine.connect() as c:
            first = c.execute(select(batches).where(
                batches.c.flow_run_id == flow_run_id)).mappings().first()
        return Batch.from_row(first) if first else None

    def reruns_of(self, job_id: str) -> list[str]:
        with self.engine.connect() as c:
            return [r for (r,) in c.execute(select(jobs.c.job_id).where(
                jobs.c.rerun_of == job_id).order_by(jobs.c.submitted_at))]

    def rerun_batches(self, batch_id: str) -> list[str]:
        with self.engine.connect() as c:
            return [r for (r,) in c.execute(select(batches.c.batch_id).where(
                batches.c.rerun_of == batch_id).order_by(batches.c.created_at))]

    def outcome_of(self, job: Job) -> Job:
        """The record whose outcome `job` has: its holder for a DUPLICATE, else itself."""
        if job.status != Status.DUPLICATE or job.duplicate_of is None:
            return job
        return self._read_back(job.duplicate_of)

    def succeeded_inputs(self) -> set[str]:
        """Digests of every input that some job has imported successfully."""
        with self.engine.connect() as c:
            return {r for (r,) in c.execute(select(jobs.c.sha256).where(
                jobs.c.status == Status.SUCCEEDED))}

    def latest_batch(self) -> str | None:
        with self.engine.connect() as c:
            return c.execute(select(batches.c.batch_id).order_by(
                batches.c.created_at.desc()).limit(1)).scalar()

    def counts(self, batch_id: str) -> dict[Status, int]:
        with self.engine.connect() as c:
            rows = c.execute(select(jobs.c.status, func.count()).where(
                jobs.c.batch_id == batch_id).group_by(jobs.c.status)).all()
        return {Status(status): n for status, n in rows}
