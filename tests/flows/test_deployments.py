"""Deployments against a real `prefect server` with a process work pool and a worker."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings

from corpus import BASIC_BAD, generate
from deployments.specs import PREFECT_YAML, PULL, load, render_prefect_yaml, specs
from flows.import_flow import WARNINGS
from flows.recover import BATCH_FLOWS
from flows.setup import ALERTS, OUTCOMES, RECOVERY, RERUN, ZOMBIES, zombie_automation
from tests.pids import state

ROOT = PREFECT_YAML.parent


def test_prefect_yaml_is_rendered_from_the_bank_settings() -> None:
    assert PREFECT_YAML.read_text() == render_prefect_yaml()


def test_the_stmtflow_command_has_the_deployment_commands(
        capsys: pytest.CaptureFixture[str]) -> None:
    from deployments.cli import main

    assert main(["deployments", "render", "--check"]) == 0
    assert "prefect.yaml is current" in capsys.readouterr().out


def test_a_schedule_for_a_bank_no_template_describes_is_refused() -> None:
    config = load()
    config["bank"].append({"id": "cedar", "cron": "0 6 1 * *", "timezone": "UTC",
                           "inbox": "inbox/cedar"})
    with pytest.raises(ValueError, match="cedar"):
        specs(config)
    in_force = [b["id"] for b in config["bank"]]
    assert "import-cedar" in {s["name"] for s in specs(config, in_force)}


@pytest.mark.parametrize("state", ["Completed", WARNINGS, "Failed", "Crashed", "Cancelled",
                                   "TimedOut", "AwaitingRetry"])
def test_the_zombie_trigger_is_cleared_by_a_run_ending_in_any_state(state: str) -> None:
    from prefect.server.events.schemas.events import matches

    trigger = zombie_automation().trigger
    assert any(matches(a, "prefect.flow-run.heartbeat") for a in trigger.after)
    assert any(matches(e, f"prefect.flow-run.{state}") for e in trigger.expect)
    assert not any(matches(e, "prefect.task-run.Completed") for e in trigger.expect)


def test_an_automation_read_back_with_its_events_in_another_order_is_unchanged() -> None:
    """setup leaves an automation alone when nothing changed: a trigger's events are a set,
    which another process (the server, the next setup) may build in another order, and so
    list in another order. Thirty events make the orders differ, whatever the hash seed."""
    from datetime import timedelta
    from uuid import uuid4

    from prefect.automations import Automation
    from prefect.events.actions import SendNotification
    from prefect.events.schemas.automations import EventTrigger, Posture

    from flows.setup import _same

    names = [f"stmtflow.test.event-{n}" for n in range(30)]
    built = Automation(name="events", trigger=EventTrigger(
        expect=set(names), posture=Posture.Reactive, threshold=1, within=timedelta(0)),
        actions=[SendNotification(block_document_id=uuid4(), subject="s", body="b")])
    stored = built.model_dump(mode="json")
    stored["trigger"]["expect"] = list(reversed(names))
    read_back = Automation.model_validate(stored)
    assert read_back.model_dump(mode="json") != built.model_dump(mode="json")  # as listed
    assert _same(built, read_back)
    stored["trigger"]["expect"] = names[1:]
    assert not _same(built, Automation.model_validate(stored))


def test_serve_builds_every_deployment_with_its_schedule() -> None:
    from deployments.serve import runner_deployments

    built = {d.name: d for d in runner_deployments()}
    for spec in specs():
        d = built[spec["name"]]
        assert [(s.schedule.cron, s.schedule.timezone) for s in d.schedules] == [
            (s["cron"], s["timezone"]) for s in spec["schedules"]]
        assert d.parameters == spec["parameters"] and d.tags == spec["tags"]


def test_serve_registers_every_deployment_with_its_schedule(stmtflow_home: Path) -> None:
    """`stmtflow serve` against the session's API server, until its deployments appear."""
    from prefect import get_client
    from prefect.utilities.asyncutils import run_coro_as_sync

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    proc = subprocess.Popen([sys.executable, "-m", "deployments.cli", "serve"], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def read():
        async with get_client() as client:
            return {d.name: d for d in await client.read_deployments()}

    try:
        deadline = time.monotonic() + 120
        wanted = {s["name"] for s in specs()}
        while not wanted <= set(served := run_coro_as_sync(read())):
            assert proc.poll() is None, "stmtflow serve exited"
            assert time.monotonic() < deadline, "stmtflow serve registered no deployments"
            time.sleep(0.5)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a loaded machine: its shutdown is not under test
            proc.kill()
            proc.wait(timeout=30)
    for spec in specs():
        d = served[spec["name"]]
        assert d.work_pool_name is None  # served by the process itself, no work pool
        assert [(x.schedule.cron, x.schedule.timezone) for x in d.schedules] == [
            (x["cron"], x["timezone"]) for x in spec["schedules"]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory,
           prefect_database_url: str) -> Iterator[dict[str, str]]:
    """`prefect server start` in its own PREFECT_HOME, on a free loopback port, its database
    on PostgreSQL: on SQLite, under a loaded machine's write contention, the server drops
    events its automations wait for (see the recovery test)."""
    home = tmp_path_factory.mktemp("server-home")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": url,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
           "STMTFLOW_HOME": str(home / "stmtflow"), "PREFECT_WORKER_QUERY_SECONDS": "1"}
    with open(home / "server.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host",
                                 "127.0.0.1", "--port", str(port)],
                                env={**env, "PREFECT_API_DATABASE_CONNECTION_URL":
                                     prefect_database_url},
                                stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + int(
        os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"])
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        assert proc.poll() is None, "prefect server exited"
        assert time.monotonic() < deadline, "prefect server did not become healthy"
        time.sleep(0.5)
    yield env
    proc.terminate()
    proc.wait(timeout=30)


def test_setup_deploys_everything_and_a_worker_imports_an_inbox(
        server: dict[str, str], tmp_path: Path) -> None:
    from prefect import get_client
    from prefect.deployments import run_deployment
    from prefect.utilities.asyncutils import run_coro_as_sync

    def setup() -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "flows.cli", "setup", "--alert-webhook",
                               "http://127.0.0.1:9/alerts"], env=server, cwd=ROOT,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    async def read():
        async with get_client() as client:
            return (await client.read_deployments(),
                    await client.read_automations_by_name(ZOMBIES),
                    await client.read_automations_by_name(ALERTS),
                    await client.read_automations_by_name(RECOVERY))

    first = setup()
    assert first["automations"] == {ZOMBIES: "created", RECOVERY: "created", RERUN: "created",
                                    ALERTS: "created", OUTCOMES: "created"}
    inboxes = {s["parameters"]["source"] for s in specs() if s["name"].startswith("import-")}
    assert set(first["inboxes"]) == inboxes and first["server_problems"] == []
    assert set(first["inboxes"].values()) <= {"created", "exists"}
    assert all((ROOT / inbox).is_dir() for inbox in inboxes)
    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        before = run_coro_as_sync(read())
    second = setup()  # safe to run again: everything in place, nothing deleted
    assert second["automations"] == dict.fromkeys(first["automations"], "unchanged")
    assert second["inboxes"] == dict.fromkeys(inboxes, "exists")

    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        deployments, zombies, alerts, recovery = run_coro_as_sync(read())
        assert sorted(d.id for d in deployments) == sorted(d.id for d in before[0])
        assert [a.id for a in zombies + alerts + recovery] == [
            a.id for a in before[1] + before[2] + before[3]]
        by_name = {d.name: d for d in deployments}
        for spec in specs():
            d = by_name[spec["name"]]
            assert d.work_pool_name == "stmtflow"
            assert d.pull_steps == PULL  # no path of this checkout: any worker's own
            assert [(s.schedule.cron, s.schedule.timezone) for s in d.schedules] == [
                (s["cron"], s["timezone"]) for s in spec["schedules"]]
            limit = d.global_concurrency_limit  # one import per bank at a time
            assert (limit.limit if limit else None) == (
                1 if spec["name"].startswith("import-") else None)
        assert len(zombies) == 1 and len(alerts) == 1 and len(recovery) == 1
        assert alerts[0].trigger.expect == {"stmtflow.alert.*"}
        # a crashed batch run starts the `recover` deployment with the run's id
        trigger, (action,) = recovery[0].trigger, recovery[0].actions
        assert trigger.expect == {"prefect.flow-run.Crashed"}
        assert trigger.match_related.root["prefect.resource.name"] == list(BATCH_FLOWS)
        assert action.deployment_id == by_name["recover"].id
        assert action.parameters == {"flow_run_id": "{{ event.resource.id }}"}

        served = subprocess.run([sys.executable, "-m", "deployments.cli", "serve"], env=server,
                                cwd=ROOT, capture_output=True, text=True, timeout=120,
                                check=False)
        assert served.returncode == 1 and "work pool" in served.stderr, served.stderr

        inbox = tmp_path / "inbox"
        samples = generate(inbox, ("northwind",), 3, seed=12, bad=BASIC_BAD)
        worker = subprocess.Popen(
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", "stmtflow",
             "--limit", "1"], env={**server, "PWD": str(ROOT)}, cwd=ROOT, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            run = run_deployment("import-batch/import-northwind",
                                 parameters={"source": str(inbox)}, timeout=300)
            # the With Warnings starts a rerun of the batch, which finds only the files' own
            # failures (not a PDF, ...): nothing another run may cure
            rerun = _await_run(lambda r: r.parameters.get("flow_run_id") == f"prefect.flow-run."
                               f"{run.id}", "rerun-failed", 240)
        finally:
            _stop(worker)
    assert run.state.name == "Completed With Warnings", run.state
    assert rerun.state.is_completed() and "nothing to rerun" in str(rerun.state.message)
    assert rerun.name == f"rerun-{run.name}"
    batch_id = f"b-{str(run.id).replace('-', '')[:16]}"
    assert run.name == f"import-northwind-{datetime.now(UTC):%Y-%m-%d}-{batch_id[-8:]}"
    assert "bank:northwind" in run.tags

    from flows.config import Settings

    home = server["STMTFLOW_HOME"]
    settings = replace(Settings.from_env(), home=Path(home),
                       database_url=f"sqlite:///{home}/ledger.db", storage_url=f"{home}/storage")
    jobs = settings.ledger().jobs()
    assert len(jobs) == len(samples)
    assert sorted(j.status for j in jobs) == ["FAILED"] * 4 + ["SUCCEEDED"] * 3


