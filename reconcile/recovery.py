"""Tidying after dead workers: the one sweep, and which batches a dead run abandoned.

The sweep reclaims dead leases, then expires overdue queued jobs (both guarded ledger
transitions; the two touch disjoint states, so the order only fixes what is reported first).
The reconciliation and `stmtflow recover` both run this sweep, and both notify the jobs it
ended (a reclaim on the last attempt, an expiry).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from parsers.codes import Status
from reconcile.ledger import Ledger
from reconcile.records import Batch, Job


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


def leased(batch: Batch, now: datetime) -> bool:
    """Whether the run that took `batch` renewed its lease recently enough to be alive."""
    return batch.lease_until is not None and batch.lease_until >= now


def abandoned_batches(unclosed: list[Batch], unfinished: list[Job], now: datetime,
                      ended_runs: Collection[str] = ()) -> list[str]:
    """Of the batches no run closed (`Ledger.unclosed_batches`), those whose run is dead.

    A run shows it is alive by its batch's lease, renewed from the moment it takes the batch
    (before its source is listed) until it closes it, and by the leases of the jobs it holds
    (a job still PROCESSING holds a live one: the sweep reclaims dead ones first). A batch
    with neither, or whose lease names a run known to have ended (`ended_runs`: Prefect says
    so), is abandoned, whatever it was doing: listing, accepting, processing or closing.
    """
    held = {j.batch_id for j in unfinished if j.status == Status.PROCESSING}
    return sorted(b.batch_id for b in unclosed if b.batch_id not in held and not (
        leased(b, now) and b.flow_run_id not in ended_runs))
