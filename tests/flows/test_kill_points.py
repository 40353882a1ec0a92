"""kill -9 of an import at each point that matters, then recovery: nothing lost, nothing twice.

The import is the real CLI in its own process, killed by SIGKILL at a named point
(`flows.crashpoint`); the recovery is `stmtflow recover --batch` (its function) or, for some
points, a Retry of the killed flow run (what the UI's Retry sets, then the same flow run run
again by Prefect's engine), against the same real Prefect server, SQLite ledger and storage.
Afterwards every file of the source has one terminal job, each job's attempts are exactly its
attempt rows (a killed attempt counts, as `crashed`), no job succeeded twice, every ended job
was notified once, and the batch's state is what its jobs say.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_cli import cli
from test_crash_recovery import after_lease

from corpus import Sample, generate
from flows.config import Settings
from flows.crashpoint import POINTS
from flows.import_flow import WARNINGS, import_batch
from flows.recover import recover
from parsers.codes import BatchState, Outcome, Status
from reconcile.output_checks import check_outputs
from reconcile.records import Job, utc_now
from reconcile.storage import sha256

#: two banks drawn with a text layer (fast to read), and one file that is no PDF
BANKS = ("bluebird", "northwind")
#: where each point kills: the acceptance point after the second file of four
SPECS = {p: p for p in POINTS} | {"acceptance": "acceptance:2"}


def killed_import(folder: Path, spec: str) -> None:
    """`stmtflow import FOLDER` in its own process, which kills itself at `spec`."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "STMTFLOW_CRASH_AT": spec}
    done = subprocess.run([sys.executable, "-m", "flows.cli", "import", str(folder)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def notified_jobs(settings: Settings) -> set[str]:
    from sqlalchemy import select

    from reconcile.db import notifications

    with settings.engine().connect() as c:
        return {r for (r,) in c.execute(select(notifications.c.job_id).where(
            notifications.c.delivered_at.is_not(None)))}


def at_the_kill(point: str, settings: Settings, batch_id: str, jobs: list[Job]) -> None:
    """What the ledger shows when the process died: the seam hit where it says."""
    batch = settings.ledger().batch(batch_id)
    assert batch is not None and batch.state == BatchState.PROCESSING
    accepted = batch.accepted_at is not None
    status = {j.status for j in jobs}
    if point == "listing":
        assert (jobs, accepted) == ([], False)
    elif point == "acceptance":
        assert (len(jobs), status, accepted) == (2, {Status.QUEUED}, False)
    elif point in ("parse", "written"):
        assert accepted and Status.PROCESSING in status
    elif point == "succeeded":
        succeeded = {j.job_id for j in jobs if j.status == Status.SUCCEEDED}
        assert accepted and succeeded and not succeeded & notified_jobs(settings)
    else:
        assert accepted and all(j.status.terminal for j in jobs)


def killed_batch(point: str, folder: Path) -> tuple[Settings, str, list[Sample], dict[str, Job]]:
    """A batch of generated statements in `folder` whose `stmtflow import` was killed at
    `point`, checked as the kill left it: the settings, the batch, the samples and the jobs
    by source."""
    samples = generate(folder, BANKS, 3, seed=13, bad=("not-a-pdf",))
    settings = Settings.from_env()
    killed_import(folder, SPECS[point])
    ledger = settings.ledger()
    batch_id = ledger.latest_batch()
    assert batch_id is not None
    before = {j.source_uri: j for j in ledger.jobs(batch_id)}
    at_the_kill(point, settings, batch_id, list(before.values()))
    return settings, batch_id, samples, before


def retried() -> Any:
    """Retry the newest import run, killed while Running: the UI's Retry, then the run."""
    from prefect import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.flow_engine import run_flow
    from prefect.states import AwaitingRetry
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def again() -> Any:
        async with get_client() as client:
            [run] = await client.read_flow_runs(
                flow_filter=FlowFilter(name=FlowFilterName(any_=["import-batch"])),
                sort=FlowRunSort.START_TIME_DESC, limit=1)
            assert run.state is not None and run.state.is_running()
            await client.set_flow_run_state(run.id, AwaitingRetry(), force=True)
            return await client.read_flow_run(run.id)

    run = run_coro_as_sync(again())
    return run_flow(import_batch, flow_run=run, parameters=run.parameters, return_type="state")


@pytest.mark.parametrize(("point", "recovery"), [(p, "recover") for p in POINTS] + [
    ("acceptance", "retry"), ("written", "retry")])
def test_a_batch_killed_at_any_point_is_recovered_exactly(
        point: str, recovery: str, stmtflow_home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")  # the parse pool is not under test
    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "5")
    settings, batch_id, samples, before = killed_batch(point, tmp_path / "inbox")
    ledger = settings.ledger()

    if recovery == "retry":
        assert retried().name == WARNINGS
    else:  # the dead run's leases ran out
        assert recover(after_lease(settings), [batch_id])["resumed"] == {batch_id: WARNINGS}

    recovered_exactly(settings, batch_id, samples, before)
    batch = ledger.batch(batch_id)
    assert batch is not None and batch.state == BatchState.COMPLETED_WITH_WARNINGS


@pytest.mark.parametrize("point", ["acceptance", "parse", "close"])
def test_a_plain_import_again_after_a_kill_finishes_within_a_lease_plus_the_work(
        point: str, stmtflow_home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The files the dead batch holds come back as duplicates of its jobs: none waits for
    the dead run past its leases, each runs its holder's job itself."""
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "5")
    settings, batch_id, samples, before = killed_batch(point, tmp_path / "inbox")

    started = time.monotonic()
    again = cli("import", str(tmp_path / "inbox"), "--json")
    print(f"import again after a kill at {point}: {time.monotonic() - started:.1f} s")
    assert again.returncode == 0, again.stderr[-2000:]
    rerun = json.loads(again.stdout)
    assert rerun["state"] == "COMPLETED_WITH_WARNINGS"
    ledger = settings.ledger()
    assert all(j.status.terminal for j in ledger.jobs(batch_id))  # none left to a recover
    parsed_here = {j["job_id"] for j in rerun["jobs"] if j["status"] != Status.DUPLICATE}

    assert recover(after_lease(settings), [batch_id])["resumed"] == {batch_id: WARNINGS}
    recovered_exactly(settings, batch_id, samples, before, notified_also=parsed_here)
    report = json.loads(cli("reconcile", "--json").stdout)
    assert report["state"] == "accounted", report["contradictions"]


def recovered_exactly(settings: Settings, batch_id: str, samples: list[Sample],
                      before: dict[str, Job], notified_also: set[str] = frozenset()) -> None:
    """After the recovery: every file of the source has one terminal job, ended as it should;
    attempts are exact (the killed attempt counts once, as crashed); no job that had ended
    changed; the outputs check; every ended job was notified (with `notified_also`, jobs of
    another batch, which a file accepted after the kill may duplicate); the source is
    accepted."""
    ledger = settings.ledger()
    jobs = ledger.jobs(batch_id)
    assert sorted(j.source_uri for j in jobs) == sorted(str(s.pdf) for s in samples)
    expected = {str(s.pdf): s.reason for s in samples}
    for j in jobs:
        reason = expected[j.source_uri]
        end = ledger.outcome_of(j) if j.duplicate_of in notified_also else j
        assert (end.status, end.reason) == ((Status.SUCCEEDED, None) if reason is None else
                                            (Status.FAILED, reason)), j
    jobs = [j for j in jobs if j.status != Status.DUPLICATE]
    for j in jobs:
        outcomes = [a.outcome for a in ledger.attempts(j.job_id)]
        was = before.get(j.source_uri)
        killed = was is not None and was.status == Status.PROCESSING
        assert outcomes == [Outcome.CRASHED] * killed + [
            Outcome.SUCCEEDED if j.status == Status.SUCCEEDED else Outcome.FAILED], (j, outcomes)
        assert j.attempts == len(outcomes)
        if was is not None and was.status.terminal:
            assert j == was, "a job that had ended changed"
    assert check_outputs(ledger.jobs(), settings.storage())["ok"]
    # every ended job notified, the one whose notification the kill cut off included
    assert notified_jobs(settings) == {j.job_id for j in jobs} | notified_also
    batch = ledger.batch(batch_id)
    assert batch is not None and batch.accepted_at is not None


def stored(root: Path) -> dict[str, tuple[str, int]]:
    """Every object of local storage: key -> (sha256, mtime in ns)."""
    return {p.relative_to(root).as_posix(): (sha256(p.read_bytes()), p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def stopped(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


def test_a_worker_stopped_past_its_lease_changes_nothing_when_it_wakes(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "3")
    # one file at a time: a second thread stopped inside a ledger transaction would hold
    # SQLite's write lock, which stops everyone (no lease helps), not only the stale worker
    monkeypatch.setenv("STMTFLOW_WORKERS", "1")
    folder = tmp_path / "inbox"
    generate(folder, BANKS, 3, seed=17)  # all good: the stopped parse is one that writes
    settings = Settings.from_env()
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "STMTFLOW_CRASH_AT": "stop:parse"}
    stale = subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not stopped(stale.pid):
            assert stale.poll() is None, "the import ended before it reached the parse"
            time.sleep(0.2)
        ledger = settings.ledger()
        batch_id = ledger.latest_batch()
        assert batch_id is not None
        held = [j for j in ledger.jobs(batch_id) if j.status == Status.PROCESSING]
        assert held
        taken = ledger.batch(batch_id)
        assert taken is not None and taken.lease_until is not None
        while any(t is None or t >= utc_now()
                  for t in [taken.lease_until] + [j.lease_until for j in held]):
            time.sleep(0.2)  # the stopped worker renews nothing: its leases run out

        result = recover(settings)  # a batch with a job reclaimed from a dead lease

        assert result["resumed"] == {batch_id: "Completed"}
        jobs, batch = ledger.jobs(batch_id), ledger.batch(batch_id)
        assert batch is not None and batch.state == BatchState.COMPLETED
        assert all(j.status.terminal for j in jobs)
        attempts = {j.job_id: ledger.attempts(j.job_id) for j in jobs}
        objects = stored(stmtflow_home / "storage")
        sent = notified_jobs(settings)

        os.kill(stale.pid, signal.SIGCONT)
        stale.wait(timeout=300)
    finally:
        if stale.poll() is None:
            stale.kill()
            stale.wait()

    assert ledger.jobs(batch_id) == jobs
    assert {j.job_id: ledger.attempts(j.job_id) for j in jobs} == attempts
    assert ledger.batch(batch_id) == batch
    assert notified_jobs(settings) == sent
    after = stored(stmtflow_home / "storage")
    assert {k: v for k, v in after.items() if k in objects} == objects
    # what the stale attempt wrote lies under its own attempt's key, named by no success
    named = {j.output_uri.rsplit("/", 1)[0] for j in jobs if j.output_uri}
    stale_prefixes = {f"results/{j.job_id}/1-" for j in held}
    written = set(after) - set(objects)
    assert written, "the stale worker woke and ran its attempt to the end"
    for key in written:
        assert any(key.startswith(p) for p in stale_prefixes), key
        assert not any(key.startswith(settings.storage().key(n)) for n in named), key
    assert check_outputs(jobs, settings.storage())["ok"]
