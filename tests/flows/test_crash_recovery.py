"""kill -9 of the worker mid-batch: after recovery every job is terminal, counted exactly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.config import Settings
from flows.recover import recover
from reconcile.outputs import check_outputs
from reconcile.storage import sha256

HERE = Path(__file__).parent


@pytest.mark.parametrize("mode", ["mid-parse", "after-upload"])
def test_kill_dash_nine_then_recover(mode: str, stmtflow_home: Path, inbox, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "3")
    good = [s for s in inbox.samples if s.reason is None]
    target = sha256(good[3].pdf.read_bytes())
    marker = tmp_path / "reached"
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    worker = subprocess.Popen(
        [sys.executable, str(HERE / "crashing_worker.py"), mode, target, str(marker),
         "b-crash", str(inbox.folder)], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert worker.poll() is None, "the worker ended before reaching the crash point"
        assert time.monotonic() < deadline, "the worker never reached the crash point"
        time.sleep(0.1)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()

    settings = Settings.from_env()
    ledger = settings.ledger()
    before = {j["sha256"]: j for j in ledger.jobs("b-crash")}
    assert (before[target]["status"], before[target]["attempts"]) == ("PROCESSING", 1)
    time.sleep(3.5)  # the dead worker's lease runs out

    result = recover(settings)
    assert before[target]["job_id"] in result["reclaimed"]
    assert result["resumed"] == {"b-crash": "Completed With Warnings"}
    assert result["crashed_flow_runs"] == ["b-crash"]

    jobs = ledger.jobs("b-crash")
    assert all(j["status"] in ("SUCCEEDED", "FAILED") for j in jobs)
    for j in jobs:
        outcomes = [a["outcome"] for a in ledger.attempts(j["job_id"])]
        assert j["attempts"] == len(outcomes)
        assert all(o == "crashed" for o in outcomes[:-1]), outcomes
        assert outcomes[-1] in ("succeeded", "failed")
    after = {j["sha256"]: j for j in jobs}
    assert (after[target]["status"], after[target]["attempts"]) == ("SUCCEEDED", 2)
    assert [a["outcome"] for a in ledger.attempts(after[target]["job_id"])] == [
        "crashed", "succeeded"]
    finished_before = [s for s, j in before.items() if j["status"] in ("SUCCEEDED", "FAILED")]
    assert all(after[s]["attempts"] == before[s]["attempts"] for s in finished_before)
    checks = check_outputs(jobs, settings.storage())
    assert checks["ok"], checks


def test_recover_leaves_a_live_batch_alone(stmtflow_home: Path, inbox,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from flows.jobs import accept_batch
    from flows.recover import abandoned_batches

    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "0.05")
    settings = Settings.from_env()
    good = [str(s.pdf) for s in inbox.samples if s.reason is None][:3]
    dead, live, _ = accept_batch(settings, "b-mixed", good, None)
    ledger = settings.ledger()
    ledger.claim(dead.job_id, "worker-that-died")
    time.sleep(0.1)
    assert ledger.reclaim() == [dead.job_id]
    assert abandoned_batches(ledger) == ["b-mixed"]
    ledger.lease = timedelta(minutes=5)
    ledger.claim(live.job_id, "worker-still-running")  # its run is alive
    assert abandoned_batches(ledger) == []
