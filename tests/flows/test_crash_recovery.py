"""kill -9 of the worker mid-batch: after recovery every job is terminal, counted exactly."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import crashing
import pytest
from faults import Faults

from flows.config import Settings
from flows.recover import abandoned, recover
from parsers.codes import Outcome, Status
from reconcile.output_checks import check_outputs
from reconcile.records import utc_now
from reconcile.storage import sha256


def after_lease(settings: Settings) -> Settings:
    """The same settings, read when every lease taken now has run out."""
    return replace(settings, clock=lambda: utc_now() + settings.lease + timedelta(seconds=1))


@pytest.mark.parametrize("mode", ["mid-attempt", "after-upload"])
def test_kill_dash_nine_then_recover(mode: str, stmtflow_home: Path, inbox, tmp_path: Path,
                                     faults: Faults) -> None:
    good = [s for s in inbox.samples if s.reason is None]
    target = sha256(good[3].pdf.read_bytes())
    marker = tmp_path / "reached"
    worker = crashing.start(mode, target, marker, "b-crash", inbox.folder)
    crashing.reached(worker, marker)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()

    settings = Settings.from_env()
    ledger = settings.ledger()
    before = {j.sha256: j for j in ledger.jobs("b-crash")}
    assert (before[target].status, before[target].attempts) == (Status.PROCESSING, 1)

    result = recover(after_lease(settings))  # the dead worker's lease has run out
    assert before[target].job_id in result["reclaimed"]
    assert result["resumed"] == {"b-crash": "Completed With Warnings"}
    assert result["crashed_flow_runs"] == ["b-crash"]

    jobs = ledger.jobs("b-crash")
    assert all(j.status in (Status.SUCCEEDED, Status.FAILED) for j in jobs)
    for j in jobs:
        outcomes = [a.outcome for a in ledger.attempts(j.job_id)]
        assert j.attempts == len(outcomes)
        assert all(o == Outcome.CRASHED for o in outcomes[:-1]), outcomes
        assert outcomes[-1] in (Outcome.SUCCEEDED, Outcome.FAILED)
    after = {j.sha256: j for j in jobs}
    assert (after[target].status, after[target].attempts) == (Status.SUCCEEDED, 2)
    assert [a.outcome for a in ledger.attempts(after[target].job_id)] == [
        Outcome.CRASHED, Outcome.SUCCEEDED]
    finished_before = [s for s, j in before.items() if j.status.terminal]
    assert all(after[s].attempts == before[s].attempts for s in finished_before)
    checks = check_outputs(jobs, settings.storage())
    assert checks["ok"], checks


def test_recover_leaves_a_live_batch_alone(stmtflow_home: Path, inbox) -> None:
    from flows.jobs import accept_batch

    settings = Settings.from_env()
    good = [str(s.pdf) for s in inbox.samples if s.reason is None][:3]
    dead, live, _ = accept_batch(settings, "b-mixed", good, None)
    ledger = settings.ledger()
    ledger.claim(dead.job_id, "worker-that-died")
    assert after_lease(settings).ledger().reclaim() == [dead.job_id]
    assert abandoned(ledger) == ["b-mixed"]
    ledger.claim(live.job_id, "worker-still-running")  # its run is alive
    assert abandoned(ledger) == []


@pytest.mark.parametrize(("state", "taken_over"), [("Running", False), ("Crashed", True)])
def test_recover_takes_a_leased_batch_only_from_a_run_prefect_saw_end(
        state: str, taken_over: bool, stmtflow_home: Path, inbox) -> None:
    """A batch whose lease has not run out is left to its run, unless Prefect says that run
    ended (the zombie automation marked it Crashed): then nobody renews it any more."""
    from prefect import flow, get_client
    from prefect.states import Crashed, Running
    from prefect.utilities.asyncutils import run_coro_as_sync

    from flows.jobs import accept_batch

    @flow
    def holder() -> None:
        """Stands for the import run that took the batch."""

    async def create() -> str:
        async with get_client() as client:
            made = Running() if state == "Running" else Crashed(message="no heartbeat")
            return str((await client.create_flow_run(holder, state=made)).id)

    settings = Settings.from_env()
    accept_batch(settings, "b-leased", [str(s.pdf) for s in inbox.samples[:2]], None)
    ledger = settings.ledger()
    ledger.take_batch("b-leased", run_coro_as_sync(create()))
    assert abandoned(ledger) == (["b-leased"] if taken_over else [])
    assert abandoned(after_lease(settings).ledger()) == ["b-leased"]


def test_the_recover_flow_finishes_the_batch_of_a_crashed_run_and_says_so(
        stmtflow_home: Path, inbox, tmp_path: Path, faults: Faults) -> None:
    """What the automation on a Crashed batch run starts: `recover` with the run's id, no
    lease waited out, named, tagged and linked like the run it continues."""
    from uuid import UUID

    from prefect import get_client
    from prefect.states import Crashed
    from prefect.utilities.asyncutils import run_coro_as_sync

    from flows.recover import recover_batches

    good = [s for s in inbox.samples if s.reason is None]
    target = sha256(good[2].pdf.read_bytes())
    marker = tmp_path / "reached"
    worker = crashing.start("mid-attempt", target, marker, "b-crashed", inbox.folder)
    crashing.reached(worker, marker)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    ledger = Settings.from_env().ledger()
    batch = ledger.batch("b-crashed")
    assert batch is not None and batch.flow_run_id
    crashed = batch.flow_run_id

    async def crash_and_read(state: object | None) -> object:
        async with get_client() as client:
            if state is not None:
                await client.set_flow_run_state(UUID(crashed), state, force=True)
            return await client.read_flow_run(UUID(crashed))

    # still Running (not yet taken for a zombie): the recovery leaves it alone
    left = recover_batches(flow_run_id=f"prefect.flow-run.{crashed}", return_state=True)
    assert left.is_completed() and "left to it" in left.message
    assert ledger.job(next(j.job_id for j in ledger.jobs("b-crashed")
                           if j.sha256 == target)).status == Status.PROCESSING

    dead = run_coro_as_sync(crash_and_read(Crashed(message="no heartbeat")))
    state = recover_batches(flow_run_id=f"prefect.flow-run.{crashed}", return_state=True)
    assert state.is_completed(), state.message
    assert state.result()["resumed"] == {"b-crashed": "Completed With Warnings"}
    jobs = {j.sha256: j for j in ledger.jobs("b-crashed")}
    assert (jobs[target].status, jobs[target].attempts) == (Status.SUCCEEDED, 2)
    assert [a.outcome for a in ledger.attempts(jobs[target].job_id)] == [
        Outcome.CRASHED, Outcome.SUCCEEDED]
    assert all(j.status.terminal for j in jobs.values())

    async def read_recovery() -> tuple[object, list[object]]:
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

        async with get_client() as client:
            run = await client.read_flow_run(state.state_details.flow_run_id)
            links = await client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
            return run, links

    run, links = run_coro_as_sync(read_recovery())
    assert run.name == f"recover-{dead.name}"
    assert "recover" in run.tags
    assert {f"bank:{j.bank}" for j in jobs.values() if j.bank} <= set(run.tags)
    assert any(crashed in str(a.data) for a in links)
