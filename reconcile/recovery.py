"""Tidying after dead workers: the one sweep, and which batches a dead worker abandoned.

The sweep reclaims dead leases, then expires overdue queued jobs (both guarded ledger
transitions; the two touch disjoint states, so the order only fixes what is reported first).
The reconciliation and `stmtflow recover` both run this sweep, and both notify the jobs it
ended (a reclaim on the last attempt, an expiry).
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.codes import Outcome, Status
from reconcile.ledger import Ledger
from reconcile.records import Attempt, Job


@dataclass(frozen=True)
class Swept:
    reclaimed: list[str]
    expired: list[str]

    @property
    def touched(self) -> list[str]:
        """Every job the sweep moved; those now terminal are owed a notification."""
        return self.reclaimed + self.expired


def sweep(ledger: Ledger) -> Swept:
    reclaimed = ledger.reclaim()
    return Swept(reclaimed=reclaimed, expired=ledger.expire())


def abandoned_batches(jobs: list[Job], last_attempts: dict[str, Attempt]) -> list[str]:
    """Batches whose worker died: an unfinished job whose last attempt crashed, none running.

    A job still PROCESSING holds a live lease (dead ones are reclaimed by the sweep first),
    so its batch's run is alive and is left alone; a batch that never got as far as a claim
    is resumed only when named (`stmtflow recover --batch ID`).
    """
    unfinished: dict[str, list[Job]] = {}
    for j in jobs:
        if not j.status.terminal:
            unfinished.setdefault(j.batch_id, []).append(j)
    return sorted(
        b for b, js in unfinished.items()
        if all(j.status != Status.PROCESSING for j in js)
        and any(j.job_id in last_attempts and last_attempts[j.job_id].outcome == Outcome.CRASHED
                for j in js))
