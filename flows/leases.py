"""Leases: kept alive while their work runs, a batch taken by its run, and reclaimed from
runs that are gone (the ledger's plain sweep after dead workers is `reconcile/recovery.py`,
the recovery flow `flows/recover.py`).

Keep a lease alive while the work it covers runs: a claim's while its attempt runs, a
batch's while its run holds it.

A lease only says "someone is on it" for as long as it lasts: a parse that outlasts it (a
long scan under OCR) would look like a dead worker to the sweep and to a starting run, and a
long listing or acceptance like a dead batch run to `stmtflow recover`. So while the work
runs, a daemon thread renews the lease every third of its length, through the ledger's
guarded `renew` (`renew_batch`); it stops when the work ends or when a renewal finds the
lease taken over (the stale work then commits nothing, as before).

Claims come and go with every attempt, so one thread of the process renews all of them
(`_Renewer`): an attempt registers its claim and drops it, and starts and joins no thread of
its own. A renewal that crosses the attempt's end matches no row (its guard is the claim).

A batch run takes its batch before doing anything with it, and holds it until it ends.

Taking raises the batch's epoch (which fences its state against stale runs), names this
flow run in the ledger and starts the batch's lease, renewed while the run lives
(`batch_kept`). Taking comes first, before the source is listed, so that a run
killed while listing, accepting or closing leaves a batch whose lease runs out, which
`stmtflow recover` then finishes; while the run lives, nothing takes the batch from it.

Reclaim a batch's jobs from runs that are gone, when a run of that batch starts.

A Retry from the UI, a resume or a rerun starts while the jobs its dead predecessor held are
still `PROCESSING` under a lease that has not run out: waiting for the lease would let this
run's tasks give up on them ("held elsewhere"). So the run asks Prefect about each lease
holder first: the attempt row names its task run, the task run names its flow run, and a
holder whose flow run is not `Running` (or is this very run, started again: it has claimed
nothing yet) is dead. Its jobs are reclaimed through the ledger's guarded `reclaim_held`, the
dead attempt counting as `crashed`, and its task run, left `Running` by the dead process, is
set `Crashed` so that the UI agrees. A holder in a live run is left alone; live parses renew
their lease (`kept`), so they are never mistaken for dead ones.

Prefect learns of a task run from the events its process sends; a process killed right after
a claim may not have sent them, and such a holder's task run is unknown to the server. It is
taken for the batch's previous run's when that run is dead (or is this one, started again)
and the attempt began before that run ended: a live run's claims come after, or are known.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from prefect import get_client
from prefect.client.schemas.objects import StateType
from prefect.exceptions import ObjectNotFound
from prefect.runtime import flow_run
from prefect.states import Crashed
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.lineage import continued_run
from reconcile.ledger import Claim, Ledger

log = logging.getLogger("stmtflow")


@contextmanager
def kept(ledger: Ledger, claim: Claim) -> Iterator[None]:
    """Renew `claim`'s lease in the background for as long as the block runs."""
    token = _RENEWER.hold(ledger, claim)
    try:
        yield
    finally:
        _RENEWER.drop(token)


@dataclass
class _Held:
    ledger: Ledger
    claim: Claim
    every: float
    due: float


class _Renewer:
    """The process's one thread renewing every claim held in it, each every third of its
    lease; started with the first claim."""

    def __init__(self) -> None:
        self._held: dict[object, _Held] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def hold(self, ledger: Ledger, claim: Claim) -> object:
        token = object()
        every = _every(ledger)
        with self._changed:
            self._held[token] = _Held(ledger, claim, every, time.monotonic() + every)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="lease-claims",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()
        return token

    def drop(self, token: object) -> None:
        with self._changed:
            self._held.pop(token, None)

    def _loop(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [(t, h) for t, h in self._held.items() if h.due <= now]
                if not due:
                    soonest = min((h.due for h in self._held.values()), default=None)
                    self._changed.wait(None if soonest is None else soonest - now)
                    continue
                for _, h in due:
                    h.due = now + h.every
            for token, h in due:
                try:
                    renewed = h.ledger.renew(h.claim)
                except Exception:  # a database hiccup: the next renewal may get through
                    continue
                if not renewed:  # taken over: the stale attempt commits nothing
                    self.drop(token)


_RENEWER = _Renewer()


def _every(ledger: Ledger) -> float:
    """How often a lease of `ledger` is renewed: three times a lease."""
    return max(ledger.lease.total_seconds() / 3, 0.05)


@contextmanager
def batch_kept(ledger: Ledger, batch_id: str, epoch: int) -> Iterator[None]:
    """Renew the lease of `batch_id`, taken at `epoch`, for as long as the block runs; then
    release it, so that a run that ended without closing the batch is seen dead at once."""
    with _renewed(ledger, lambda: ledger.renew_batch(batch_id, epoch), f"lease-{batch_id}"):
        try:
            yield
        finally:
            with suppress(Exception):  # a database hiccup: the lease runs out by itself
                ledger.release_batch(batch_id, epoch)


@contextmanager
def _renewed(ledger: Ledger, renew: Callable[[], bool], name: str) -> Iterator[None]:
    done = threading.Event()
    every = _every(ledger)

    def loop() -> None:
        while not done.wait(every):
            try:
                if not renew():
                    return
            except Exception:  # a database hiccup: the next renewal may get through
                continue

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


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
