"""Child processes that die with the process that started them (Linux's parent-death signal).

A child killed with its parent cannot read on unwatched, without the limits its parent was
under, after a kill its parent could not refuse (SIGKILL for a parse over its wall time).
The kernel sends the signal when the *thread* that started the child ends, so it is armed
only from the main thread, whose end is the process's; a child another thread starts must
end otherwise (at the end of its input, by its `stop`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    """libc's prctl, where there is one (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def dies_with_this_process() -> Callable[[], None] | None:
    """A `preexec_fn` that has the child killed when this process ends; None where that
    cannot be armed (not Linux, or not the main thread)."""
    if _PRCTL is None or threading.current_thread() is not threading.main_thread():
        return None
    prctl, parent = _PRCTL, os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died between the fork and the prctl
            os._exit(1)
    return arm