def test_a_scheduled_deployment_creates_and_runs_a_flow_run_unaided(
        server: dict[str, str], tmp_path: Path) -> None:
    """The server's scheduler, as installed from the lock, turns a deployment's schedule
    into a flow run that a worker then runs to Completed: nothing calls run_deployment.
    Under SQLAlchemy 2.1 the scheduler failed every loop and this run never came."""
    from datetime import timedelta

    from prefect import flow, get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
    from prefect.utilities.asyncutils import run_coro_as_sync

    from flows.server_health import service_problems

    env = {**server, "STMTFLOW_HOME": str(tmp_path / "home"), "PWD": str(ROOT)}
    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        subprocess.run([sys.executable, "-m", "prefect", "work-pool", "create", "scheduled",
                        "--type", "process"], env=env, check=True, capture_output=True)
        worker = subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start",
                                   "--pool", "scheduled"], env=env, cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deployment = flow.from_source(str(ROOT), "flows/reconcile_flow.py:reconcile").deploy(
            name="every-20-seconds", work_pool_name="scheduled", interval=timedelta(seconds=20),
            build=False, push=False, print_next_steps=False)
        deployed = time.monotonic()

        async def runs() -> list[Any]:
            async with get_client() as client:
                return await client.read_flow_runs(deployment_filter=DeploymentFilter(
                    id=DeploymentFilterId(any_=[deployment])))

        try:
            while True:
                found = run_coro_as_sync(runs())
                if any(r.state and r.state.is_completed() for r in found):
                    break
                assert time.monotonic() < deployed + 120, [
                    f"{r.name}: {r.state and r.state.name}" for r in found]
                time.sleep(1)
        finally:
            _stop(worker)

            async def delete() -> None:  # its runs would go on piling up for no worker
                async with get_client() as client:
                    await client.delete_deployment(deployment)

            run_coro_as_sync(delete())
        print(f"schedule to a completed run: {time.monotonic() - deployed:.1f} s")
        assert all(r.auto_scheduled for r in found)
        # the setup test's webhook is unreachable on purpose: its notifications fail (and
        # the server logs it, as it should be told); the scheduler is not in error
        problems = run_coro_as_sync(service_problems(Path(server["PREFECT_HOME"]) / "server.log"))
        assert [p for p in problems if p.service.startswith("schedule")] == [], problems


