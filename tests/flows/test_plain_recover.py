"""`stmtflow recover`, naming no batch, finishes every batch whose run died before closing it.

The import is the real CLI in its own process on the embedded API's stand-in (the test
server), killed by SIGKILL while it lists its source, accepts its files or derives the
batch's state: its flow run stays `Running` (nothing sends a heartbeat for it) and no job
holds a lease, so only the batch's own lease running out says the run is dead. The recovery
is the real `stmtflow recover` in its own process, reading the real clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import crashing
import pytest
from faults import Faults
from test_kill_points import killed_batch, recovered_exactly

from flows.config import Settings
from flows.import_flow import WARNINGS
from flows.recover import recover
from parsers.codes import BatchState, Outcome, Status
from reconcile.ledger import Ledger
from reconcile.records import utc_now
from reconcile.storage import sha256
from tests.pids import alive


def leases_run_out(ledger: Ledger, batch_id: str) -> None:
    """Wait until no lease taken for the batch (its own, its jobs') is still running."""
    while True:
        batch = ledger.batch(batch_id)
        assert batch is not None
        leases = [batch.lease_until] + [j.lease_until for j in ledger.jobs(batch_id)]
        if all(t is None or t < utc_now() for t in leases):
            return
        time.sleep(0.2)


def plain_recover() -> dict[str, Any]:
    """`stmtflow recover --json`, naming no batch."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    done = subprocess.run([sys.executable, "-m", "flows.cli", "recover", "--json"], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("point", ["listing", "acceptance", "close"])
def test_recover_finishes_a_batch_killed_before_any_job_was_held(
        point: str, stmtflow_home: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "3")
    settings, batch_id, samples, before = killed_batch(point, tmp_path / "inbox")
    ledger = settings.ledger()
    leases_run_out(ledger, batch_id)

    result = plain_recover()

    assert result["resumed"] == {batch_id: WARNINGS}
    assert result["crashed_flow_runs"] == [batch_id]  # its run was left Running
    recovered_exactly(settings, batch_id, samples, before)
    batch = ledger.batch(batch_id)
    assert batch is not None and batch.state in (BatchState.COMPLETED,
                                                 BatchState.COMPLETED_WITH_WARNINGS)
    jobs = ledger.jobs(batch_id)
    # no statement imported twice: one success per input, each after one successful attempt
    succeeded = Counter(j.sha256 for j in jobs if j.status == Status.SUCCEEDED)
    assert succeeded and set(succeeded.values()) == {1}
    assert all([a.outcome for a in ledger.attempts(j.job_id)].count(Outcome.SUCCEEDED) <= 1
               for j in jobs)
    # every accepted input is still stored, as its digest says, and the source is untouched
    storage = settings.storage()
    for j in jobs:
        if j.input_uri is not None:
            storage.read_input(j.input_uri, j.sha256)
    assert all(s.pdf.exists() for s in samples)
    # a second sweep finds nothing left to do
    assert plain_recover()["resumed"] == {}


def test_recover_leaves_a_batch_whose_run_is_alive_alone(
        stmtflow_home: Path, inbox, tmp_path: Path, faults: Faults,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A run still accepting its source holds no job, only its batch's lease, which it
    renews: `stmtflow recover` leaves it alone for as long as it lives, and finishes its
    batch once it is killed."""

    monkeypatch.setenv("STMTFLOW_LEASE_SECONDS", "6")
    good = [s for s in inbox.samples if s.reason is None]
    target = sha256(good[3].pdf.read_bytes())
    marker = tmp_path / "reached"
    worker = crashing.start("acceptance", target, marker, "b-live", inbox.folder)
    settings = Settings.from_env()
    ledger = settings.ledger()
    try:
        crashing.reached(worker, marker)
        seen = ledger.batch("b-live")
        assert seen is not None and seen.lease_until is not None and seen.flow_run_id
        while utc_now() <= seen.lease_until:
            time.sleep(0.2)  # the lease seen has run out: only a renewal keeps the run alive
        jobs = ledger.jobs("b-live")
        assert jobs and all(j.status == Status.QUEUED for j in jobs)

        result = recover(settings)

        assert (result["resumed"], result["crashed_flow_runs"]) == ({}, [])
        now = ledger.batch("b-live")
        assert now is not None and now.lease_until > seen.lease_until
        assert (now.epoch, now.accepted_at, now.state) == (seen.epoch, None,
                                                           BatchState.PROCESSING)
        assert ledger.jobs("b-live") == jobs
        assert flow_run_state(seen.flow_run_id).is_running()
        assert alive(worker.pid)
    finally:
        worker.kill()
        worker.wait()

    leases_run_out(ledger, "b-live")
    result = recover(settings)
    assert result["resumed"] == {"b-live": WARNINGS}
    assert result["crashed_flow_runs"] == ["b-live"]
    assert flow_run_state(seen.flow_run_id).is_crashed()
    jobs = ledger.jobs("b-live")
    assert sorted(j.source_uri for j in jobs) == sorted(str(s.pdf) for s in inbox.samples)
    assert all(j.status.terminal for j in jobs)
    batch = ledger.batch("b-live")
    assert batch is not None and batch.state == BatchState.COMPLETED_WITH_WARNINGS


def flow_run_state(flow_run_id: str) -> Any:
    from prefect import get_client
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def read() -> Any:
        async with get_client() as client:
            return (await client.read_flow_run(UUID(flow_run_id))).state

    return run_coro_as_sync(read())
