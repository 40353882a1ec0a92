"""Recovery after a worker died: reclaim its jobs, mark its flow run Crashed, resume batches,
send the notifications it owed.

Reclaiming is the ledger's guarded `reclaim` (the dead attempt counts), run by the one sweep
(`reconcile.recovery`) that the reconciliation runs too; a live worker whose lease was taken
over commits nothing. Flow runs the dead worker left `Running` are set to `Crashed` here as
well as by the zombie automation `stmtflow setup` creates, because the automation needs
heartbeats, which only runs from deployments send.

A batch is abandoned when no run closed it and its run is dead (`abandoned`): whether that
run died listing its source, accepting its files, processing them or deriving the batch's
state, its batch's lease ran out (or Prefect saw it end) and no job of it is held.

`recover_batches` is the same as a flow, deployed as `recover`: on a schedule it resumes
every abandoned batch, and the automation `stmtflow setup` creates runs it for each batch run
that crashed (`flow_run_id`), named, tagged and linked like the run it continues.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from prefect import get_client, get_run_logger
from prefect.client.schemas.objects import StateType
from prefect.exceptions import ObjectNotFound
from prefect.runtime import flow_run
from prefect.states import Completed, Crashed, Failed, State
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.import_flow import WARNINGS, resume_batch
from flows.lineage import banks, mark_run
from flows.logs import to_run_logs
from flows.notify import deliver_pending, notify_ended
from flows.plain_flow import flow
from reconcile.ledger import Ledger
from reconcile.recovery import Swept, abandoned_batches, leased, sweep

log = logging.getLogger("stmtflow")


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
    if batch_ids is None:
        batch_ids = abandoned(settings.ledger())
    crashed = [b for b in batch_ids if _crash_if_running(settings, b)]
    resumed, unfinished = {}, {}
    for batch_id in batch_ids:
        state = resume_batch(batch_id, return_state=True)
        resumed[batch_id] = state.name
        if not state.is_completed():
            unfinished[batch_id] = state.message
            log.warning("batch %s: %s", batch_id, state.message)
    return {"reclaimed": swept.reclaimed, "expired": swept.expired,
            "crashed_flow_runs": crashed, "resumed": resumed, "unfinished": unfinished,
            "notified": deliver_pending(settings)}


def abandoned(ledger: Ledger) -> list[str]:
    """The batches no run closed whose run is dead: no lease of theirs is still renewed, or
    the run renewing it has ended as far as Prefect knows (the zombie automation marked it
    Crashed, say) before its lease ran out."""
    unclosed = ledger.unclosed_batches()
    now = ledger.clock()
    leased_runs = {b.flow_run_id for b in unclosed if b.flow_run_id and leased(b, now)}
    return abandoned_batches(unclosed, ledger.unfinished_jobs(), now,
                             run_coro_as_sync(_ended(leased_runs)))


async def _ended(flow_run_ids: set[str]) -> set[str]:
    """The flow runs among `flow_run_ids` in a final state (a run Prefect does not know is
    left to its lease)."""
    ended: set[str] = set()
    if not flow_run_ids:
        return ended
    async with get_client() as client:
        for run_id in flow_run_ids:
            try:
                run = await client.read_flow_run(UUID(run_id))
            except (ObjectNotFound, ValueError):
                continue
            if run.state is not None and run.state.is_final():
                ended.add(run_id)
    return ended


def _crash_if_running(settings: Settings, batch_id: str) -> bool:
    """Mark the batch's flow run Crashed if it is still Running: its worker is gone."""
    batch = settings.ledger().batch(batch_id)
    if batch is None or batch.flow_run_id is None:
        return False
    flow_run_id = batch.flow_run_id

    async def crash() -> bool:
        async with get_client() as client:
            try:
                run = await client.read_flow_run(UUID(flow_run_id))
            except (ObjectNotFound, ValueError):  # a run of another server, or long gone
                return False
            if run.state is None or run.state.type != StateType.RUNNING:
                return False
            await client.set_flow_run_state(
                run.id, Crashed(message="its worker stopped; stmtflow recover reclaimed the "
                                        "jobs and resumes the batch in a new run"), force=True)
            return True

    return bool(run_coro_as_sync(crash()))


#: the flows whose runs are batch runs: a crash of one is recovered by the `recover` deployment
BATCH_FLOWS = ("import-batch", "resume-batch", "rerun-failed")
RUN_PREFIX = "prefect.flow-run."


def recovery_run_name() -> str:
    """`recover-<the crashed run's name>`, or `recover-<date>` for a scheduled sweep."""
    crashed = flow_run.parameters.get("flow_run_id")
    if not crashed:
        return f"recover-{datetime.now(UTC):%Y-%m-%d}"
    return f"recover-{run_name(crashed)}"


def run_name(flow_run_id: str) -> str:
    """The name of the flow run `flow_run_id` (`prefect.flow-run.<id>` or the bare id)."""
    try:
        with get_client(sync_client=True) as client:
            return client.read_flow_run(UUID(flow_run_id.removeprefix(RUN_PREFIX))).name
    except (ValueError, ObjectNotFound):
        return "unknown-run"


@flow(name="recover", flow_run_name=recovery_run_name, log_prints=True)
def recover_batches(flow_run_id: str | None = None) -> State:
    """Reclaim the jobs of dead workers and finish the batches they left.

    Args:
        flow_run_id: the batch run that crashed, whose batch to finish (the automation on a
            Crashed batch run fills it in; `prefect.flow-run.<id>` or the bare id). Empty:
            every abandoned batch.
    """
    to_run_logs()
    settings = Settings.from_env()
    logger = get_run_logger()
    batch_ids = None
    if flow_run_id:
        crashed = flow_run_id.removeprefix(RUN_PREFIX)
        state = _state_of(crashed)
        if state != StateType.CRASHED:  # retried meanwhile (the UI's Retry): its own to finish
            return Completed(message=f"flow run {crashed} is {state and state.value}: left "
                                     "to it")
        batch = settings.ledger().batch_of_run(crashed)
        if batch is None:
            return Completed(message=f"flow run {crashed} took no batch: nothing to recover")
        batch_ids = [batch.batch_id]
        _continue(settings, crashed, batch.batch_id)
    result = recover(settings, batch_ids)
    if batch_ids:  # the banks its files turned out to be
        mark_run(str(flow_run.id), {f"bank:{b}" for b in banks(settings.ledger(), batch_ids[0])},
                 None, "", settings.ui_url)
    logger.info("reclaimed %d job(s), expired %d; resumed %s", len(result["reclaimed"]),
                len(result["expired"]), result["resumed"] or "no batch")
    unfinished = {b: s for b, s in result["resumed"].items() if s not in ("Completed", WARNINGS)}
    if unfinished:
        return Failed(message=f"batches not finished: {unfinished}", data=result)
    return Completed(message=f"resumed {result['resumed'] or 'no batch'}", data=result)


def _state_of(run_id: str) -> StateType | None:
    with get_client(sync_client=True) as client:
        state = client.read_flow_run(UUID(run_id)).state
    return state.type if state else None


def _continue(settings: Settings, crashed: str, batch_id: str) -> None:
    """Tag this run with the batch's banks and `recover`, and link to the crashed run."""
    mark_run(str(flow_run.id), {f"bank:{b}" for b in banks(settings.ledger(), batch_id)},
             crashed, "recover", settings.ui_url)
