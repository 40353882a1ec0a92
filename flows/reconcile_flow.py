"""`reconcile`: account for every accepted job, and tidy what can be tidied safely.

It runs the one sweep (reclaim dead leases, expire overdue queued jobs, notify what ended),
re-sends undelivered notifications, reads whether the task run of each job's latest attempt
completed, has
`reconcile.report` build the accounting, and publishes it: markdown and table artifacts,
JSON under the results root, and an event per alert. Statements the book holds for review
get a review flow run each where the `review` deployment exists; reviews waiting longer
than `STMTFLOW_REVIEW_ALERT_HOURS` raise an alert.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from prefect import get_client, get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterId
from prefect.client.schemas.objects import StateType, TaskRun
from prefect.client.schemas.sorting import TaskRunSort
from prefect.events import emit_event
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.logs import to_run_logs
from flows.notify import deliver_pending
from flows.plain_flow import flow
from flows.recover import sweep_and_notify
from flows.review_flow import start_review_runs
from parsers.codes import Status
from reconcile import report as reports

#: task runs per page of an answer (Prefect's API gives 200 at most by default)
PAGE = 200
#: task run ids per question
IDS = 1000


def reconcile_run_name() -> str:
    return f"reconcile-{datetime.now(UTC):%Y-%m-%d-%H%M}"


@flow(name="reconcile", flow_run_name=reconcile_run_name, log_prints=True)
def reconcile() -> dict[str, Any]:
    to_run_logs()
    settings = Settings.from_env()
    report = build_report(settings, completed_tasks(settings))
    report["reviews"]["runs_started"] = start_review_runs(settings)
    publish(settings, report)
    get_run_logger().info("accounting: %s, %s", report["state"], report["counts"])
    return report


def build_report(settings: Settings, completed: set[str]) -> dict[str, Any]:
    swept = sweep_and_notify(settings)
    resent = deliver_pending(settings)
    return reports.build(settings.ledger(), settings.storage(), operator=settings.operator,
                         queue_limit=settings.queue_limit, capacity=settings.capacity,
                         review_alert=settings.review_alert, completed_tasks=completed,
                         swept=swept, notifications_resent=resent)


def completed_tasks(settings: Settings, page: int = PAGE) -> set[str]:
    """Jobs whose latest attempt was made by a task run that completed.

    Only jobs the ledger does not hold as succeeded (or duplicate) are asked about: a
    completed task run contradicts only those, so a pass over a large ledger of successes
    asks the API about the few that matter, not every task run ever made.
    """
    ledger = settings.ledger()
    by_run = {a.task_run_id: job_id for job_id, a in ledger.last_attempts(
        unless=(Status.SUCCEEDED, Status.DUPLICATE)).items() if a.task_run_id}
    if not by_run:
        return set()
    runs = run_coro_as_sync(read_task_runs([UUID(r) for r in by_run], page)) or []
    return {by_run[str(t.id)] for t in runs
            if t.state is not None and t.state.type == StateType.COMPLETED}


async def read_task_runs(ids: list[UUID], page: int = PAGE) -> list[TaskRun]:
    """Every task run of `ids`, asked for `IDS` ids at a time, each answer read page by page
    (offset and limit, in a stable order) until all came back or a page is empty."""
    runs: list[TaskRun] = []
    async with get_client() as client:
        for start in range(0, len(ids), IDS):
            wanted = ids[start:start + IDS]
            seen: set[UUID] = set()
            while len(seen) < len(wanted):
                got = await client.read_task_runs(
                    task_run_filter=TaskRunFilter(id=TaskRunFilterId(any_=wanted)),
                    limit=page, offset=len(seen), sort=TaskRunSort.ID_DESC)
                if not got:
                    break
                runs += got
                seen.update(t.id for t in got)
    return runs


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
    create_table_artifact(key="job-accounting-reviews", table=report["reviews"]["open"] or [
        {"review_id": "", "job_id": "", "age_seconds": "", "flow_run_id": "none open"}],
                          description="Reviews waiting for a decision, oldest first")
    for name, payload in reports.alerts(report):
        emit_event(event=f"stmtflow.alert.{name}",
                   resource={"prefect.resource.id": f"stmtflow.alert.{name}"},
                   payload=payload)
