"""Recovery after a worker died: reclaim its jobs, mark its flow run Crashed, resume batches.

Reclaiming is the ledger's guarded `reclaim` (the dead attempt counts); a live worker whose
lease was taken over commits nothing. Flow runs the dead worker left `Running` are set to
`Crashed` here as well as by the zombie automation `stmtflow setup` creates, because the
automation needs heartbeats, which only runs from deployments send.
"""

from __future__ import annotations

from typing import Any

from prefect import get_client
from prefect.client.schemas.objects import StateType
from prefect.states import Crashed
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.import_flow import resume_batch
from flows.notify import notify_ended
from reconcile.ledger import PROCESSING, TERMINAL, Ledger


def recover(settings: Settings, batch_ids: list[str] | None = None) -> dict[str, Any]:
    """Reclaim dead leases, then resume `batch_ids` or, by default, every abandoned batch."""
    ledger = settings.ledger()
    reclaimed = ledger.reclaim()
    expired = ledger.expire()
    for job_id in reclaimed + expired:  # reclaiming a last attempt ends the job
        notify_ended(settings, job_id)
    batches = batch_ids if batch_ids is not None else abandoned_batches(ledger)
    crashed = [b for b in batches if _crash_if_running(settings, b)]
    resumed = {}
    for batch_id in batches:
        state = resume_batch(batch_id, return_state=True)
        resumed[batch_id] = state.name
    return {"reclaimed": reclaimed, "expired": expired, "crashed_flow_runs": crashed,
            "resumed": resumed}


def abandoned_batches(ledger: Ledger) -> list[str]:
    """Batches whose worker died: an unfinished job whose last attempt crashed, none running.

    A job still PROCESSING holds a live lease (dead ones were just reclaimed), so its batch's
    run is alive and is left alone; a batch that never got as far as a claim is resumed only
    when named (`stmtflow recover --batch ID`).
    """
    by_batch: dict[str, list[dict[str, Any]]] = {}
    for j in ledger.jobs():
        if j["status"] not in TERMINAL:
            by_batch.setdefault(j["batch_id"], []).append(j)
    return sorted(
        b for b, jobs in by_batch.items()
        if all(j["status"] != PROCESSING for j in jobs)
        and any((ledger.attempts(j["job_id"]) or [{}])[-1].get("outcome") == "crashed"
                for j in jobs))


def _crash_if_running(settings: Settings, batch_id: str) -> bool:
    """Mark the batch's flow run Crashed if it is still Running: its worker is gone."""
    batch = settings.ledger().batch(batch_id)
    if not batch or not batch["flow_run_id"]:
        return False

    async def crash() -> bool:
        async with get_client() as client:
            run = await client.read_flow_run(batch["flow_run_id"])
            if run.state is None or run.state.type != StateType.RUNNING:
                return False
            await client.set_flow_run_state(
                run.id, Crashed(message="its worker stopped; stmtflow recover reclaimed the "
                                        "jobs and resumes the batch in a new run"), force=True)
            return True

    return bool(run_coro_as_sync(crash()))
