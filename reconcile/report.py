"""The reconciliation report: the accounting plus queue health, its alerts and its markdown.

`build` gathers the records (the book polls for new successes and output objects are checked
in the same read of result storage, every unfinished job gets an investigation, reviews are
read) and accounts for them; `queue_health`,
`alerts` and `to_markdown` are plain functions of plain values, so that the reconcile flow
only sweeps, builds, publishes.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from parsers.codes import Status
from reconcile.accounting import INVALID, Records, account
from reconcile.book import Book
from reconcile.db import bulk
from reconcile.investigations import Investigations
from reconcile.ledger import Ledger
from reconcile.notifications import Notifications
from reconcile.output_checks import OutputCheck, OutputPass
from reconcile.records import Job
from reconcile.recovery import Swept
from reconcile.review import ReviewLog
from reconcile.storage import Storage

#: Alert when the oldest queued job has used this share of its queue-age limit.
QUEUE_AGE_ALERT = 0.8


def build(ledger: Ledger, storage: Storage, *, operator: str | None, queue_limit: timedelta,
          capacity: int, review_alert: timedelta, completed_tasks: set[str], swept: Swept,
          notifications_resent: int) -> dict[str, Any]:
    book = Book(ledger.engine, ledger.clock)
    jobs = ledger.jobs()
    consumed, outputs = _read_outputs(book, jobs, storage, ledger.engine)
    investigations = Investigations(ledger.engine, ledger.clock)
    investigations.open_for_many([j.job_id for j in jobs if not j.status.terminal], operator)
    records = Records(
        jobs=jobs,
        attempt_rows={j.job_id: 0 for j in jobs} | ledger.attempt_counts(),
        investigations=investigations.open_by_job(),
        outputs=outputs,
        notifications=Notifications(ledger.engine, ledger.clock).summary(),
        consumer={**book.summary(), "quarantine": book.quarantined()},
        imported=book.imported(),
        completed_tasks=completed_tasks,
        reviews=ReviewLog(ledger.engine).all(),
        review_alert=review_alert,
        at=ledger.clock(),
        batches=ledger.batches(),
    )
    report = account(records)
    report["swept"] = {"expired": len(swept.expired), "reclaimed": swept.reclaimed,
                       "notifications_resent": notifications_resent, "book": dict(consumed)}
    now = ledger.clock()
    report["queue"] = queue_health(jobs, now, queue_limit, capacity)
    report["generated_at"] = now.isoformat()
    return report


def _read_outputs(book: Book, jobs: list[Job], storage: Storage, engine: Engine
                  ) -> tuple[Counter[str], dict[str, Any]]:
    """One listing of result storage, and a read of what it cannot vouch for: the book takes
    in new statements, the check uses the same digests."""
    consumed: Counter[str] = Counter()
    delivered = book.delivered()
    check = OutputCheck()
    with bulk(engine) as c:
        listed = OutputPass(storage, engine, c)
        for found in listed.read(jobs, book.wanted(delivered)):
            check.add(found)
            consumed += book.take(found, delivered, c)
    return consumed, check.result(jobs, listed)


def queue_health(jobs: list[Job], now: datetime, queue_limit: timedelta,
                 capacity: int) -> dict[str, Any]:
    queued = [j for j in jobs if j.status == Status.QUEUED]
    limit = queue_limit.total_seconds()
    oldest = max(((now - j.submitted_at).total_seconds() for j in queued), default=0.0)
    return {"queued": len(queued), "capacity": capacity,
            "oldest_seconds": round(oldest, 1), "limit_seconds": limit,
            "near_expiry": oldest >= QUEUE_AGE_ALERT * limit,
            "over_capacity": len(queued) > capacity}


def alerts(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, payload) of every operator alert the report raises."""
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
    if report["state"] == INVALID:
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
    b = r["batches"]
    if b["ended_early"] or b["unclosed"]:
        lines += ["## Batches that did not complete", ""] + [
            f"- `{e['batch_id']}` {e['state']} ({e['reason']}): {e['message']}"
            for e in b["ended_early"]] + [
            f"- `{u}` never accepted its source and no run holds it: `stmtflow recover`, or "
            f"`stmtflow batch abandon {u} --note …`" for u in b["unclosed"]] + [""]
    o, n, k = r["outputs"], r["notifications"], r["consumer"]
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
        _time_line(r["time_to_completion"]),
        f"- pinned identities in use: {len(r['pinned_identities'])}",
    ]
    return "\n".join(lines)


def _time_line(t: dict[str, Any]) -> str:
    if t["max"] is None:  # no job has ended yet: there is no time to report
        return "- time to completion: no job has ended yet"
    return f"- time to completion: p50 {t['p50']} s, p95 {t['p95']} s, max {t['max']} s"


def _review_line(v: dict[str, Any]) -> str:
    c = v["counts"]
    oldest = v["oldest_open_seconds"]
    age = f" (oldest {oldest / 3600:.1f} h, {len(v['overdue'])} overdue)" if oldest else ""
    return (f"- reviews: {c['open']} open{age}, {c['accepted']} accepted, {c['corrected']} "
            f"corrected, {c['rejected']} rejected")