def _await_run(wanted: Any, deployment: str, seconds: float) -> Any:
    """The first run of `deployment` that `wanted` picks, once it is final."""
    from prefect import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def read() -> list[Any]:
        async with get_client() as client:
            return await client.read_flow_runs(deployment_filter=DeploymentFilter(
                name=DeploymentFilterName(any_=[deployment])))

    deadline = time.monotonic() + seconds
    while True:
        found = [r for r in run_coro_as_sync(read()) if wanted(r)]
        if found and found[0].state and found[0].state.is_final():
            return found[0]
        assert time.monotonic() < deadline, [f"{r.name}: {r.state}" for r in found]
        time.sleep(1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a worker; on a loaded machine its shutdown may outlast the wait (it is not under
    test), and then it and what it started are killed."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        for pid in _process_tree(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=30)


def _process_tree(pid: int) -> list[int]:
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [pid] + [p for c in children.split() for p in _process_tree(int(c))]


def test_kill_dash_nine_of_the_worker_then_retry_completes_the_same_batch(
        server: dict[str, str], tmp_path: Path) -> None:
    """A worker and its flow run die mid-batch; the run is Crashed (what the zombie
    automation does), then Retried through the API, as the UI's Retry does; a new worker
    picks it up and the run itself finishes the batch, nothing else run in between."""
    import sqlite3

    from prefect import flow, get_client
    from prefect.deployments import run_deployment
    from prefect.states import AwaitingRetry, Crashed
    from prefect.utilities.asyncutils import run_coro_as_sync

    inbox = tmp_path / "inbox"
    samples = generate(inbox, ("northwind", "bluebird"), 4, seed=5, bad=BASIC_BAD)
    env = {**server, "STMTFLOW_HOME": str(tmp_path / "home"), "STMTFLOW_WORKERS": "1",
           "PWD": str(ROOT)}
    ledger_db = tmp_path / "home" / "ledger.db"

    def worker(**extra: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool",
                                 "retry", "--type", "process"], env={**env, **extra}, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def jobs(wait: float = 0.0) -> dict[str, tuple[str, int]]:
        """The ledger's jobs; {} while it cannot be read (not yet made), after retrying for
        `wait` seconds (a reader may find the ledger busy just after its writer is killed)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                with sqlite3.connect(ledger_db) as db:
                    return {j: (s, n) for j, s, n in db.execute(
                        "SELECT job_id, status, attempts FROM jobs")}
            except sqlite3.Error:
                if time.monotonic() >= deadline:
                    return {}
                time.sleep(0.2)

    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        subprocess.run([sys.executable, "-m", "prefect", "work-pool", "create", "retry",
                        "--type", "process"], env=env, check=True, capture_output=True)
        deployment = flow.from_source(str(ROOT), "flows/import_flow.py:import_batch").deploy(
            name="retry", work_pool_name="retry", parameters={"source": str(inbox)},
            build=False, push=False, print_next_steps=False)
        # The run stops itself at its third parse (a job claimed, its parse under way), so
        # the kill below finds work in flight however fast the parses are.
        first = worker(STMTFLOW_CRASH_AT="stop:parse:3")
        run = run_deployment(deployment, timeout=0)
        deadline = time.monotonic() + 300
        while not any(state(p) == "T" for p in _process_tree(first.pid)):
            assert time.monotonic() < deadline, f"never stopped mid-batch: {jobs()}"
            time.sleep(0.1)
        for pid in _process_tree(first.pid):  # the worker and the run it started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        first.wait()
        states = jobs(wait=30)
        held = [j for j, (s, _) in states.items() if s == "PROCESSING"]
        assert held, states

        async def set_state(state: Any) -> None:
            async with get_client() as client:
                await client.set_flow_run_state(run.id, state, force=True)

        async def read() -> Any:
            async with get_client() as client:
                return await client.read_flow_run(run.id)

        run_coro_as_sync(set_state(Crashed(message="no heartbeat: its worker is gone")))
        retried = time.monotonic()
        run_coro_as_sync(set_state(AwaitingRetry()))  # what the UI's Retry sets
        second = worker()
        try:
            while not (after := run_coro_as_sync(read())).state.is_final():
                assert time.monotonic() < retried + 300, after.state
                time.sleep(1)
        finally:
            _stop(second)
    print(f"Retry to final state: {time.monotonic() - retried:.1f} s")
    assert after.state.name == "Completed With Warnings", after.state
    final = jobs()
    assert len(final) == len(samples)
    assert all(final[j][1] == 2 for j in held), final
    assert sorted(s for s, _ in final.values()) == ["FAILED"] * 4 + ["SUCCEEDED"] * 4
    assert all(n == 1 for j, (_, n) in final.items() if j not in held)


def test_kill_dash_nine_of_the_worker_then_the_automation_recovers_the_batch(
        server: dict[str, str], tmp_path: Path) -> None:
    """A worker and its batch run die mid-batch; once the run is Crashed (what the zombie
    automation does), setup's recovery automation starts the `recover` deployment on its
    own, and a new worker finishes the same batch with it: no command run, no Retry."""
    import sqlite3

    from prefect import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterName,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.deployments import run_deployment
    from prefect.states import Crashed
    from prefect.utilities.asyncutils import run_coro_as_sync

    inbox = tmp_path / "inbox"
    # enough files that the kill lands while some are still to do: an attempt takes tens of ms
    samples = generate(inbox, ("northwind",), 24, seed=8, bad=BASIC_BAD)
    env = {**server, "STMTFLOW_HOME": str(tmp_path / "home"), "STMTFLOW_WORKERS": "1",
           "PWD": str(ROOT)}
    ledger_db = tmp_path / "home" / "ledger.db"

    def query(sql: str, wait: float = 0.0) -> list[tuple[Any, ...]]:
        """The rows `sql` reads from the ledger; none while it cannot be read (not yet made),
        after retrying for `wait` seconds (a reader may find the ledger busy just after its
        writer is killed)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                with sqlite3.connect(ledger_db) as db:
                    return list(db.execute(sql))
            except sqlite3.Error:
                if time.monotonic() >= deadline:
                    return []
                time.sleep(0.2)

    def worker(name: str) -> subprocess.Popen[bytes]:
        out = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115
        return subprocess.Popen([sys.executable, "-m", "prefect", "worker", "start", "--pool",
                                 "stmtflow"], env=env, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)

    done = subprocess.run([sys.executable, "-m", "flows.cli", "setup"], env=server, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        first = worker("first")
        run = run_deployment("import-batch/import-northwind",
                             parameters={"source": str(inbox)}, timeout=0)
        deadline = time.monotonic() + 300
        while not ({"PROCESSING", "SUCCEEDED"} <= {s for (s,) in query(
                "SELECT status FROM jobs")}):
            assert time.monotonic() < deadline, "never caught mid-batch"
            time.sleep(0.05)
        for pid in _process_tree(first.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        first.wait()
        status = dict(query("SELECT job_id, status FROM jobs", wait=30))
        held = [j for j, s in status.items() if s == "PROCESSING"]
        # a held job, or at least work not yet done, is what the recovery has to finish
        assert {"PROCESSING", "QUEUED"} & set(status.values()), status

        async def crash() -> None:
            async with get_client() as client:
                await client.set_flow_run_state(run.id, Crashed(message="no heartbeat"),
                                                force=True)

        async def recoveries() -> list[Any]:
            async with get_client() as client:
                runs = await client.read_flow_runs(deployment_filter=DeploymentFilter(
                    name=DeploymentFilterName(any_=["recover"])), flow_run_filter=FlowRunFilter(
                    state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[
                        StateType.COMPLETED, StateType.FAILED, StateType.CRASHED]))))
            # this batch run's recovery: not the schedule's, nor one for another test's run
            return [r for r in runs
                    if str(r.parameters.get("flow_run_id", "")).endswith(str(run.id))]

        async def read_run() -> Any:
            async with get_client() as client:
                return await client.read_flow_run(run.id)

        run_coro_as_sync(crash())
        crashed_at = time.monotonic()
        second = worker("second")
        try:
            while not (finished := run_coro_as_sync(recoveries())):
                assert time.monotonic() < crashed_at + 400, (
                    "no recovery run finished\n" + _recovery_report(server, tmp_path))
                time.sleep(1)
        finally:
            _stop(second)
        crashed_run = run_coro_as_sync(read_run())

        async def every_run() -> list[str]:
            async with get_client() as client:
                return [f"{r.name}: {r.state}" for r in await client.read_flow_runs()]

        runs = run_coro_as_sync(every_run())
    print(f"Crashed to recovered: {time.monotonic() - crashed_at:.1f} s")
    (recovery,) = finished
    assert recovery.state.is_completed(), runs
    assert recovery.name == f"recover-{crashed_run.name}"
    assert {"recover", "bank:northwind"} <= set(recovery.tags)
    batch_id = f"b-{str(run.id).replace('-', '')[:16]}"
    assert query(f"SELECT state FROM batches WHERE batch_id = '{batch_id}'") == [
        ("COMPLETED_WITH_WARNINGS",)]
    final = dict(query("SELECT job_id, status || ':' || attempts FROM jobs"))
    assert len(final) == len(samples)
    assert all(final[j] == "SUCCEEDED:2" for j in held), final
    bad = sum(1 for s in samples if s.reason)
    assert sorted(s.split(":")[0] for s in final.values()) == ["FAILED"] * bad + [
        "SUCCEEDED"] * (len(samples) - bad)



def _recovery_report(server: dict[str, str], tmp_path: Path) -> str:
    """What a missing recovery needs explained: the `recover` runs and their states, the
    recovery automation's firings, and the tails of the second worker's and the server's logs."""
    from prefect import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.events.filters import EventFilter, EventNameFilter
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def read() -> list[str]:
        async with get_client() as client:
            runs = await client.read_flow_runs(deployment_filter=DeploymentFilter(
                name=DeploymentFilterName(any_=["recover"])))
            events = await client.read_events(EventFilter(
                event=EventNameFilter(prefix=["prefect.automation."])), limit=50)
        return ([f"recover run {r.name}: {r.state and r.state.name} {r.parameters}"
                 for r in runs]
                + [f"{e.occurred:%H:%M:%S} {e.event} {e.resource.get('prefect.resource.name')}"
                   for e in events.events])

    def tail(path: Path, n: int = 15) -> list[str]:
        return path.read_text(errors="replace").splitlines()[-n:] if path.exists() else []

    try:
        lines = run_coro_as_sync(read())
    except Exception as e:  # a report, never the failure itself
        lines = [f"(the API did not answer: {e!r})"]
    return "\n".join([*lines, "second worker:", *tail(tmp_path / "second.log"),
                      "server:", *tail(Path(server["PREFECT_HOME"]) / "server.log")])
