"""The task runner: a bounded thread pool by default, a Dask cluster to scale out.

`STMTFLOW_TASK_RUNNER=dask` runs per-file tasks through prefect-dask's `DaskTaskRunner`, on
the cluster at `STMTFLOW_DASK_ADDRESS` or, without one, on a local cluster of
`STMTFLOW_WORKERS` single-threaded worker processes. `STMTFLOW_TASK_RUNNER=task-workers`
hands each file to Prefect's task workers (`stmtflow task-worker`, `flows.task_workers`):
the batch's run only waits for them, and parses nothing itself.

A flow's task runner is given in its decorator, when the module is imported; the choice is
configuration, read when the flow runs. So the decorators get a `SettingsTaskRunner`, and
Prefect's `duplicate()` at the start of every flow run (what the run actually uses) builds
the configured runner from the settings of that run. The thread pool runs the parses in
this process's parse workers: it starts them as the run starts (`flows.parser.start_workers`),
in the background, so that they are ready by the time acceptance hands out the first file.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from concurrent.futures import Future
from functools import partial
from typing import Any

from prefect.futures import PrefectConcurrentFuture
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from flows.config import Settings
from flows.parser import start_workers

log = logging.getLogger("stmtflow")


def task_runner(settings: Settings) -> TaskRunner[Any]:
    if settings.task_runner == "dask":
        import dask
        from prefect_dask import DaskTaskRunner

        # Local Dask workers start their own parse worker processes: they must not be daemons.
        dask.config.set({"distributed.worker.daemon": False})
        if settings.dask_address:
            return DaskTaskRunner(address=settings.dask_address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": settings.workers,
                                              "threads_per_worker": 1, "processes": True})
    if settings.task_runner == "task-workers":  # the files' tasks run in the task workers
        return ThreadPool(max_workers=settings.workers)
    threading.Thread(target=_start_workers, args=(settings,), name="parse-workers",
                     daemon=True).start()
    return ThreadPool(max_workers=settings.workers)


def _start_workers(settings: Settings) -> None:
    try:
        start_workers(settings)
    except Exception as exc:  # the first parse meets it again, and reports it there
        log.debug("parse workers not started ahead: %s", exc)


class ThreadPool(ThreadPoolTaskRunner[Any]):
    """Prefect's thread pool, letting go of a task run's cancel event once the run ended.

    Prefect 3.9 keeps every task run's event (what `cancel_all` sets) until the runner is
    gone: a `threading.Event` a file for the whole batch (1,210 alive after an import of
    1,200 files, 310 after one of 300). An ended run has nothing left to cancel."""

    def __init__(self, max_workers: int | None = None) -> None:
        super().__init__(max_workers=max_workers)
        self._ended_lock = threading.Lock()

    def submit(self, *args: Any, **kwargs: Any) -> PrefectConcurrentFuture[Any]:
        future = super().submit(*args, **kwargs)
        future.wrapped_future.add_done_callback(partial(self._ended, future.task_run_id))
        return future

    def _ended(self, task_run_id: uuid.UUID, _: Future[Any]) -> None:
        with self._ended_lock:
            self._cancel_events.pop(task_run_id, None)

    def cancel_all(self) -> None:
        """Prefect's, on the events of the runs still going, taken out of the map first: a
        run ending meanwhile changes no map being gone through."""
        with self._ended_lock:
            going, self._cancel_events = self._cancel_events, {}
        for event in going.values():
            event.set()
        super().cancel_all()


class SettingsTaskRunner(ThreadPoolTaskRunner[Any]):
    """Stands in a flow's decorator for the runner the settings choose when the flow runs."""

    def duplicate(self) -> Any:
        """The runner of the settings in the environment: Prefect calls this before the flow
        run's context exists, and nothing it reads comes from a Secret block, so it does not
        read them (a round trip to the API the run's own settings make again)."""
        return task_runner(Settings.from_env(os.environ))
