"""A batch run takes its batch before doing anything with it, and holds it until it ends.

Taking raises the batch's epoch (which fences its state against stale runs), names this
flow run in the ledger and starts the batch's lease, renewed while the run lives
(`flows.lease.batch_kept`). Taking comes first, before the source is listed, so that a run
killed while listing, accepting or closing leaves a batch whose lease runs out, which
`stmtflow recover` then finishes; while the run lives, nothing takes the batch from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from prefect.runtime import flow_run

from flows.config import Settings
from flows.lease import batch_kept
from flows.lineage import continued_run


@dataclass(frozen=True)
class Taken:
    """What this run learnt when it took the batch."""

    #: the epoch it closes the batch with
    epoch: int
    #: this flow run, when there is one
    this_run: str | None
    #: the run that held the batch before this one
    previous_run: str | None
    #: the run this one continues (the batch's earlier run, or its original batch's)
    continues: str | None


@contextmanager
def taken(settings: Settings, batch_id: str) -> Iterator[Taken]:
    """Take `batch_id` (which must exist) for this run; hold its lease while the block runs."""
    ledger = settings.ledger()
    this_run = str(flow_run.id) if flow_run.id else None
    batch = ledger.batch(batch_id)
    previous_run = batch.flow_run_id if batch else None
    continues = continued_run(ledger, batch_id, this_run) if this_run else None
    epoch = ledger.take_batch(batch_id, this_run)
    with batch_kept(ledger, batch_id, epoch):
        yield Taken(epoch, this_run, previous_run, continues)
