"""Delivery records of completion notifications: expected, attempted, delivered.

A notification never decides anything: consumers poll durable state. These records only
let the reconciliation sweep re-send what was dropped and report what was delivered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Update, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from parsers.codes import Status
from reconcile.db import jobs, notifications, param
from reconcile.records import Clock, utc_now


def _attempt(**values: Any) -> Update:
    """One more delivery attempt of a notification not yet delivered (built once: building a
    statement costs more than running it)."""
    n = notifications.c
    return update(notifications).where(
        n.job_id == param(n.job_id, "g_"), n.channel == param(n.channel, "g_"),
        n.delivered_at.is_(None)).values(
        attempts=n.attempts + 1, last_error=param(n.last_error), **values)


_ATTEMPTED = _attempt()
_DELIVERED = _attempt(delivered_at=param(notifications.c.delivered_at))


@contextmanager
def _unsynced(engine: Engine) -> Iterator[Connection]:
    """A transaction whose commit does not wait for the disk, on SQLite (`synchronous=NORMAL`
    under WAL): the next commit that does wait (any other of the ledger's) takes it down with
    its own, and a power loss before that undoes a delivery record alone, whose notification
    the reconciliation then sends again, as it does for a worker that died before recording
    it. The wait (0.3 to 4 ms a commit here, as loaded as the disk is) is time in which the
    file's worker thread, and so its parse process, does nothing."""
    with engine.connect() as c:
        sqlite = c.dialect.name == "sqlite"
        if sqlite:
            before = int(c.exec_driver_sql("PRAGMA synchronous").scalar() or 0)
            c.exec_driver_sql("PRAGMA synchronous=NORMAL")
            c.commit()
        try:
            with c.begin():
                yield c
        finally:
            if sqlite:
                c.exec_driver_sql(f"PRAGMA synchronous={before}")
                c.commit()


class Notifications:
    def __init__(self, engine: Engine, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock

    def expect(self, job_id: str, channels: list[str]) -> None:
        """Note that `job_id` owes a notification on each channel (idempotent)."""
        for channel in channels:
            try:
                with self.engine.begin() as c:
                    c.execute(insert(notifications).values(
                        job_id=job_id, channel=channel, attempts=0, created_at=self.clock()))
            except IntegrityError:  # already expected on this channel
                continue

    def record(self, job_id: str, channel: str, error: str | None) -> None:
        """One delivery attempt: delivered when `error` is None."""
        params = {"g_job_id": job_id, "g_channel": channel, "v_last_error": error}
        with _unsynced(self.engine) as c:
            if error is None:
                c.execute(_DELIVERED, {**params, "v_delivered_at": self.clock()})
            else:
                c.execute(_ATTEMPTED, params)

    def owed(self, ended_before: datetime) -> list[str]:
        """Jobs that ended before `ended_before` (by a run or by expiry) and owe a notification
        nobody expected: their worker died between the terminal record and the notification.

        A job refused at acceptance (no input) or a duplicate (its holder's outcome) owes none.
        """
        q = select(jobs.c.job_id).outerjoin(
            notifications, notifications.c.job_id == jobs.c.job_id).where(
            notifications.c.job_id.is_(None), jobs.c.input_uri.is_not(None),
            jobs.c.status.in_([Status.SUCCEEDED, Status.FAILED, Status.EXPIRED]),
            jobs.c.finished_at < ended_before).order_by(jobs.c.finished_at)
        with self.engine.connect() as c:
            return [r for (r,) in c.execute(q)]

    def pending(self) -> list[tuple[str, str]]:
        with self.engine.connect() as c:
            rows = c.execute(select(notifications.c.job_id, notifications.c.channel).where(
                notifications.c.delivered_at.is_(None)).order_by(notifications.c.created_at))
            return [(r.job_id, r.channel) for r in rows]

    def summary(self) -> dict[str, Any]:
        with self.engine.connect() as c:
            rows = c.execute(select(
                notifications.c.channel,
                func.count(),
                func.count(notifications.c.delivered_at),
                func.coalesce(func.sum(notifications.c.attempts), 0),
            ).group_by(notifications.c.channel)).all()
        channels = {ch: {"expected": n, "delivered": d, "undelivered": n - d, "attempts": int(a)}
                    for ch, n, d, a in rows}
        return {
            "expected": sum(v["expected"] for v in channels.values()),
            "delivered": sum(v["delivered"] for v in channels.values()),
            "undelivered": sum(v["undelivered"] for v in channels.values()),
            "channels": channels,
            "pending": [{"job_id": j, "channel": ch} for j, ch in self.pending()],
        }
