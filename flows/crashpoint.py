"""Named points where a fault test kills the process, as the kernel or an operator would.

A real worker cannot be made to die at an exact line, so the places where dying matters
most call `reached(spec, point)`; `spec` is `STMTFLOW_CRASH_AT` (`Settings.crash_at`), unset
in production. `POINT` kills at the first arrival, `POINT:N` at the N-th, with SIGKILL: no
handler, no `finally`, no flush, the same as `kill -9`.

The points, in the order a batch passes them: `listing` (the source listed, nothing of it
accepted), `acceptance` (a file enveloped, the source not yet fully accepted), `parse` (the
job claimed, its input read, the parse under way), `written` (the attempt's outputs
written and verified, the success not recorded), `succeeded` (the success recorded, the
notification not sent), `close` (every job ended, the batch state not written).
"""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter

POINTS = ("listing", "acceptance", "parse", "written", "succeeded", "close")

_arrivals: Counter[str] = Counter()
_lock = threading.Lock()


def reached(spec: str | None, point: str) -> None:
    """Kill this process with SIGKILL when `spec` names `point` and its count is reached."""
    if not spec:
        return
    name, _, nth = spec.partition(":")
    if name != point:
        return
    with _lock:
        _arrivals[point] += 1
        due = _arrivals[point] == int(nth or 1)
    if due:
        os.kill(os.getpid(), signal.SIGKILL)


def check(spec: str | None) -> str | None:
    """`spec` as `Settings` keeps it, refused early when it names no point."""
    if not spec:
        return None
    name, _, nth = spec.partition(":")
    if name not in POINTS or (nth and not (nth.isdigit() and int(nth) > 0)):
        raise ValueError(f"STMTFLOW_CRASH_AT must be one of {', '.join(POINTS)}, optionally "
                         f"followed by :N, not {spec!r}")
    return spec
