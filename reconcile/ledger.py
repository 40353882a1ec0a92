"""The job ledger: every job status change is one guarded UPDATE here, checked by row count.

No other module writes a job's status. Each transition is named after what it does and
returns whether it won: the database is the lock, so two claimants can race and exactly one
wins, and a worker whose lease was taken over commits nothing (its guarded update matches
zero rows). Reads return records (`reconcile/records.py`), never rows.

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

SUCCEEDED, FAILED and EXPIRED are terminal: no guard admits them, so they never change.
Time comes from the injected `clock`, so leases and expiry are tested without sleeping.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from parsers.codes import BatchState, ErrorClass, Outcome, Reason, Status
from reconcile.db import attempts, batches, jobs
from reconcile.records import Attempt, Batch, Clock, Identities, Job, utc_now

MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Claim:
    job_id: str
    owner: str
    attempt: int


class Ledger:
    def __init__(self, engine: Engine, lease: timedelta = timedelta(minutes=10),
                 clock: Clock = utc_now) -> None:
        self.engine = engine
        self.lease = lease
        self.clock = clock

    # -- acceptance -------------------------------------------------------------------
    def open_batch(self, batch_id: str, source: str, bank: str | None,
                   rerun_of: str | None = None) -> None:
        with self.engine.begin() as c:
            exists = c.execute(select(batches.c.batch_id).where(batches.c.batch_id == batch_id))
            if exists.first() is None:
                c.execute(insert(batches).values(batch_id=batch_id, source=source, bank=bank,
                                                 created_at=self.clock(),
                                                 state=BatchState.PROCESSING, rerun_of=rerun_of))

    def accept(self, batch_id: str, *, source_uri: str, input_uri: str, size: int, sha256: str,
               bank_hint: str | None, ids: Identities, queue_limit: timedelta,
               rerun_of: str | None = None) -> Job:
        """Write the job envelope; the same bytes in the same batch return the same job."""
        submitted = self.clock()
        job_id = "j-" + uuid.uuid4().hex[:16]
        try:
            with self.engine.begin() as c:
                c.execute(insert(jobs).values(
                    job_id=job_id, batch_id=batch_id, source_uri=source_uri,
                    input_uri=input_uri, size=size, sha256=sha256, bank_hint=bank_hint,
                    submitted_at=submitted, expires_at=submitted + queue_limit,
                    chain_revision=ids.chain_revision, ocr_engine=ids.ocr_engine,
                    policy_revision=ids.policy_revision, status=Status.QUEUED, attempts=0,
                    needs_review=False, rerun_of=rerun_of))
        except IntegrityError:  # one_job_per_input_per_batch: these bytes are already here
            with self.engine.connect() as c:
                job_id = c.execute(select(jobs.c.job_id).where(
                    jobs.c.batch_id == batch_id, jobs.c.sha256 == sha256)).scalar_one()
        job = self.job(job_id)
        if job is None:
            raise LookupError(f"{job_id} vanished right after acceptance")
        return job

    def set_flow_run(self, batch_id: str, flow_run_id: str) -> None:
        with self.engine.begin() as c:
            c.execute(update(batches).where(batches.c.batch_id == batch_id)
                      .values(flow_run_id=flow_run_id))

    def close_batch(self, batch_id: str, state: BatchState) -> None:
        with self.engine.begin() as c:
            c.execute(update(batches).where(batches.c.batch_id == batch_id).values(state=state))

    # -- transitions ------------------------------------------------------------------
    def claim(self, job_id: str, owner: str, task_run_id: str | None = None) -> Claim | None:
        """QUEUED|RETRYING -> PROCESSING with a lease, attempts + 1; None if not won.

        The attempt row names the Prefect task run making it, when there is one.
        """
        t = self.clock()
        with self.engine.begin() as c:
            won = c.execute(
                update(jobs)
                .where(jobs.c.job_id == job_id,
                       or_(jobs.c.status == Status.RETRYING,
                           and_(jobs.c.status == Status.QUEUED, jobs.c.expires_at > t)))
                .values(status=Status.PROCESSING, attempts=jobs.c.attempts + 1,
                        lease_owner=owner, lease_until=t + self.lease)
            ).rowcount == 1
            if not won:
                return None
            number = c.execute(select(jobs.c.attempts).where(jobs.c.job_id == job_id)).scalar_one()
            c.execute(insert(attempts).values(job_id=job_id, number=number, lease_owner=owner,
                                              started_at=t, task_run_id=task_run_id))
        return Claim(job_id, owner, number)

    def succeed(self, claim: Claim, *, output_uri: str, output_digest: str,
                outputs: dict[str, str], needs_review: bool, bank: str, account_last4: str,
                transactions: int) -> bool:
        """PROCESSING -> SUCCEEDED with the verified output's record, under the claim."""
        return self._finish(claim, Status.SUCCEEDED, Outcome.SUCCEEDED, None, None, None, dict(
            output_uri=output_uri, output_digest=output_digest, outputs=json.dumps(outputs),
            needs_review=needs_review, bank=bank, account_last4=account_last4,
            transactions=transactions))

    def fail(self, claim: Claim, error_class: ErrorClass, reason: Reason, message: str) -> bool:
        """PROCESSING -> FAILED, under the claim."""
        return self._finish(claim, Status.FAILED, Outcome.FAILED, error_class, reason, message,
                            {})

    def retry(self, claim: Claim, reason: Reason, message: str) -> bool:
        """PROCESSING -> RETRYING after a transient failure (the attempt is over, not the job)."""
        return self._finish(claim, Status.RETRYING, Outcome.RETRY, ErrorClass.TRANSIENT, reason,
                            message, {})

    def _finish(self, claim: Claim, status: Status, outcome: Outcome,
                error_class: ErrorClass | None, reason: Reason | None, message: str | None,
                extra: dict[str, Any]) -> bool:
        t = self.clock()
        terminal = {"finished_at": t} if status.terminal else {}
        with self.engine.begin() as c:
            won = c.execute(
                update(jobs)
                .where(jobs.c.job_id == claim.job_id, jobs.c.status == Status.PROCESSING,
                       jobs.c.lease_owner == claim.owner, jobs.c.attempts == claim.attempt)
                .values(status=status, error_class=error_class, reason=reason,
                        message=message, lease_owner=None, lease_until=None,
                        **terminal, **extra)
            ).rowcount == 1
            if won:
                self._end_attempt(c, claim.job_id, claim.attempt, t, outcome, error_class,
                                  reason, message)
        return won

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

    def reclaim_held(self, job_id: str, owner: str) -> bool:
        """PROCESSING held by `owner`, whose run is known to have ended -> RETRYING, or FAILED
        after the last try, without waiting for the lease to run out; the attempt counts."""
        return self._reclaim(job_id, owner, jobs.c.status == Status.PROCESSING,
                             "the run holding the lease is no longer running")

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
        c.execute(update(attempts).where(attempts.c.job_id == job_id, attempts.c.number == number)
                  .values(ended_at=t, outcome=outcome, error_class=error_class, reason=reason,
                          message=message))

    # -- reading ----------------------------------------------------------------------
    def job(self, job_id: str) -> Job | None:
        with self.engine.connect() as c:
            row = c.execute(select(jobs).where(jobs.c.job_id == job_id)).mappings().first()
        return Job.from_row(row) if row else None

    def jobs(self, batch_id: str | None = None) -> list[Job]:
        q = select(jobs).order_by(jobs.c.submitted_at, jobs.c.source_uri)
        if batch_id is not None:
            q = q.where(jobs.c.batch_id == batch_id)
        with self.engine.connect() as c:
            return [Job.from_row(r) for r in c.execute(q).mappings()]

    def attempts(self, job_id: str) -> list[Attempt]:
        with self.engine.connect() as c:
            return [Attempt.from_row(r) for r in c.execute(select(attempts).where(
                attempts.c.job_id == job_id).order_by(attempts.c.number)).mappings()]

    def attempt_counts(self) -> dict[str, int]:
        """Attempt rows per job, in one query (what reconciliation compares with `attempts`)."""
        with self.engine.connect() as c:
            return dict(c.execute(select(attempts.c.job_id, func.count()).group_by(
                attempts.c.job_id)).all())

    def last_attempts(self) -> dict[str, Attempt]:
        """Each job's latest attempt, in one query."""
        latest = select(attempts.c.job_id, func.max(attempts.c.number).label("number")).group_by(
            attempts.c.job_id).subquery()
        with self.engine.connect() as c:
            rows = c.execute(select(attempts).join(latest, and_(
                attempts.c.job_id == latest.c.job_id, attempts.c.number == latest.c.number)))
            return {r["job_id"]: Attempt.from_row(r) for r in rows.mappings()}

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

    def reruns_of(self, job_id: str) -> list[str]:
        with self.engine.connect() as c:
            return [r for (r,) in c.execute(select(jobs.c.job_id).where(
                jobs.c.rerun_of == job_id).order_by(jobs.c.submitted_at))]

    def rerun_batches(self, batch_id: str) -> list[str]:
        with self.engine.connect() as c:
            return [r for (r,) in c.execute(select(batches.c.batch_id).where(
                batches.c.rerun_of == batch_id).order_by(batches.c.created_at))]

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
