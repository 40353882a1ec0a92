"""A starting run reclaims its batch's jobs from runs that are gone, never from live ones.

The dead holder is a real flow run on the test server, in a state that no longer runs (what
a Retry finds after the zombie automation marked its run Crashed); the live one is Running.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from prefect import flow, get_client, task
from prefect.states import Crashed, Running, State
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.config import Settings
from flows.import_flow import resume_batch
from flows.jobs import accept_batch
from flows.leases import kept, reclaim_from_dead_runs
from parsers.codes import Outcome, Status
from reconcile.db import make_engine
from reconcile.ledger import Claim, Ledger
from reconcile.records import Identities


@flow
def holder() -> None:
    """Stands for the import run that held the lease."""


@task
def parse_attempt() -> None:
    """Stands for the task run that made the attempt."""


def task_run_in_run(state: State) -> tuple[str, str]:
    """A flow run in `state` with one task run: (flow run id, task run id)."""

    async def create() -> tuple[str, str]:
        async with get_client() as client:
            run = await client.create_flow_run(holder, state=state)
            task_run = await client.create_task_run(parse_attempt, flow_run_id=run.id,
                                                    dynamic_key="0")
            return str(run.id), str(task_run.id)

    return run_coro_as_sync(create())


@pytest.fixture
def batch(stmtflow_home: Path, inbox) -> list[str]:
    """A batch of three good statements and one file that is not a PDF."""
    bad = next(s for s in inbox.samples if s.reason is not None)
    good = [s for s in inbox.samples if s.reason is None][:3]
    accepted = accept_batch(Settings.from_env(), "b-retry",
                            [str(s.pdf) for s in good] + [str(bad.pdf)], None)
    return [a.job_id for a in accepted]


def test_a_resumed_batch_finishes_the_jobs_a_crashed_run_held(batch: list[str]) -> None:
    ledger = Settings.from_env().ledger()
    dead_run, dead_task = task_run_in_run(Crashed(message="its worker was killed"))
    ledger.take_batch("b-retry", dead_run)
    held = batch[1]
    assert ledger.claim(held, "host:1:dead", dead_task) is not None

    state = resume_batch("b-retry", return_state=True)

    assert state.name == "Completed With Warnings", state.message
    job = ledger.job(held)
    assert (job.status, job.attempts) == (Status.SUCCEEDED, 2)
    assert [a.outcome for a in ledger.attempts(held)] == [Outcome.CRASHED, Outcome.SUCCEEDED]
    jobs = ledger.jobs("b-retry")
    assert all(j.status.terminal and j.attempts == 1 for j in jobs if j.job_id != held)

    async def dead_task_state() -> Any:
        async with get_client() as client:
            return (await client.read_task_run(UUID(dead_task))).state

    assert run_coro_as_sync(dead_task_state()).is_crashed()
    run, logs = run_and_logs(state.state_details.flow_run_id)
    assert {"resume"} | {f"bank:{j.bank}" for j in jobs if j.bank} <= set(run.tags)
    failed = next(j for j in jobs if j.status == Status.FAILED)
    warnings = [x.message for x in logs if x.level == logging.WARNING]
    assert [m for m in warnings if failed.job_id in m and str(failed.reason) in m]
    assert [x.message for x in logs if x.level >= logging.ERROR] == []
    assert any("validated" in x.message and "****" in x.message for x in logs)


def run_and_logs(flow_run_id: UUID) -> tuple[Any, list[Any]]:
    """The flow run and its logs, once the logs of its last task have arrived."""
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    async def read() -> tuple[Any, list[Any]]:
        async with get_client() as client:
            return (await client.read_flow_run(flow_run_id), await client.read_logs(
                LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id]))))

    deadline = time.monotonic() + 60
    while True:
        run, logs = run_coro_as_sync(read())
        if any("Finished in state" in x.message and x.task_run_id is None for x in logs) \
                or time.monotonic() > deadline:
            return run, logs
        time.sleep(1)


def test_a_job_held_by_a_running_run_is_left_alone(batch: list[str]) -> None:
    ledger = Settings.from_env().ledger()
    _, live_task = task_run_in_run(Running())
    assert ledger.claim(batch[0], "host:2:live", live_task) is not None

    assert reclaim_from_dead_runs(ledger, "b-retry", this_run=None) == []
    assert ledger.job(batch[0]).status == Status.PROCESSING


def test_this_run_started_again_reclaims_what_it_held_before(batch: list[str]) -> None:
    ledger = Settings.from_env().ledger()
    run_id, task_id = task_run_in_run(Running())  # a Retry runs the same flow run again
    assert ledger.claim(batch[0], "host:3:before-retry", task_id) is not None

    assert reclaim_from_dead_runs(ledger, "b-retry", this_run=run_id) == [batch[0]]
    assert ledger.job(batch[0]).status == Status.RETRYING


def test_a_task_run_the_server_never_heard_of_is_the_dead_previous_runs(
        batch: list[str]) -> None:
    """A process killed right after its claim sent no task-run event: its attempt names a
    task run the server does not know. It is the previous run's when that run is dead and
    the attempt began before it ended; the same unknown holder is left alone while the
    previous run still runs, or when the attempt began after it ended."""
    from uuid import uuid4

    ledger = Settings.from_env().ledger()
    live_run, _ = task_run_in_run(Running())
    dead_run, _ = task_run_in_run(Crashed(message="its worker was killed"))
    ledger.take_batch("b-retry", dead_run)
    assert ledger.claim(batch[0], "host:4:unsent", str(uuid4())) is not None
    assert reclaim_from_dead_runs(ledger, "b-retry", None, previous_run=live_run) == []
    # the claim came after the dead run ended: another run's, whose events may be on the way
    assert reclaim_from_dead_runs(ledger, "b-retry", None, previous_run=dead_run) == []

    async def crash_again() -> None:  # the run ends (again) after the claim
        async with get_client() as client:
            await client.set_flow_run_state(UUID(dead_run), Crashed(message="again"),
                                            force=True)

    run_coro_as_sync(crash_again())
    state = resume_batch("b-retry", return_state=True)
    assert state.name == "Completed With Warnings", state.message
    job = ledger.job(batch[0])
    assert (job.status, job.attempts) == (Status.SUCCEEDED, 2)
    assert [a.outcome for a in ledger.attempts(batch[0])] == [Outcome.CRASHED,
                                                              Outcome.SUCCEEDED]


def _claimed(ledger: Ledger, name: str) -> str:
    """A job of its own batch, accepted and claimed by `w-{name}`."""
    ledger.open_batch(f"b-{name}", "test", None)
    job = ledger.accept(f"b-{name}", source_uri=f"file:///{name}.pdf", input_uri=f"mem://{name}",
                        size=1, sha256=name.encode().hex().ljust(64, "0"), bank_hint=None,
                        ids=Identities("chain", "ocr", "policy"),
                        queue_limit=timedelta(hours=1)).job_id
    assert ledger.claim(job, f"w-{name}") is not None
    return job


def test_parses_at_once_keep_their_leases_from_one_thread(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/ledger.db")
    short, long = (Ledger(engine, lease=timedelta(seconds=s)) for s in (0.3, 0.6))
    jobs = [_claimed(short, "one"), _claimed(short, "two"), _claimed(long, "three")]
    before = threading.active_count()
    with ExitStack() as held:
        for ledger, job in zip((short, short, long), jobs, strict=True):
            [attempt] = ledger.attempts(job)
            held.enter_context(kept(ledger, Claim(job, attempt.lease_owner, 1)))
        time.sleep(1.5)  # over two of the longer lease, five of the shorter
        assert short.reclaim() == [] and threading.active_count() <= before + 1
    time.sleep(0.8)  # no longer renewed: the sweep takes all three
    assert sorted(short.reclaim()) == sorted(jobs)


def test_a_long_parse_keeps_its_lease(tmp_path: Path) -> None:
    ledger = Ledger(make_engine(f"sqlite:///{tmp_path}/ledger.db"), lease=timedelta(seconds=0.3))
    ledger.open_batch("b-long", "test", None)
    job = ledger.accept("b-long", source_uri="file:///long.pdf", input_uri="mem://long",
                        size=1, sha256="0" * 64, bank_hint=None,
                        ids=Identities("chain", "ocr", "policy"),
                        queue_limit=timedelta(hours=1)).job_id
    claim = ledger.claim(job, "w-long")
    assert claim is not None
    with kept(ledger, claim):
        time.sleep(1.0)  # over three leases
        assert ledger.reclaim() == []
    time.sleep(0.5)  # no longer renewed: the sweep takes it
    assert ledger.reclaim() == [job]
