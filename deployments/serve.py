"""`stmtflow serve`: every deployment with its schedule, on this machine, without a work pool.

The same specs as prefect.yaml (`settings.specs()`), served by one long-running process
through `prefect.serve`; runs go to the Prefect API in force (the embedded one by default).
"""

from __future__ import annotations

from typing import Any

from prefect import serve as prefect_serve
from prefect.schedules import Cron

from deployments.settings import IMPORT, RECONCILE, RERUN, REVIEW, specs
from flows.import_flow import import_batch
from flows.reconcile_flow import reconcile
from flows.rerun_flow import rerun_failed
from flows.review_flow import review_statement

FLOWS = {IMPORT: import_batch, RECONCILE: reconcile, RERUN: rerun_failed,
         REVIEW: review_statement}


def runner_deployments() -> list[Any]:
    return [FLOWS[s["entrypoint"]].to_deployment(
        name=s["name"], description=s["description"], parameters=s["parameters"],
        tags=s["tags"], schedules=[Cron(x["cron"], timezone=x["timezone"])
                                   for x in s["schedules"]])
            for s in specs()]


def serve() -> None:
    prefect_serve(*runner_deployments())
