"""Reclaim a batch's jobs from runs that are gone, when a run of that batch starts.

A Retry from the UI, a resume or a rerun starts while the jobs its dead predecessor held are
still `PROCESSING` under a lease that has not run out: waiting for the lease would let this
run's tasks give up on them ("held elsewhere"). So the run asks Prefect about each lease
holder first: the attempt row names its task run, the task run names its flow run, and a
holder whose flow run is not `Running` (or is this very run, started again: it has claimed
nothing yet) is dead. Its jobs are reclaimed through the ledger's guarded `reclaim_held`, the
dead attempt counting as `crashed`, and its task run, left `Running` by the dead process, is
set `Crashed` so that the UI agrees. A holder in a live run is left alone; live parses renew
their lease (`flows.lease`), so they are never mistaken for dead ones.

Prefect learns of a task run from the events its process sends; a process killed right after
a claim may not have sent them, and such a holder's task run is unknown to the server. It is
taken for the batch's previous run's when that run is dead (or is this one, started again)
and the attempt began before that run ended: a live run's claims come after, or are known.
"""

from __future__ import annotations

import logging
from datetime import datetime
from uuid import UUID

from prefect import get_client
from prefect.client.schemas.objects import StateType
from prefect.exceptions import ObjectNotFound
from prefect.states import Crashed
from prefect.utilities.asyncutils import run_coro_as_sync

from reconcile.ledger import Ledger

log = logging.getLogger("stmtflow")

#: a flow run in one of these states may still have a process behind it
ALIVE = frozenset({StateType.RUNNING, StateType.CANCELLING})


def reclaim_from_dead_runs(ledger: Ledger, batch_id: str, this_run: str | None,
                           previous_run: str | None = None) -> list[str]:
    """Reclaim `batch_id`'s jobs held by runs no longer running; return the jobs reclaimed.

    `previous_run` is the run that held the batch before this one took it.
    """
    held = ledger.held(batch_id)
    if not held:
        return []
    dead_tasks, unknown = run_coro_as_sync(_dead_task_runs(
        {a.task_run_id for _, a in held if a.task_run_id}, this_run))
    ended = (run_coro_as_sync(_ended_at(previous_run, this_run))
             if unknown and previous_run else None)
    dead_tasks |= {a.task_run_id for _, a in held if a.task_run_id in unknown
                   and ended is not None and a.started_at <= ended}
    reclaimed = [j.job_id for j, a in held
                 if a.task_run_id in dead_tasks and ledger.reclaim_held(j.job_id, a.lease_owner)]
    if reclaimed:
        log.warning("batch %s: reclaimed %d job(s) from a run that is no longer running: %s",
                    batch_id, len(reclaimed), ", ".join(reclaimed))
    return reclaimed


async def _ended_at(run_id: str, this_run: str | None) -> datetime | None:
    """When the run `run_id` stopped: its last state's time when it no longer runs, the time
    this run started again when it is this run; None while it runs."""
    async with get_client() as client:
        try:
            run = await client.read_flow_run(UUID(run_id))
        except (ObjectNotFound, ValueError):
            return None
    if run.state is None or (run_id != this_run and run.state.type in ALIVE):
        return None
    return run.state.timestamp


async def _dead_task_runs(task_run_ids: set[str], this_run: str | None
                          ) -> tuple[set[str], set[str]]:
    """The task runs among `task_run_ids` whose flow run is gone (or is `this_run` again),
    and those the server does not know."""
    dead, unknown = set(), set()
    async with get_client() as client:
        states: dict[UUID, StateType | None] = {}
        for task_run_id in task_run_ids:
            try:
                task_run = await client.read_task_run(UUID(task_run_id))
            except (ObjectNotFound, ValueError):
                unknown.add(task_run_id)
                continue
            run_id = task_run.flow_run_id
            if run_id is None:
                continue
            if run_id not in states:
                flow_run = await client.read_flow_run(run_id)
                states[run_id] = flow_run.state.type if flow_run.state else None
            if str(run_id) == this_run or states[run_id] not in ALIVE:
                dead.add(task_run_id)
                if task_run.state is not None and not task_run.state.is_final():
                    await client.set_task_run_state(task_run.id, Crashed(
                        message="its flow run stopped; a later run reclaimed the job"),
                        force=True)
    return dead, unknown
