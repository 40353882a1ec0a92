"""Which work a rerun picks up: terminal records never change, reruns are new jobs.

By default only what another run may cure: a job that failed on a transient cause (it
exhausted its attempts, or its worker died on the last one) and a job that expired unclaimed.
`include_deterministic` adds failures that are properties of the file (after adding a
template, say). An input whose bytes already succeeded anywhere is never rerun as a failure,
nor a file refused at acceptance (nothing of it was stored: import its source again).

A succeeded statement is read again only when asked (`reread`, with the identities it is
to be read under: today's, after a template change) and only when those differ from the
ones it was read with: the same bytes under the same pins give the same output.
"""

from __future__ import annotations

from collections.abc import Collection

from parsers.codes import ErrorClass, Status
from reconcile.ledger import Ledger
from reconcile.records import Identities, Job


def rerunnable(job: Job, include_deterministic: bool = False) -> bool:
    if job.input_uri is None:
        return False
    if job.status == Status.EXPIRED:
        return True
    return job.status == Status.FAILED and (
        include_deterministic or job.error_class == ErrorClass.TRANSIENT)


def batch_family(ledger: Ledger, batch_id: str) -> list[str]:
    """A batch and its reruns (and theirs), oldest first."""
    family, frontier = [], [batch_id]
    while frontier:
        current = frontier.pop()
        family.append(current)
        frontier += ledger.rerun_batches(current)
    return family


def latest_per_input(jobs: list[Job]) -> list[Job]:
    """The newest job per input among `jobs`."""
    latest: dict[str, Job] = {}
    for j in jobs:
        if j.sha256 not in latest or j.submitted_at > latest[j.sha256].submitted_at:
            latest[j.sha256] = j
    return list(latest.values())


def rerun_candidates(ledger: Ledger, batch_id: str, include_deterministic: bool = False,
                     reread: Identities | None = None,
                     job_ids: Collection[str] = ()) -> list[Job]:
    """The newest job of every input of the batch family that a rerun should run again:
    failed ones as the rule says, succeeded ones too when `reread` names new identities;
    only those of `job_ids` when it names any (each as its own status allows)."""
    done = ledger.succeeded_inputs()
    family = [j for b in batch_family(ledger, batch_id) for j in ledger.jobs(b)]
    if job_ids:
        unknown = set(job_ids) - {j.job_id for j in family}
        if unknown:
            raise ValueError(f"not jobs of batch {batch_id}: {', '.join(sorted(unknown))}")
        family = [j for j in family if j.job_id in job_ids]
    return [j for j in latest_per_input(family)
            if (j.sha256 not in done and rerunnable(j, include_deterministic))
            or rereadable(j, reread)]


def rereadable(job: Job, reread: Identities | None) -> bool:
    """A succeeded statement that identities other than its own would read again."""
    return reread is not None and job.status == Status.SUCCEEDED and job.identities != reread
