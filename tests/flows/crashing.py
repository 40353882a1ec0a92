"""Starting `crashing_worker.py` from a test, and waiting until it reached its point."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def start(mode: str, target: str, marker: Path, batch_id: str,
          source: Path) -> subprocess.Popen[bytes]:
    """The crashing worker for `mode` on `source`, talking to this test's Prefect API; it
    touches `marker` once the file with sha256 `target` reached the point."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, str(HERE / "crashing_worker.py"), mode, target, str(marker),
         batch_id, str(source)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def reached(worker: subprocess.Popen[bytes], marker: Path, timeout: float = 180) -> None:
    """Return once `worker` touched `marker`; fail if it ended or took over `timeout` s."""
    deadline = time.monotonic() + timeout
    while not marker.exists():
        assert worker.poll() is None, "the worker ended before reaching its point"
        assert time.monotonic() < deadline, "the worker never reached its point"
        time.sleep(0.1)
