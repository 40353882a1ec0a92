"""Every batch ends: a run whose source cannot be accepted closes its batch FAILED with the
reason, `stmtflow recover` then has nothing to do (exit 0, no traceback), and an operator
can abandon a batch with a note that the accounting counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from faults import Faults

from corpus import generate
from flows.config import Settings
from flows.import_flow import import_batch, resume_batch
from flows.reconcile_flow import reconcile
from parsers.codes import BatchState, Reason, Status


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_a_run_of_a_missing_inbox_ends_its_batch_failed_and_recover_finds_nothing(
        stmtflow_home: Path, tmp_path: Path) -> None:
    missing = tmp_path / "inbox" / "northwind"
    state = import_batch(str(missing), bank="northwind", batch_id="b-missing",
                         return_state=True)
    assert state.is_failed()
    assert "source_missing" in str(state.message)
    batch = Settings.from_env().ledger().batch("b-missing")
    assert batch is not None
    assert (batch.state, batch.reason) == (BatchState.FAILED, Reason.SOURCE_MISSING)
    assert str(missing) in str(batch.message) and batch.lease_until is None

    recovered = _cli("recover")
    assert recovered.returncode == 0, recovered.stderr
    assert "Traceback" not in recovered.stdout + recovered.stderr
    assert recovered.stdout.startswith("reclaimed 0 job(s)")
    report = reconcile()
    assert report["state"] == "accounted"
    assert report["batches"]["ended_early"] == [{
        "batch_id": "b-missing", "state": BatchState.FAILED, "reason": Reason.SOURCE_MISSING,
        "message": batch.message}]


def test_a_source_gone_before_a_resume_ends_the_batch_and_its_waiting_jobs(
        stmtflow_home: Path, tmp_path: Path, faults: Faults) -> None:
    """A run died in acceptance (storage went away) with two files enveloped; the inbox is
    gone when the resume lists it again: the batch ends FAILED, and so do the two jobs, whose
    bytes a later import then parses (the failure was the run's, not theirs)."""
    folder = tmp_path / "inbox"
    samples = generate(folder, ("northwind",), 4, seed=3)
    stored: list[str] = []

    def third_input_fails(path: str, data: bytes | None) -> None:
        if "/inputs/sha256/" in path and ".tmp-" in path:
            stored.append(path)
            if len(stored) == 3:
                raise ConnectionError("injected: storage gone during acceptance")

    faults.on_write.append(third_input_fails)
    state = import_batch(str(folder), batch_id="b-cut", return_state=True)
    assert state.is_failed() and "a resume lists it again" in str(state.message)
    ledger = Settings.from_env().ledger()
    batch = ledger.batch("b-cut")
    assert batch is not None and batch.state == BatchState.PROCESSING
    faults.on_write.clear()
    moved = tmp_path / "elsewhere"
    folder.rename(moved)
    state = resume_batch("b-cut", return_state=True)
    assert state.is_failed() and "source_missing" in str(state.message)
    assert ledger.batch("b-cut").state == BatchState.FAILED  # type: ignore[union-attr]
    jobs = ledger.jobs("b-cut")
    assert [(j.status, j.reason, j.attempts) for j in jobs] == [
        (Status.FAILED, Reason.BATCH_FAILED, 0)] * 2
    again = import_batch(str(moved), batch_id="b-again", return_state=True)
    assert again.name == "Completed", again.message
    assert sorted(j.status for j in ledger.jobs("b-again")) == [Status.SUCCEEDED] * len(samples)
    assert reconcile()["contradictions"] == []


def test_an_abandoned_batch_ends_with_the_note_and_is_counted(
        stmtflow_home: Path, tmp_path: Path, faults: Faults) -> None:
    folder = tmp_path / "inbox"
    generate(folder, ("bluebird",), 3, seed=4)
    stored: list[str] = []

    def second_input_fails(path: str, data: bytes | None) -> None:
        if "/inputs/sha256/" in path and ".tmp-" in path:
            stored.append(path)
            if len(stored) == 2:
                raise ConnectionError("injected: storage gone during acceptance")

    faults.on_write.append(second_input_fails)
    assert import_batch(str(folder), batch_id="b-left", return_state=True).is_failed()
    before = reconcile()
    assert before["state"] == "investigate"
    assert before["batches"]["unclosed"] == ["b-left"]

    done = _cli("batch", "abandon", "b-left", "--note", "statements sent again", "--by", "ops")
    assert done.returncode == 0, done.stderr
    assert "1 job(s) ended without running" in done.stdout
    batch = Settings.from_env().ledger().batch("b-left")
    assert batch is not None and batch.state == BatchState.ABANDONED
    assert batch.message == "statements sent again (by ops)"
    again = _cli("batch", "abandon", "b-left", "--note", "twice")
    assert again.returncode == 1 and "ABANDONED: nothing to abandon" in again.stderr

    after = reconcile()
    assert after["state"] == "accounted", after["contradictions"]
    assert after["counts"]["abandoned"] == 1
    assert after["batches"]["unclosed"] == []
    assert [b["batch_id"] for b in after["batches"]["ended_early"]] == ["b-left"]
