"""Job accounting: every accepted job is counted once, in exactly one class, or listed.

`account` is a pure function of the records (ledger rows, attempt counts, investigations,
output checks, notifications, the book, which Prefect task runs completed), so that it can
be tested on any ledger a property test can invent. A job without a terminal record is
listed by id as unresolved, never folded into a failure or success total. The state is
`accounted` only when every accepted job is terminal or has an owned open investigation;
`investigate` otherwise; `invalid` whenever the records contradict each other.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from parsers.vocabulary import TERMINAL, Reason, Status
from reconcile.ledger import MAX_ATTEMPTS
from reconcile.records import Investigation, Job

ACCOUNTED, INVESTIGATE, INVALID = "accounted", "investigate", "invalid"
KNOWN = frozenset(Status)


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
    #: jobs whose latest Prefect task run completed
    completed_tasks: set[str] = field(default_factory=set)


def account(r: Records) -> dict[str, Any]:
    ids = [j.job_id for j in r.jobs]
    by_status: dict[str, set[str]] = {s: set() for s in KNOWN}
    for j in r.jobs:
        by_status.setdefault(j.status, set()).add(j.job_id)
    accepted = set(ids)
    succeeded = by_status[Status.SUCCEEDED]
    failed, expired = by_status[Status.FAILED], by_status[Status.EXPIRED]
    terminal = succeeded | failed | expired
    contradictions = _contradictions(r, ids, succeeded, failed, expired)
    unresolved = sorted(accepted - terminal)
    latest = {j.job_id: j for j in r.jobs}
    listed = [_unresolved(latest[j], r.investigations.get(j)) for j in unresolved]
    if contradictions:
        state = INVALID
    elif all(u["investigation"] and u["investigation"]["owner"] for u in listed):
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
            "retried": len({j.job_id for j in r.jobs if j.attempts > 1}),
            "unresolved": len(unresolved),
            "needs_review": len({j.job_id for j in r.jobs
                                 if j.status == Status.SUCCEEDED and j.needs_review}),
            "reruns": len({j.job_id for j in r.jobs if j.rerun_of}),
        },
        "lineage": [{"job_id": j.job_id, "rerun_of": j.rerun_of, "status": j.status}
                    for j in r.jobs if j.rerun_of],
        "unresolved": listed,
        "contradictions": contradictions,
        "inputs": {"distinct_digests": len({j.sha256 for j in r.jobs})},
        "pinned_identities": _identities(r.jobs),
        "outputs": r.outputs,
        "notifications": r.notifications,
        "consumer": r.consumer,
        "time_to_completion": _durations(r.jobs),
    }


def _contradictions(r: Records, ids: list[str], succeeded: set[str], failed: set[str],
                    expired: set[str]) -> list[str]:
    found = [f"{j} is recorded more than once" for j, n in Counter(ids).items() if n > 1]
    found += [f"{j} is in two terminal classes" for j in
              (succeeded & failed) | (succeeded & expired) | (failed & expired)]
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
        if status in (Status.SUCCEEDED, Status.FAILED) and not 1 <= attempts <= MAX_ATTEMPTS:
            found.append(f"{jid} is {status} after {attempts} attempts")
        if jid in r.attempt_rows and r.attempt_rows[jid] != attempts:
            found.append(f"{jid} counts {attempts} attempts but {r.attempt_rows[jid]} ran")
        if jid in r.completed_tasks and status != Status.SUCCEEDED:
            found.append(f"{jid}: its task run completed but the ledger says {status}")
    found += [f"{d} is in the book but did not succeed" for d in sorted(r.imported - succeeded)]
    return found


def _unresolved(job: Job, inv: Investigation | None) -> dict[str, Any]:
    return {
        "job_id": job.job_id,
        "status": job.status,
        "owner": inv.owner if inv else None,
        "worker": job.lease_owner,
        "investigation": {"id": inv.id, "owner": inv.owner,
                          "opened_at": str(inv.opened_at)} if inv else None,
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
