"""Recovery after a worker died: reclaim its jobs, mark its flow run Crashed, resume batches,
send the notifications it owed.

Reclaiming is the ledger's guarded `reclaim` (the dead attempt counts), run by the one sweep
(`reconcile.recovery`) that the reconciliation runs too; a live worker whose lease was taken
over commits nothing. Flow runs the dead worker left `Running` are set to `Crashed` here as
well as by the zombie automation `stmtflow setup` creates, because the automation needs
heartbeats, which only runs from deployments send.
"""

from __future__ import annotations

from typing import Any

from prefect import get_client
from prefect.client.schemas.objects import StateType
from prefect.states import Crashed
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.import_flow import resume_batch
from flows.notify import deliver_pending, notify_ended
from reconcile.recovery import Swept, abandoned_batches, sweep


def sweep_and_notify(settings: Settings) -> Swept:
    """Reclaim dead leases, expire overdue jobs, and notify every job that this ended."""
    swept = sweep(settings.ledger())
    for job_id in swept.touched:  # a reclaim on the last attempt ends the job
        notify_ended(settings, job_id)
    return swept


def recover(settings: Settings, batch_ids: list[str] | None = None) -> dict[str, Any]:
    """Sweep, resume `batch_ids` or, by default, every abandoned batch, then send the
    notifications a dead worker owed."""
    swept = sweep_and_notify(settings)
    ledger = settings.ledger()
    if batch_ids is None:
        batch_ids = abandoned_batches(ledger.jobs(), ledger.last_attempts())
    crashed = [b for b in batch_ids if _crash_if_running(settings, b)]
    resumed = {}
    for batch_id in batch_ids:
        state = resume_batch(batch_id, return_state=True)
        resumed[batch_id] = state.name
    return {"reclaimed": swept.reclaimed, "expired": swept.expired,
            "crashed_flow_runs": crashed, "resumed": resumed,
            "notified": deliver_pending(settings)}


def _crash_if_running(settings: Settings, batch_id: str) -> bool:
    """Mark the batch's flow run Crashed if it is still Running: its worker is gone."""
    batch = settings.ledger().batch(batch_id)
    if batch is None or batch.flow_run_id is None:
        return False
    flow_run_id = batch.flow_run_id

    async def crash() -> bool:
        async with get_client() as client:
            run = await client.read_flow_run(flow_run_id)
            if run.state is None or run.state.type != StateType.RUNNING:
                return False
            await client.set_flow_run_state(
                run.id, Crashed(message="its worker stopped; stmtflow recover reclaimed the "
                                        "jobs and resumes the batch in a new run"), force=True)
            return True

    return bool(run_coro_as_sync(crash()))
