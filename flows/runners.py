"""The task runner: a bounded thread pool by default, a Dask cluster to scale out.

`STMTFLOW_TASK_RUNNER=dask` runs per-file tasks through prefect-dask's `DaskTaskRunner`, on
the cluster at `STMTFLOW_DASK_ADDRESS` or, without one, on a local cluster of
`STMTFLOW_WORKERS` single-threaded worker processes.
"""

from __future__ import annotations

import os

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from flows.config import Settings


def task_runner() -> TaskRunner:
    workers = Settings.from_env().workers
    if os.environ.get("STMTFLOW_TASK_RUNNER", "threads") == "dask":
        import dask
        from prefect_dask import DaskTaskRunner

        # Local Dask workers start their own parse worker processes: they must not be daemons.
        dask.config.set({"distributed.worker.daemon": False})

        address = os.environ.get("STMTFLOW_DASK_ADDRESS")
        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "threads_per_worker": 1,
                                              "processes": True})
    return ThreadPoolTaskRunner(max_workers=workers)
