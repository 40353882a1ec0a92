"""`reconcile`: account for every accepted job, and tidy what can be tidied safely.

It runs the one sweep (reclaim dead leases, expire overdue queued jobs, notify what ended),
re-sends undelivered notifications, reads which Prefect task runs completed, has
`reconcile.report` build the accounting, and publishes it: markdown and table artifacts,
JSON under the results root, and an event per alert.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from prefect import flow, get_client, get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
from prefect.client.schemas.objects import StateType, TaskRun
from prefect.client.schemas.sorting import TaskRunSort
from prefect.events import emit_event
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.import_flow import job_id_of
from flows.notify import deliver_pending
from flows.recover import sweep_and_notify
from reconcile import report as reports

PAGE = 200


def reconcile_run_name() -> str:
    return f"reconcile-{datetime.now(UTC):%Y-%m-%d-%H%M}"


@flow(name="reconcile", flow_run_name=reconcile_run_name, log_prints=True)
def reconcile() -> dict[str, Any]:
    settings = Settings.from_env()
    report = build_report(settings, completed_tasks(settings))
    publish(settings, report)
    get_run_logger().info("accounting: %s, %s", report["state"], report["counts"])
    return report


def build_report(settings: Settings, completed: set[str]) -> dict[str, Any]:
    swept = sweep_and_notify(settings)
    resent = deliver_pending(settings)
    return reports.build(settings.ledger(), settings.storage(), operator=settings.operator,
                         queue_limit=settings.queue_limit, capacity=settings.capacity,
                         completed_tasks=completed, swept=swept, notifications_resent=resent)


def completed_tasks(settings: Settings) -> set[str]:
    """Jobs whose latest task run completed, over every batch with a flow run."""
    run_ids = settings.ledger().flow_run_ids()
    if not run_ids:
        return set()

    async def read() -> list[TaskRun]:
        runs: list[TaskRun] = []
        async with get_client() as client:
            while True:  # the API answers in pages
                page = await client.read_task_runs(flow_run_filter=FlowRunFilter(
                    id=FlowRunFilterId(any_=run_ids)), sort=TaskRunSort.ID_DESC, offset=len(runs),
                    limit=PAGE)
                runs += page
                if len(page) < PAGE:
                    return runs

    latest: dict[str, TaskRun] = {}
    for t in run_coro_as_sync(read()) or []:
        job_id = job_id_of(t.tags)
        if job_id and t.state and (job_id not in latest or t.created > latest[job_id].created):
            latest[job_id] = t
    return {j for j, t in latest.items()
            if t.state is not None and t.state.type == StateType.COMPLETED}


def publish(settings: Settings, report: dict[str, Any]) -> None:
    """Artifacts, JSON under the results root, and an event per alert."""
    body = json.dumps(report, indent=1, default=str).encode()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    storage = settings.storage()
    report["report_uri"] = storage.put(f"reports/reconcile-{stamp}.json", body)
    storage.put("reports/latest.json", body)
    create_markdown_artifact(markdown=reports.to_markdown(report), key="job-accounting",
                             description="Job accounting of the last reconciliation")
    create_table_artifact(key="job-accounting-unresolved", table=report["unresolved"] or [
        {"job_id": "", "status": "", "owner": "", "investigation": "none unresolved"}],
                          description="Jobs without a terminal record")
    for name, payload in reports.alerts(report):
        emit_event(event=f"stmtflow.alert.{name}",
                   resource={"prefect.resource.id": f"stmtflow.alert.{name}"},
                   payload=payload)
