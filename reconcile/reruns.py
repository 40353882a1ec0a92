"""Which failed work a rerun picks up: terminal records never change, reruns are new jobs.

By default only what another run may cure: a job that failed on a transient cause (it
exhausted its attempts, or its worker died on the last one) and a job that expired unclaimed.
`include_deterministic` adds failures that are properties of the file (after adding a
template, say). An input whose bytes already succeeded anywhere is never rerun, nor a file
refused at acceptance (nothing of it was stored: import its source again).
"""

from __future__ import annotations

from parsers.codes import ErrorClass, Status
from reconcile.ledger import Ledger
from reconcile.records import Job


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


def rerun_candidates(ledger: Ledger, batch_id: str,
                     include_deterministic: bool = False) -> list[Job]:
    """The newest job of every input of the batch family that a rerun should run again."""
    done = ledger.succeeded_inputs()
    family = [j for b in batch_family(ledger, batch_id) for j in ledger.jobs(b)]
    return [j for j in latest_per_input(family)
            if j.sha256 not in done and rerunnable(j, include_deterministic)]
