"""Named points where a fault test kills the process, as the kernel or an operator would.

A real worker cannot be made to die at an exact line, so the places where dying matters
most call `reached(spec, point)`; `spec` is `STMTFLOW_CRASH_AT` (`Settings.crash_at`), unset
in production. `POINT` kills at the first arrival, `POINT:N` at the N-th, with SIGKILL: no
handler, no `finally`, no flush, the same as `kill -9`. Prefixed `stop:` the process stops
itself instead (SIGSTOP, every thread at once, lease renewal included), as a paused VM or a
debugger would, until someone sends SIGCONT.

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

STOP = "stop:"
POINTS = ("listing", "acceptance", "parse", "written", "succeeded", "close")

_arrivals: Counter[str] = Counter()
_lock = threading.Lock()


def reached(spec: str | None, point: str) -> None:
    """Kill (or stop) this process when `spec` names `point` and its count is reached."""
    if not spec:
        return
    sig, name, nth = _parse(spec)
    if name != point:
        return
    with _lock:
        _arrivals[point] += 1
        due = _arrivals[point] == nth
    if due:
        os.kill(os.getpid(), sig)


def check(spec: str | None) -> str | None:
    """`spec` as `Settings` keeps it, refused early when it names no point."""
    if not spec:
        return None
    try:
        _parse(spec)
    except ValueError:
        raise ValueError(f"STMTFLOW_CRASH_AT must be [stop:]POINT[:N] with POINT one of "
                         f"{', '.join(POINTS)}, not {spec!r}") from None
    return spec


def _parse(spec: str) -> tuple[signal.Signals, str, int]:
    sig = signal.SIGKILL
    if spec.startswith(STOP):
        sig, spec = signal.SIGSTOP, spec[len(STOP):]
    name, _, nth = spec.partition(":")
    if name not in POINTS or int(nth or 1) < 1:
        raise ValueError(spec)
    return sig, name, int(nth or 1)
