"""`reconcile`: account for every accepted job, and tidy what can be tidied safely.

It expires overdue queued jobs and reclaims dead leases (both guarded ledger transitions),
re-sends undelivered notifications, lets the book poll for new successes, then cross-checks
ledger, result storage, Prefect task runs, notifications and the book, and publishes the
accounting: markdown and table artifacts, JSON under the results root, and alert events.
Statements the book holds for review get a review flow run each where the `review`
deployment exists; reviews waiting longer than `STMTFLOW_REVIEW_ALERT_HOURS` raise an alert.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.events import emit_event

from flows.config import Settings
from flows.import_flow import job_id_of
from flows.notify import deliver_pending, notify_ended
from flows.review_flow import start_review_runs
from reconcile.accounting import Records, account
from reconcile.book import Book, sync
from reconcile.investigations import Investigations
from reconcile.ledger import QUEUED, TERMINAL, now
from reconcile.notifications import Notifications
from reconcile.outputs import check_outputs
from reconcile.review import ReviewLog

#: Alert when the oldest queued job has used this share of its queue-age limit.
QUEUE_AGE_ALERT = 0.8


def reconcile_run_name() -> str:
    return f"reconcile-{datetime.now(UTC):%Y-%m-%d-%H%M}"


@flow(name="reconcile", flow_run_name=reconcile_run_name, log_prints=True)
def reconcile() -> dict[str, Any]:
    settings = Settings.from_env()
    logger = get_run_logger()
    report = build_report(settings, task_states=prefect_task_states(settings))
    report["reviews"]["runs_started"] = start_review_runs(settings)
    publish(settings, report)
    logger.info("accounting: %s, %s", report["state"], report["counts"])
    return report


def build_report(settings: Settings, task_states: dict[str, str]) -> dict[str, Any]:
    ledger, storage = settings.ledger(), settings.storage()
    expired = ledger.expire()
    reclaimed = ledger.reclaim()
    for job_id in expired + reclaimed:  # reclaiming a last attempt ends the job
        notify_ended(settings, job_id)
    resent = deliver_pending(settings)
    book = Book(ledger.engine)
    consumed = sync(book, ledger, storage)
    jobs = ledger.jobs()
    investigations = Investigations(ledger.engine)
    for j in jobs:
        if j["status"] not in TERMINAL:
            investigations.open_for(j["job_id"], settings.operator)
    records = Records(
        jobs=jobs,
        attempt_rows={j["job_id"]: 0 for j in jobs} | ledger.attempt_counts(),
        investigations=investigations.open_by_job(),
        outputs=check_outputs(jobs, storage),
        notifications=Notifications(ledger.engine).summary(),
        consumer={**book.summary(), "quarantine": book.quarantined()},
        imported=book.imported(),
        task_states=task_states,
        reviews=ReviewLog(ledger.engine).all(),
        review_alert=settings.review_alert,
    )
    report = account(records)
    report["swept"] = {"expired": len(expired), "reclaimed": reclaimed,
                       "notifications_resent": resent, "book": dict(consumed)}
    report["queue"] = queue_health(settings, jobs)
    report["generated_at"] = now().isoformat()
    return report


def queue_health(settings: Settings, jobs: list[dict[str, Any]]) -> dict[str, Any]:
    queued = [j for j in jobs if j["status"] == QUEUED]
    limit = settings.queue_limit.total_seconds()
    ages = [(now() - _aware(j["submitted_at"])).total_seconds() for j in queued]
    oldest = max(ages, default=0.0)
    return {"queued": len(queued), "capacity": settings.capacity,
            "oldest_seconds": round(oldest, 1), "limit_seconds": limit,
            "near_expiry": oldest >= QUEUE_AGE_ALERT * limit,
            "over_capacity": len(queued) > settings.capacity}


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def prefect_task_states(settings: Settings) -> dict[str, str]:
    """job id -> state type of its latest task run, for every batch with a flow run."""
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.utilities.asyncutils import run_coro_as_sync
    from sqlalchemy import select

    from reconcile.db import batches

    with settings.ledger().engine.connect() as c:
        run_ids = [r for (r,) in c.execute(select(batches.c.flow_run_id).where(
            batches.c.flow_run_id.is_not(None)))]
    if not run_ids:
        return {}

    async def read() -> list[Any]:
        async with get_client() as client:
            return await client.read_task_runs(flow_run_filter=FlowRunFilter(
                id=FlowRunFilterId(any_=run_ids)))

    latest: dict[str, Any] = {}
    for t in run_coro_as_sync(read()) or []:
        job_id = job_id_of(t.name)
        if job_id and t.state and (job_id not in latest or t.created > latest[job_id].created):
            latest[job_id] = t
    return {j: t.state.type.value for j, t in latest.items()}


def publish(settings: Settings, report: dict[str, Any]) -> None:
    """Artifacts, JSON under the results root, and an event per alert."""
    body = json.dumps(report, indent=1, default=str).encode()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    storage = settings.storage()
    report["report_uri"] = storage.put(f"reports/reconcile-{stamp}.json", body)
    storage.put("reports/latest.json", body)
    create_markdown_artifact(markdown=to_markdown(report), key="job-accounting",
                             description="Job accounting of the last reconciliation")
    create_table_artifact(key="job-accounting-unresolved", table=report["unresolved"] or [
        {"job_id": "", "status": "", "owner": "", "investigation": "none unresolved"}],
                          description="Jobs without a terminal record")
    create_table_artifact(key="job-accounting-reviews", table=report["reviews"]["open"] or [
        {"review_id": "", "job_id": "", "age_seconds": "", "flow_run_id": "none open"}],
                          description="Reviews waiting for a decision, oldest first")
    for name, payload in alerts(report):
        emit_event(event=f"stmtflow.alert.{name}",
                   resource={"prefect.resource.id": f"stmtflow.alert.{name}"},
                   payload=payload)


def alerts(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    q = report["queue"]
    if q["near_expiry"]:
        out.append(("queue-age", {"oldest_seconds": q["oldest_seconds"],
                                  "limit_seconds": q["limit_seconds"]}))
    if q["over_capacity"]:
        out.append(("backlog", {"queued": q["queued"], "capacity": q["capacity"]}))
    if report["consumer"].get("quarantined"):
        out.append(("quarantine", {"quarantined": report["consumer"]["quarantined"]}))
    reviews = report["reviews"]
    if reviews["overdue"]:
        out.append(("review-age", {"reviews": reviews["overdue"],
                                   "oldest_open_seconds": reviews["oldest_open_seconds"],
                                   "alert_seconds": reviews["alert_seconds"]}))
    if report["unresolved"]:
        out.append(("unresolved", {"jobs": [u["job_id"] for u in report["unresolved"]]}))
    if not report["outputs"].get("ok", True):
        out.append(("outputs", {k: report["outputs"][k] for k in
                                ("missing_object", "digest_mismatch", "object_without_record")}))
    if report["state"] == "invalid":
        out.append(("invalid", {"contradictions": report["contradictions"][:50]}))
    return out


def to_markdown(r: dict[str, Any]) -> str:
    c = r["counts"]
    lines = [f"# Job accounting: **{r['state']}**", "",
             "| accepted | terminal | succeeded | failed (deterministic / exhausted) | expired "
             "| retried | unresolved |", "|---|---|---|---|---|---|---|",
             f"| {c['accepted']} | {c['terminal']} | {c['succeeded']} | {c['failed']} "
             f"({c['failed_deterministic']} / {c['failed_exhausted']}) | {c['expired']} "
             f"| {c['retried']} | {c['unresolved']} |", ""]
    if r["unresolved"]:
        lines += ["## Unresolved", ""] + [
            f"- `{u['job_id']}` {u['status']}, owner {u['owner'] or 'nobody'}, investigation "
            f"{u['investigation']['id'] if u['investigation'] else 'none'}"
            for u in r["unresolved"]] + [""]
    if r["contradictions"]:
        lines += ["## Contradictions", ""] + [f"- {x}" for x in r["contradictions"]] + [""]
    o, n, k = r["outputs"], r["notifications"], r["consumer"]
    t = r["time_to_completion"]
    lines += [
        "## Checks", "",
        f"- outputs: {o.get('checked', 0)} checked, {len(o.get('missing_object', []))} missing, "
        f"{len(o.get('digest_mismatch', []))} digest mismatches, "
        f"{len(o.get('object_without_record', []))} objects without a record",
        f"- notifications: {n.get('delivered', 0)} of {n.get('expected', 0)} delivered",
        f"- book: {k.get('imported', 0)} imported, {k.get('held', 0)} held for review, "
        f"{k.get('rejected', 0)} rejected, {k.get('duplicates_suppressed', 0)} "
        f"duplicates suppressed, {k.get('quarantined', 0)} quarantined",
        _review_line(r["reviews"]),
        f"- time to completion: p50 {t['p50']} s, p95 {t['p95']} s, max {t['max']} s",
        f"- pinned identities in use: {len(r['pinned_identities'])}",
    ]
    return "\n".join(lines)


def _review_line(v: dict[str, Any]) -> str:
    c = v["counts"]
    oldest = v["oldest_open_seconds"]
    age = f" (oldest {oldest / 3600:.1f} h, {len(v['overdue'])} overdue)" if oldest else ""
    return (f"- reviews: {c['open']} open{age}, {c['accepted']} accepted, {c['corrected']} "
            f"corrected, {c['rejected']} rejected")
