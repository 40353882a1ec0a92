"""`settled`: a batch's task runs handed out a few at a time, and their final states as they come.

Each future tells it is done through its callback. Prefect's callback on a task run queued for
task workers can miss its event (it looks for the event once, then starts listening), so a
wait that hears nothing for `QUIET_SECONDS` reads the unfinished runs' states from the API:
a missed event costs that wait, never the batch.
"""

from __future__ import annotations

import itertools
import logging
import queue
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    TaskRunFilter,
    TaskRunFilterId,
    TaskRunFilterState,
    TaskRunFilterStateType,
)
from prefect.client.schemas.objects import TERMINAL_STATES
from prefect.futures import PrefectFuture
from prefect.states import State

log = logging.getLogger("stmtflow")

#: seconds without a finished task run before the unfinished ones are read from the API
QUIET_SECONDS = 10.0
#: task runs read in one request: the API's default page
PAGE = 200


def settled(submit: Callable[[Any], PrefectFuture[Any]], items: list[Any], in_flight: int,
            quiet: float = QUIET_SECONDS,
            still: Callable[[int], None] | None = None) -> Iterator[State]:
    """The final state of the task run `submit` makes of each of `items`, as each finishes,
    with at most `in_flight` submitted and unfinished at once; each future is let go once
    read. So a batch of 10,000 files holds neither 10,000 queued task runs at its start nor
    10,000 finished futures and states at its end (`prefect.futures.as_completed` keeps
    every future it is given). `still` hears how many are unfinished after each quiet wait
    in which none ended."""
    finished: queue.SimpleQueue[PrefectFuture[Any]] = queue.SimpleQueue()
    running: dict[uuid.UUID, PrefectFuture[Any]] = {}

    def start(item: Any) -> None:
        future = submit(item)
        running[future.task_run_id] = future
        future.add_done_callback(finished.put)

    waiting = iter(items)
    for item in itertools.islice(waiting, in_flight):
        start(item)
    while running:
        try:
            f = finished.get(timeout=quiet)
        except queue.Empty:
            try:
                found = ended(list(running))
                if not found and still is not None:
                    still(len(running))
            except Exception as exc:  # the API away for a while: the callbacks may yet come
                log.warning("unfinished task runs not read (%s); waiting on",
                            type(exc).__name__)
                continue
            for task_run_id in found:
                finished.put(running[task_run_id])
            continue
        if running.pop(f.task_run_id, None) is None:  # read already, found by both ways
            continue
        for item in itertools.islice(waiting, 1):
            start(item)
        f.wait()  # sets the future's final state; before that `state` reads a lagging API
        yield f.state


def ended(task_run_ids: list[uuid.UUID]) -> list[uuid.UUID]:
    """Those of `task_run_ids` whose task runs the API has in a final state."""
    final = TaskRunFilterState(type=TaskRunFilterStateType(any_=list(TERMINAL_STATES)))
    found: list[uuid.UUID] = []
    with get_client(sync_client=True) as client:
        for at in range(0, len(task_run_ids), PAGE):
            page = TaskRunFilter(id=TaskRunFilterId(any_=task_run_ids[at:at + PAGE]),
                                 state=final)
            found += [run.id for run in client.read_task_runs(task_run_filter=page,
                                                              limit=PAGE)]
    return found


def untaken(task_key: str, log: logging.Logger | logging.LoggerAdapter[Any]
            ) -> Callable[[int], None]:
    """For `settled` on task workers: a warning, each quiet wait, while no task worker takes
    `task_key`. A worker takes only the task key of its own code (Prefect hashes the
    function's code into it): none running, or all running another stmtflow, and the batch
    would wait without a word."""
    def warn(unfinished: int) -> None:
        with get_client(sync_client=True) as client:
            workers = client.request("POST", "/task_workers/filter", json={
                "task_worker_filter": {"task_keys": [task_key]}}).json()
        if not workers:
            log.warning("%d file(s) wait for a task worker, and none takes %s: start "
                        "`stmtflow task-worker` on this Prefect API, of this same stmtflow",
                        unfinished, task_key)
    return warn
