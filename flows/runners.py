"""The task runner: a bounded thread pool by default, a Dask cluster to scale out.

`STMTFLOW_TASK_RUNNER=dask` runs per-file tasks through prefect-dask's `DaskTaskRunner`, on
the cluster at `STMTFLOW_DASK_ADDRESS` or, without one, on a local cluster of
`STMTFLOW_WORKERS` single-threaded worker processes.

A flow's task runner is given in its decorator, when the module is imported; the choice is
configuration, read when the flow runs. So the decorators get a `SettingsTaskRunner`, and
Prefect's `duplicate()` at the start of every flow run (what the run actually uses) builds
the configured runner from the settings of that run.
"""

from __future__ import annotations

from typing import Any

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from flows.config import Settings


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
    return ThreadPoolTaskRunner(max_workers=settings.workers)


class SettingsTaskRunner(ThreadPoolTaskRunner[Any]):
    """Stands in a flow's decorator for the runner the settings choose when the flow runs."""

    def duplicate(self) -> Any:
        return task_runner(Settings.from_env())
