"""`stmtflow serve`: every deployment with its schedule, on this machine, without a work pool.

The same specs as prefect.yaml (`specs.specs()`), served by one long-running process
through `prefect.serve`; runs go to the Prefect API in force (the embedded one by default).

A server that `stmtflow setup` prepared already has these deployments, on the work pool:
serving the same names would replace them (their pool, job variables and pull step gone, and
every later pool run crashing), so `serve` refuses to start there.
"""

from __future__ import annotations

from typing import Any

from prefect import get_client
from prefect import serve as prefect_serve
from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
from prefect.client.schemas.objects import ConcurrencyLimitConfig
from prefect.schedules import Cron
from prefect.utilities.asyncutils import run_coro_as_sync

from deployments.specs import IMPORT, RECONCILE, RECOVER, RERUN, REVIEW, specs
from flows.import_flow import import_batch
from flows.reconcile_flow import reconcile
from flows.recover import recover_batches
from flows.rerun_flow import rerun_failed
from flows.review_flow import review_statement

FLOWS = {IMPORT: import_batch, RECONCILE: reconcile, RECOVER: recover_batches,
         RERUN: rerun_failed, REVIEW: review_statement}


def runner_deployments() -> list[Any]:
    return [FLOWS[s["entrypoint"]].to_deployment(
        name=s["name"], description=s["description"], parameters=s["parameters"],
        tags=s["tags"], schedules=[Cron(x["cron"], timezone=x["timezone"])
                                   for x in s["schedules"]],
        concurrency_limit=ConcurrencyLimitConfig(
            limit=s["concurrency_limit"]["limit"],
            collision_strategy=s["concurrency_limit"]["collision_strategy"])
        if "concurrency_limit" in s else None)
            for s in specs()]


class PoolDeploymentsExist(RuntimeError):
    """The server runs these deployments on a work pool; serving them would replace them."""


def on_a_pool(names: list[str]) -> list[str]:
    """Those of the deployment `names` that the API in force runs on a work pool."""

    async def read() -> list[str]:
        async with get_client() as client:
            found = await client.read_deployments(deployment_filter=DeploymentFilter(
                name=DeploymentFilterName(any_=names)))
        return sorted(d.name for d in found if d.work_pool_name)

    return run_coro_as_sync(read())


def serve() -> None:
    deployments = runner_deployments()
    taken = on_a_pool([d.name for d in deployments])
    if taken:
        raise PoolDeploymentsExist(
            f"this Prefect server runs {', '.join(taken)} on a work pool (`stmtflow setup`); "
            "serving them would replace them: start a worker instead "
            "(`prefect worker start --pool stmtflow`), or serve against another server")
    prefect_serve(*deployments)
