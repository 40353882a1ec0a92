"""What /proc tells of processes a test started or expects gone (Linux)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def state(pid: int) -> str | None:
    """The process's state letter (`R`, `S`, `T` stopped, `Z` zombie), None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper has stopped)."""
    return state(pid) not in (None, "Z")


def ended_within(pid: int, seconds: float) -> bool:
    """Whether `pid` ends by itself within `seconds`; one that does not is killed, so that a
    failing test leaves nothing running."""
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not alive(pid):
        return True
    os.kill(pid, signal.SIGKILL)
    return False
