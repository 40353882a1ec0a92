"""Completion notifications: a Prefect event always, a webhook POST when configured.

Sent only by the worker whose terminal update won, recorded per attempt, and never allowed to
change a job's outcome: a failure here is logged and left for the reconciliation sweep.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any

from prefect.events import emit_event

from flows.config import Settings
from parsers.model import mask_digits
from reconcile.notifications import Notifications
from reconcile.records import Job

log = logging.getLogger("stmtflow")


def payload(job: Job) -> dict[str, Any]:
    """What a notification says: ids, outcome and where the output is; no account data."""
    return {k: getattr(job, k) for k in ("job_id", "batch_id", "status", "reason", "attempts",
                                         "output_uri", "output_digest", "needs_review", "bank")}


def channels(settings: Settings) -> list[str]:
    return ["event", "webhook"] if settings.webhook_url else ["event"]


def notify(settings: Settings, job: Job, expected: bool = False) -> None:
    """Deliver `job`'s notification on every channel; `expected`: the ledger already holds
    the rows it is owed (the transition that ended it wrote them)."""
    store = Notifications(settings.engine(), settings.clock)
    if not expected:
        store.expect(job.job_id, channels(settings))
    for channel in channels(settings):
        _deliver_once(settings, store, job, channel)


def notify_ended(settings: Settings, job: str | Job) -> None:
    """Notify for a job that just ended (its id, or its record as its transition committed
    it, the notifications it owes written with it); a failure here never changes the
    outcome."""
    record = job if isinstance(job, Job) else settings.ledger().job(job)
    if record is None or not record.status.terminal:
        return
    try:
        notify(settings, record, expected=isinstance(job, Job))
    except Exception as exc:
        log.warning("job %s: notification not recorded: %s", record.job_id, exc)


def deliver_pending(settings: Settings) -> int:
    """Send what is owed once: every undelivered notification, and those of jobs that ended
    over a lease ago with none expected (the worker died right after the terminal record;
    a live worker sends its own well within a lease). Return how many are delivered now."""
    store = Notifications(settings.engine(), settings.clock)
    for job_id in store.owed(settings.clock() - settings.lease):
        store.expect(job_id, channels(settings))
    ledger = settings.ledger()
    delivered = 0
    for job_id, channel in store.pending():
        job = ledger.job(job_id)
        if job is not None and channel in channels(settings):
            delivered += _deliver_once(settings, store, job, channel)
    return delivered


def _deliver_once(settings: Settings, store: Notifications, job: Job, channel: str) -> bool:
    try:
        if channel == "event":
            _emit(job)
        else:
            _post(settings.webhook_url or "", payload(job))
    except Exception as exc:  # a notification must never change the job's outcome
        log.warning("job %s: %s notification not delivered: %s", job.job_id, channel, exc)
        store.record(job.job_id, channel, f"{type(exc).__name__}: {exc}"[:500])
        return False
    store.record(job.job_id, channel, None)
    return True


def job_resource(job: Job) -> dict[str, str]:
    """The job as an event's resource: its id, and its file's name masked (never the path,
    never a long digit run such as an account number in the name)."""
    return {"prefect.resource.id": f"stmtflow.job.{job.job_id}",
            "prefect.resource.name": mask_digits(job.file_name)}


def _emit(job: Job) -> None:
    event = emit_event(
        event=f"stmtflow.job.{job.status.lower()}",
        resource=job_resource(job),
        related=[{"prefect.resource.id": f"stmtflow.batch.{job.batch_id}",
                  "prefect.resource.role": "batch"}],
        payload=payload(job),
    )
    if event is None:
        raise ConnectionError("no Prefect events client to emit to")


def _post(url: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(url, data=json.dumps(body, default=str).encode(),
                                     headers={"Content-Type": "application/json"},
                                     method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        if not 200 <= response.status < 300:
            raise urllib.error.HTTPError(url, response.status, "not delivered", response.headers,
                                         None)
