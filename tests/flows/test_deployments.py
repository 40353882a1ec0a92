"""Deployments against a real `prefect server` with a process work pool and a worker."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings

from corpus import BASIC_BAD, generate
from deployments.settings import PREFECT_YAML, render_prefect_yaml, specs
from flows.setup import ALERTS, ZOMBIES

ROOT = PREFECT_YAML.parent


def test_prefect_yaml_is_rendered_from_the_bank_settings() -> None:
    assert PREFECT_YAML.read_text() == render_prefect_yaml()


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
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "serve"], env=env, cwd=ROOT,
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
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """`prefect server start` in its own PREFECT_HOME, on a free loopback port."""
    home = tmp_path_factory.mktemp("server-home")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_API_URL": url,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
           "STMTFLOW_HOME": str(home / "stmtflow"), "PREFECT_WORKER_QUERY_SECONDS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host",
                             "127.0.0.1", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
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

    done = subprocess.run([sys.executable, "-m", "flows.cli", "setup", "--alert-webhook",
                           "http://127.0.0.1:9/alerts"], env=server, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr

    with temporary_settings({PREFECT_API_URL: server["PREFECT_API_URL"]}):
        async def read():
            async with get_client() as client:
                return (await client.read_deployments(),
                        await client.read_automations_by_name(ZOMBIES),
                        await client.read_automations_by_name(ALERTS))

        deployments, zombies, alerts = run_coro_as_sync(read())
        by_name = {d.name: d for d in deployments}
        for spec in specs():
            d = by_name[spec["name"]]
            assert d.work_pool_name == "stmtflow"
            assert [(s.schedule.cron, s.schedule.timezone) for s in d.schedules] == [
                (s["cron"], s["timezone"]) for s in spec["schedules"]]
        assert len(zombies) == 1 and len(alerts) == 1
        assert alerts[0].trigger.expect == {"stmtflow.alert.*"}

        inbox = tmp_path / "inbox"
        samples = generate(inbox, ("northwind",), 3, seed=12, bad=BASIC_BAD)
        worker = subprocess.Popen(
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", "stmtflow",
             "--limit", "1"], env=server, cwd=ROOT, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            run = run_deployment("import-batch/import-northwind",
                                 parameters={"source": str(inbox)}, timeout=300)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert run.state.name == "Completed With Warnings", run.state
    assert run.name == f"import-northwind-{datetime.now(UTC):%Y-%m-%d}"
    assert "bank:northwind" in run.tags

    from flows.config import Settings

    home = server["STMTFLOW_HOME"]
    settings = replace(Settings.from_env(), home=Path(home),
                       database_url=f"sqlite:///{home}/ledger.db", storage_url=f"{home}/storage")
    jobs = settings.ledger().jobs()
    assert len(jobs) == len(samples)
    assert sorted(j["status"] for j in jobs) == ["FAILED"] * 4 + ["SUCCEEDED"] * 3
