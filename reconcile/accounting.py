"""Job accounting: every accepted job is counted once, in exactly one class, or listed.

`account` is a pure function of the records (ledger rows, attempt counts, investigations,
output checks, notifications, the book, which Prefect task runs completed), so that it can
be tested on any ledger a property test can invent. A job without a terminal record is
listed by id as unresolved, never folded into a failure or success total. The state is
`accounted` only when every accepted job is terminal or has an owned open investigation;
`investigate` otherwise; `invalid` whenever the records contradict each other.

Reviews are counted by state (open, accepted, corrected, rejected) with their age: how long
the open ones have waited and how long decided ones waited for their decision. Open reviews
older than the alert limit are listed as overdue. A statement whose transactions are in the
book while its review is open or rejected is a contradiction.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from parsers.codes import TERMINAL, BatchState, Reason, ReviewState, Status
from reconcile.ledger import MAX_ATTEMPTS
from reconcile.records import Batch, Investigation, Job, Review, utc_now

ACCOUNTED, INVESTIGATE, INVALID = "accounted", "investigate", "invalid"
KNOWN = frozenset(Status)
#: why a job may end FAILED without an attempt: its batch ended before it ran
ENDED_WITH_BATCH = frozenset({Reason.ABANDONED, Reason.BATCH_FAILED})


@dataclass
class Records:
    jobs: list[Job]
    #: job id -> number of attempt rows in the ledger
    attempt_rows: dict[str, int] = field(default_factory=dict)
    #: job id -> its open investigation
    investigations: dict[str, Investigation] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    notifications: dict[str, Any] = field(default_factory=dict)
    consumer: dict[str, Any] = field(default_factory=dict)
    #: decision ids the book imported
    imported: set[str] = field(default_factory=set)
    #: jobs whose latest Prefect task run completed (only those not succeeded need be known)
    completed_tasks: set[str] = field(default_factory=set)
    reviews: list[Review] = field(default_factory=list)
    #: an open review older than this is overdue (and raises an alert)
    review_alert: timedelta = timedelta(hours=48)
    #: when the records were read: the reference for ages
    at: datetime = field(default_factory=utc_now)
    batches: list[Batch] = field(default_factory=list)


def account(r: Records) -> dict[str, Any]:
    ids = [j.job_id for j in r.jobs]
    by_status: dict[str, set[str]] = {s: set() for s in KNOWN}
    for j in r.jobs:
        by_status.setdefault(j.status, set()).add(j.job_id)
    accepted = set(ids)
    succeeded = by_status[Status.SUCCEEDED]
    failed, expired = by_status[Status.FAILED], by_status[Status.EXPIRED]
    duplicates = by_status[Status.DUPLICATE]
    terminal = succeeded | failed | expired | duplicates
    contradictions = _contradictions(r, ids, succeeded, failed, expired)
    unresolved = sorted(accepted - terminal)
    latest = {j.job_id: j for j in r.jobs}
    listed = [_unresolved(latest[j], r.investigations.get(j)) for j in unresolved]
    batches = _batches(r.batches, r.at)
    if contradictions:
        state = INVALID
    elif all(u["investigation"] and u["investigation"]["owner"] for u in listed) \
            and not batches["unclosed"]:
        state = ACCOUNTED
    else:
        state = INVESTIGATE
    exhausted = {j.job_id for j in r.jobs
                 if j.status == Status.FAILED and j.reason == Reason.RETRIES_EXHAUSTED}
    return {
        "state": state,
        "counts": {
            "accepted": len(accepted),
            "terminal": len(terminal),
            "succeeded": len(succeeded),
            "failed": len(failed),
            "failed_deterministic": len(failed - exhausted),
            "failed_exhausted": len(failed & exhausted),
            "expired": len(expired),
            "duplicates": len(duplicates),
            "refused_at_acceptance": len({j.job_id for j in r.jobs
                                          if j.status == Status.FAILED and j.input_uri is None}),
            "retried": len({j.job_id for j in r.jobs if j.attempts > 1}),
            "unresolved": len(unresolved),
            "needs_review": len({j.job_id for j in r.jobs
                                 if j.status == Status.SUCCEEDED and j.needs_review}),
            "reruns": len({j.job_id for j in r.jobs if j.rerun_of}),
            "abandoned": len({j.job_id for j in r.jobs
                              if j.status == Status.FAILED and j.reason == Reason.ABANDONED}),
        },
        "batches": batches,
        "lineage": [{"job_id": j.job_id, "rerun_of": j.rerun_of, "status": j.status}
                    for j in r.jobs if j.rerun_of],
        "unresolved": listed,
        "contradictions": contradictions,
        "inputs": {"distinct_digests": len({j.sha256 for j in r.jobs if j.sha256})},
        "duplicates": [{"job_id": j.job_id, "duplicate_of": j.duplicate_of} for j in r.jobs
                       if j.status == Status.DUPLICATE],
        "pinned_identities": _identities(r.jobs),
        "outputs": r.outputs,
        "notifications": r.notifications,
        "consumer": r.consumer,
        "reviews": _reviews(r.reviews, r.at, r.review_alert),
        "time_to_completion": _durations(r.jobs),
    }


def _contradictions(r: Records, ids: list[str], succeeded: set[str], failed: set[str],
                    expired: set[str]) -> list[str]:
    found = [f"{j} is recorded more than once" for j, n in Counter(ids).items() if n > 1]
    found += [f"{j} is in two terminal classes" for j in
              (succeeded & failed) | (succeeded & expired) | (failed & expired)]
    known = {j.job_id: j for j in r.jobs}
    for j in r.jobs:
        jid, status, attempts = j.job_id, j.status, j.attempts
        if status not in KNOWN:
            found.append(f"{jid} has unknown status {status!r}")
        if status == Status.SUCCEEDED and not (j.output_uri and j.output_digest):
            found.append(f"{jid} succeeded without an output record")
        if status in TERMINAL and j.finished_at is None:
            found.append(f"{jid} is {status} without a finish time")
        if status == Status.EXPIRED and attempts:
            found.append(f"{jid} expired after {attempts} attempt(s): it was processed")
        refused = status == Status.FAILED and attempts == 0 and (
            j.input_uri is None or j.reason in ENDED_WITH_BATCH)
        if status in (Status.SUCCEEDED, Status.FAILED) and not refused \
                and not 1 <= attempts <= MAX_ATTEMPTS:
            found.append(f"{jid} is {status} after {attempts} attempts")
        if status == Status.DUPLICATE:
            found += _duplicate_contradictions(j, known)
        if jid in r.attempt_rows and r.attempt_rows[jid] != attempts:
            found.append(f"{jid} counts {attempts} attempts but {r.attempt_rows[jid]} ran")
        if jid in r.completed_tasks and status not in (Status.SUCCEEDED, Status.DUPLICATE):
            found.append(f"{jid}: its task run completed but the ledger says {status}")
    found += [f"{d} is in the book but did not succeed" for d in sorted(r.imported - succeeded)]
    found += [f"{d} has transactions in the book but is not verified"
              for d in r.consumer.get("unverified_in_book", [])]
    return found


def _duplicate_contradictions(j: Job, known: dict[str, Job]) -> list[str]:
    """A duplicate never ran, and names a job of the same bytes under the same pins."""
    found = []
    if j.attempts:
        found.append(f"{j.job_id} is a duplicate but ran {j.attempts} attempt(s)")
    holder = known.get(j.duplicate_of or "")
    if holder is None:
        found.append(f"{j.job_id} is a duplicate of no known job")
    elif (holder.sha256, holder.identities) != (j.sha256, j.identities):
        found.append(f"{j.job_id} is a duplicate of {holder.job_id}, whose input or pins differ")
    return found


def _batches(batches: list[Batch], at: datetime) -> dict[str, Any]:
    """Batches by state; those that ended without their jobs (FAILED with the reason,
    ABANDONED with the operator's note); and those no run holds or closed whose source was
    never accepted (`unclosed`: the run died or failed before acceptance finished, and
    nothing resumed it), which keep the accounting from `accounted`."""
    ended = [{"batch_id": b.batch_id, "state": b.state, "reason": b.reason,
              "message": b.message} for b in batches
             if b.state in (BatchState.FAILED, BatchState.ABANDONED)]
    unclosed = [b.batch_id for b in batches
                if b.state == BatchState.PROCESSING and b.accepted_at is None
                and (b.lease_until is None or b.lease_until < at)]
    return {"counts": dict(Counter(str(b.state) for b in batches)),
            "ended_early": ended, "unclosed": unclosed}


def _unresolved(job: Job, inv: Investigation | None) -> dict[str, Any]:
    return {
        "job_id": job.job_id,
        "status": job.status,
        "owner": inv.owner if inv else None,
        "worker": job.lease_owner,
        "investigation": {"id": inv.id, "owner": inv.owner,
                          "opened_at": str(inv.opened_at)} if inv else None,
    }


def _reviews(reviews: list[Review], at: datetime, alert: timedelta) -> dict[str, Any]:
    counts = Counter(r.state for r in reviews)
    waiting = sorted((r for r in reviews if r.state == ReviewState.OPEN),
                     key=lambda r: r.created_at)
    decided = sorted(r.age(at).total_seconds() for r in reviews if r.decided_at is not None)
    return {
        "counts": {s.value: counts.get(s, 0) for s in ReviewState},
        "open": [{"review_id": r.id, "job_id": r.decision_id,
                  "age_seconds": round(r.age(at).total_seconds(), 1),
                  "flow_run_id": r.flow_run_id} for r in waiting],
        "oldest_open_seconds": round(waiting[0].age(at).total_seconds(), 1) if waiting else None,
        "alert_seconds": alert.total_seconds(),
        "overdue": [r.id for r in waiting if r.age(at) > alert],
        "time_to_decision": {"p50": _percentile(decided, 50) if decided else None,
                             "max": round(decided[-1], 3) if decided else None,
                             "reviews": len(decided)},
    }


def _identities(jobs: list[Job]) -> list[dict[str, Any]]:
    counts = Counter(j.identities for j in jobs)
    return [{"chain_revision": i.chain_revision, "ocr_engine": i.ocr_engine,
             "policy_revision": i.policy_revision, "jobs": n}
            for i, n in sorted(counts.items(), key=lambda kv: -kv[1])]


def _durations(jobs: list[Job]) -> dict[str, float | None]:
    seconds = sorted((j.finished_at - j.submitted_at).total_seconds() for j in jobs
                     if j.finished_at is not None)
    if not seconds:
        return {"p50": None, "p95": None, "max": None, "jobs": 0}
    return {"p50": _percentile(seconds, 50), "p95": _percentile(seconds, 95),
            "max": seconds[-1], "jobs": len(seconds)}


def _percentile(sorted_values: list[float], p: int) -> float:
    """Nearest-rank percentile: a value that actually occurred."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return round(sorted_values[rank - 1], 3)
