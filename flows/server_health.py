"""Whether a Prefect server's background services do their work.

A server answers its health check while a service inside it fails on every loop: under
SQLAlchemy 2.1, Prefect 3.9's scheduler raised on each pass, no schedule ever fired, and
nothing told the operator. `stmtflow server status` and `stmtflow setup` therefore look at
two things a failing service leaves behind:

- the runs the scheduler keeps ahead (at least three for every active schedule): a
  deployment whose schedule has been in place longer than `SCHEDULER_GRACE` (two of its
  loops) with no run scheduled means the scheduler is not running;
- the server's log, where there is one to read (this home's `stmtflow server`): every ERROR
  record of its services since it started, by service, with the error it raised.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from prefect import get_client
from prefect.client.schemas.filters import (
    DeploymentFilter,
    DeploymentFilterId,
    FlowRunFilter,
    FlowRunFilterState,
    FlowRunFilterStateType,
)
from prefect.client.schemas.objects import StateType

#: how long a schedule may wait for its first runs: the scheduler's loop is 60 s
SCHEDULER_GRACE = timedelta(minutes=2)

#: a record of Prefect's log format: `12:00:00.000 | ERROR   | docket.worker - message`
_RECORD = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} \| (\w+)\s*\| ([\w.]+) - (.*)$")
#: the loggers of the server's services: docket runs them, Prefect's modules name them
_SERVICE_LOGGERS = ("docket", "prefect.server")
#: the service a docket record names: `↩ [00:00:00.05] schedule_deployments(...)`
_CALL = re.compile(r"(\w+)\(")
#: the message buses whose records name no service: the handler in their traceback does
_BUSES = ("memory", "messaging")
#: a frame of a service's module of Prefect's server: `.../prefect/server/events/actions.py`
_HANDLER = re.compile(r"prefect/server/((?!utilities/)[\w/]+)\.py")
#: the last line of a traceback: `sqlalchemy.exc.InvalidRequestError: Can't evaluate ...`
_RAISED = re.compile(r"^([\w.]+(Error|Exception|Exit|Interrupt)\w*):? ?(.*)$")


@dataclass(frozen=True)
class Problem:
    """A service the server runs that is not doing its work, and how it shows."""

    service: str
    detail: str

    def __str__(self) -> str:
        return f"{self.service}: {self.detail}"


async def service_problems(log: Path | None = None, offset: int = 0,
                           grace: timedelta = SCHEDULER_GRACE) -> list[Problem]:
    """Every sign of a service in error: schedules without runs, and the log's ERROR
    records from byte `offset` on (where the server's current start began writing)."""
    problems = await unscheduled(grace)
    if log is not None:
        problems += log_problems(log, offset)
    return problems


async def unscheduled(grace: timedelta = SCHEDULER_GRACE) -> list[Problem]:
    """Deployments whose active schedule, in place longer than `grace`, has no run
    scheduled: the scheduler is not making them."""
    now = datetime.now(UTC)
    problems = []
    async with get_client() as client:
        for d in await client.read_deployments():
            active = [s for s in d.schedules if s.active]
            since = max([t for t in (d.created, d.updated, *(s.updated for s in active))
                         if t is not None], default=now)
            if d.paused or not active or now - since < grace:
                continue
            ahead = await client.read_flow_runs(
                deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[d.id])),
                flow_run_filter=FlowRunFilter(state=FlowRunFilterState(
                    type=FlowRunFilterStateType(any_=[StateType.SCHEDULED]))), limit=1)
            if not ahead:
                minutes = (now - since).total_seconds() / 60
                problems.append(Problem("scheduler", f"deployment {d.name} has an active "
                                        f"schedule but no run scheduled after {minutes:.0f} "
                                        f"min: the server's scheduler is not running"))
    return problems


def log_problems(log: Path, offset: int = 0) -> list[Problem]:
    """The services that logged an ERROR in `log` from byte `offset` on: how often, and
    the last error each raised."""
    try:
        with open(log, "rb") as f:
            f.seek(offset)
            lines = f.read().decode(errors="replace").splitlines()
    except OSError:
        return []
    counts: Counter[str] = Counter()
    last: dict[str, str] = {}
    for service, error in _error_records(lines):
        counts[service] += 1
        last[service] = error
    return [Problem(s, f"{n} error(s) in the server's log, the last: {last[s][:300]}")
            for s, n in counts.items()]


def _error_records(lines: list[str]) -> list[tuple[str, str]]:
    """(service, error) of each ERROR record of a service: the error is the traceback's
    last line, else the record's message."""
    records: list[tuple[str, str]] = []
    service: str | None = None
    error = ""
    for line in [*lines, "00:00:00.000 | INFO | end - "]:
        if record := _RECORD.match(line):
            if service:
                records.append((service, error))
            service = _service(record) if record[1] in ("ERROR", "CRITICAL") else None
            error = record[3].strip()
        elif service and (raised := _RAISED.match(line.strip())):
            error = f"{raised[1]}: {raised[3]}".rstrip(": ")
        elif service in _BUSES and (handler := _HANDLER.search(line)):
            service = handler[1].replace("/", ".")  # the handler that failed on the bus
    return records


def _service(record: Any) -> str | None:
    """The service an ERROR record is about: the function docket ran, or Prefect's module."""
    logger, message = record[2], record[3]
    if not logger.startswith(_SERVICE_LOGGERS):
        return None
    if logger.startswith("docket") and (call := _CALL.search(message)):
        return call[1]
    return logger.rsplit(".", 1)[-1]
