"""The command line and its JSON contracts, run in-process against the real Prefect server."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from flows.cli import main
from flows.cli.server import EMBEDDED_DEFAULTS, SERVER_DEFAULTS, START_TIMEOUT, Embedded
from flows.embedded_app import BLOCK_TYPES_NOTE
from tests.pids import ended_within


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `stmtflow` as a user does, in its own process, against the session's server."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], capture_output=True,
                          text=True, env=env, timeout=600, check=False)


def test_import_json_contract(stmtflow_home: Path, inbox) -> None:
    folder, samples = inbox.folder, inbox.samples
    done = cli("import", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["state"] == "COMPLETED_WITH_WARNINGS"
    assert report["batch_id"].startswith("b-")
    assert len(report["jobs"]) == len(samples)
    for job in report["jobs"]:
        assert {"job_id", "source", "status", "attempts", "reason", "output"} <= job.keys()
        assert job["status"] in {"SUCCEEDED", "FAILED", "EXPIRED"}
        assert (job["output"] is None) == (job["status"] != "SUCCEEDED")
    reasons = sorted(j["reason"] for j in report["jobs"] if j["status"] == "FAILED")
    assert reasons == sorted(s.reason for s in samples if s.reason)


@pytest.mark.parametrize("jobs", [[], [{"job_id": "j-1", "reason": None, "n": [1, {"a": 2}]},
                                   {"job_id": "j-2", "when": UUID(int=7)}]])
def test_a_report_written_a_job_at_a_time_is_the_text_of_one_dump(
        jobs: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.batch import _print_json

    head = {"batch_id": "b-1", "state": "COMPLETED", "counts": {"SUCCEEDED": 2}}
    _print_json({**head, "jobs": iter(jobs)})
    assert capsys.readouterr().out == json.dumps({**head, "jobs": jobs}, indent=1,
                                                 default=str) + "\n"


def test_status_shows_envelope_and_every_attempt(stmtflow_home: Path, inbox) -> None:
    samples = inbox.samples
    job_id = json.loads(cli("import", str(samples[0].pdf), "--json").stdout)["jobs"][0]["job_id"]
    done = cli("status", job_id, "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["sha256"] and status["chain_revision"] and status["ocr_engine"]
    assert status["expires_at"] > status["submitted_at"]
    assert [a["number"] for a in status["attempt_log"]] == [1]
    latest = cli("status")
    assert latest.returncode == 0 and job_id in latest.stdout


def test_text_output_masks_account_numbers(stmtflow_home: Path, inbox,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    samples = inbox.samples
    sample = next(s for s in samples if s.bank == "northwind")
    job_id = json.loads(cli("import", str(sample.pdf), "--json").stdout)["jobs"][0]["job_id"]
    out = cli("status", job_id).stdout
    last4 = json.loads(sample.truth.read_text())["accounts"][0]["account_last4"]
    assert f"accounts   ****{last4}" in out
    assert main(["parse", str(sample.pdf)]) == 0
    assert f"****{last4} USD" in capsys.readouterr().out


def test_parse_json_contract(inbox, capsys: pytest.CaptureFixture[str]) -> None:
    samples = inbox.samples
    good = next(s for s in samples if s.reason is None)
    assert main(["parse", str(good.pdf), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    truth = json.loads(good.truth.read_text())
    assert {k: doc[k] for k in ("bank", "accounts")} == truth
    assert doc["validation"] == {"ok": True, "problems": [], "repairs": [], "trusted": []}


@pytest.mark.parametrize("reason", ["empty", "not_pdf", "truncated", "encrypted"])
def test_parse_bad_file_prints_reason_and_fails(inbox, reason: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    samples = inbox.samples
    bad = next(s for s in samples if s.reason == reason)
    assert main(["parse", str(bad.pdf), "--json"]) == 1
    err = json.loads(capsys.readouterr().out)
    assert err["error"] == reason and err["message"]


def test_pipeline_that_cannot_run_exits_two_with_one_line(stmtflow_home: Path,
                                                         tmp_path: Path) -> None:
    done = cli("import", str(tmp_path / "no-such-folder"))
    assert done.returncode == 2
    err = [ln for ln in done.stderr.strip().splitlines() if ln.startswith("stmtflow:")]
    assert len(err) == 1 and "no such source" in err[0]


def test_sample_writes_statements_and_truth(tmp_path: Path) -> None:
    assert main(["sample", str(tmp_path / "s"), "--banks", "northwind,harbor",
                 "--statements", "4", "--bad"]) == 0
    pdfs = sorted(p.name for p in (tmp_path / "s").glob("*.pdf"))
    assert len(pdfs) == 8
    assert all((tmp_path / "s" / p.replace(".pdf", ".truth.json")).exists() for p in pdfs)


def test_reconcile_on_a_new_home_reports_no_times_rather_than_none(stmtflow_home: Path
                                                                    ) -> None:
    done = cli("reconcile")
    assert done.returncode == 0, done.stderr
    assert "time to completion: no job has ended yet" in done.stdout
    assert "None" not in done.stdout


def test_reconcile_json_contract_and_book_export(stmtflow_home: Path, inbox,
                                                 tmp_path: Path) -> None:
    assert cli("import", str(inbox.folder)).returncode == 0
    done = cli("reconcile", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["state"] == "accounted"
    assert set(report["counts"]) >= {"accepted", "terminal", "succeeded", "failed", "expired",
                                     "retried", "unresolved"}
    assert report["counts"]["failed"] == 4 and report["unresolved"] == []
    assert {"outputs", "notifications", "time_to_completion"} <= report.keys()
    assert set(report["consumer"]) >= {"imported", "duplicates_suppressed", "quarantined"}
    good = [s for s in inbox.samples if s.reason is None]
    truth = [json.loads(s.truth.read_text()) for s in good]
    expected = sum(len(a["transactions"]) for t in truth for a in t["accounts"])
    out = tmp_path / "book.csv"
    assert cli("book", "export", "--output", str(out)).returncode == 0
    assert len(out.read_text().strip().splitlines()) == expected + 1
    last4 = truth[0]["accounts"][0]["account_last4"]
    one = cli("book", "export", "--account", last4).stdout.strip().splitlines()
    assert len(one) - 1 == sum(len(a["transactions"]) for t in truth for a in t["accounts"]
                               if a["account_last4"] == last4)
    beancount = tmp_path / "book.beancount"
    assert cli("book", "export", "--format", "beancount", "--output", str(beancount)
               ).returncode == 0
    check = subprocess.run([str(Path(sys.executable).parent / "bean-check"), str(beancount)],
                           capture_output=True, text=True, check=False, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert beancount.read_text().count("txn_id:") == expected
    refused = cli("book", "export", "--format", "xlsx")
    assert refused.returncode == 2 and "--format xlsx needs --output FILE" in refused.stderr


def test_status_shows_no_source_path_a_duration_and_survives_a_closed_pipe(
        stmtflow_home: Path, inbox) -> None:
    from prefect.settings import PREFECT_API_URL

    sample = next(s for s in inbox.samples if s.reason is None)
    job_id = json.loads(cli("import", str(sample.pdf), "--json").stdout)["jobs"][0]["job_id"]
    for args in (("status", job_id), ("status", job_id, "--json")):
        out = cli(*args).stdout
        assert sample.pdf.name in out and str(sample.pdf.parent) not in out, out
    batch = cli("status").stdout.splitlines()[0]
    assert re.search(r"\(\d+(\.\d+)? s\)$", batch), batch

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    reader_gone = subprocess.Popen([sys.executable, "-m", "flows.cli", "status", job_id],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert reader_gone.stdout is not None and reader_gone.stderr is not None
    reader_gone.stdout.close()  # `| head` that has read all it wanted
    err = reader_gone.stderr.read().decode()
    assert reader_gone.wait(timeout=600) == 0 and not err, err


def test_a_started_server_serves_later_commands_until_stopped(stmtflow_home: Path,
                                                              inbox, tmp_path: Path) -> None:
    """`stmtflow server start` once: later commands of the home run their flows on it
    (they appear in its history), without `PREFECT_API_URL` set; `stop` ends it, right
    after an import, with every task run of that import recorded in its final state (its
    app, the embedded API's, hands on every event it received before it stops; that app
    alone notes the block types it registered in the Prefect home)."""
    import sqlite3
    import urllib.request

    import psutil

    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "flows.cli", *args], capture_output=True,
                              text=True, env=env, timeout=900, check=False)

    assert run("server", "status").returncode == 1
    started = run("server", "start")
    try:
        assert started.returncode == 0, started.stderr
        note = json.loads((stmtflow_home / "server.json").read_text())
        url = note["url"]
        assert run("server", "status").stdout.strip() == f"running: {url}"
        # it records task runs in batches, as the embedded API does
        assert SERVER_DEFAULTS.items() <= psutil.Process(note["pid"]).environ().items()
        # the process noted listens on the noted port itself, and tells its UI so
        assert _port(url) in _listening_ports(note["pid"])
        with urllib.request.urlopen(f"{url.removesuffix('/api')}/ui-settings",
                                    timeout=30) as response:
            assert json.loads(response.read())["api_url"] == url
        assert run("reconcile", "--json").returncode == 0
        request = urllib.request.Request(f"{url}/flow_runs/filter", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            names = [r["name"] for r in json.loads(response.read())]
        assert any(n.startswith("reconcile-") for n in names)
        samples = [s for s in inbox.samples if s.reason is None][:4]
        imported = run("import", *(str(s.pdf) for s in samples), "--json")
        assert json.loads(imported.stdout)["state"] == "COMPLETED", imported.stderr
        _scheduler_in_error_is_reported(url, Path(env["PREFECT_HOME"]) / "prefect.db", run)
    finally:
        stopped = run("server", "stop")
    assert stopped.returncode == 0 and not (stmtflow_home / "server.json").exists()
    assert run("server", "status").returncode == 1
    prefect_home = Path(env["PREFECT_HOME"])
    assert (prefect_home / BLOCK_TYPES_NOTE).exists()
    with sqlite3.connect(prefect_home / "prefect.db") as db:
        states = [state for (state,) in db.execute(
            "SELECT task_run.state_type FROM task_run JOIN flow_run "
            "ON task_run.flow_run_id = flow_run.id WHERE flow_run.name LIKE 'import-%'")]
    assert states == ["COMPLETED"] * len(samples)


def _scheduler_in_error_is_reported(url: str, prefect_db: Path, run: Any) -> None:
    """The server's database refuses the runs its scheduler makes (a trigger: a real
    failure of a real service, as SQLAlchemy 2.1 made Prefect 3.9's): the server still
    answers its health check, and `server status` says which service fails, and how."""
    import sqlite3
    import time
    import urllib.request
    from datetime import timedelta

    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.utilities.asyncutils import run_coro_as_sync

    from flows.server_health import unscheduled

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(),
                                         method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return dict(json.loads(response.read()))

    with sqlite3.connect(prefect_db) as db:
        db.execute("CREATE TRIGGER refuse_scheduled_runs BEFORE INSERT ON flow_run "
                   "WHEN NEW.auto_scheduled = 1 BEGIN "
                   "SELECT RAISE(ABORT, 'scheduled runs refused'); END")
    flow_id = post("/flows/", {"name": "scheduled"})["id"]
    post("/deployments/", {"name": "hourly", "flow_id": flow_id, "schedules": [
        {"schedule": {"interval": 3600}, "active": True}]})
    deadline = time.monotonic() + 180
    while (status := run("server", "status")).returncode == 0:
        assert time.monotonic() < deadline, status.stdout
        time.sleep(2)
    assert status.stdout.startswith(f"running with services in error: {url}"), status.stdout
    assert re.search(r"^  schedule_(recent_)?deployments: ", status.stdout, re.M), status.stdout
    assert "scheduled runs refused" in status.stdout
    # what any server shows, log or none: the schedule has no run ahead of it
    with temporary_settings({PREFECT_API_URL: url}):
        found = run_coro_as_sync(unscheduled(grace=timedelta(0)))
    assert [(p.service, p.detail.split(" has ")[0]) for p in found] == [
        ("scheduler", "deployment hourly")]


def _listening_ports(pid: int) -> set[int]:
    import psutil

    return {c.laddr.port for c in psutil.Process(pid).net_connections()
            if c.status == psutil.CONN_LISTEN}


def test_a_server_start_on_a_port_taken_says_so_and_starts_nothing(
        stmtflow_home: Path) -> None:
    """The port is bound before the server starts: one already taken is refused at once."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "flows.cli", "server", "start", "--port",
                               str(port)], capture_output=True, text=True, timeout=300,
                              check=False)
    assert done.returncode == 1 and f"port {port} cannot be used" in done.stderr
    assert not (stmtflow_home / "server.json").exists()


def _prefect_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a user with no Prefect API configured, on a Prefect home of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"),
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="600", **extra)
    return env


def _flow_runs_in(prefect_home: Path) -> list[str]:
    """The names of the flow runs in the home's database (none before it was made)."""
    import sqlite3

    with sqlite3.connect(prefect_home / "prefect.db") as db:
        try:
            return [name for (name,) in db.execute("SELECT name FROM flow_run")]
        except sqlite3.OperationalError:
            return []


def _serving(prefect_home: Path) -> list[int]:
    """Processes still running with this Prefect home: an API the command left behind."""
    import psutil

    alive = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("PREFECT_HOME") == str(prefect_home):
                alive.append(proc.pid)
        except psutil.Error:
            continue
    return alive


def test_import_on_the_embedded_api_runs_there_and_stops_it(stmtflow_home: Path, inbox,
                                                            tmp_path: Path) -> None:
    """With no API anywhere, the command starts its own on the Prefect home, runs the batch's
    flow there, and leaves nothing running: every file's task run recorded in its final
    state by then (the embedded API records task runs in batches, the last as it stops),
    with the file's log line under it; no event history kept, unless the environment asks
    for it; and no heartbeat sent."""
    import sqlite3

    samples = [s for s in inbox.samples if s.reason is None][:3]

    def run(env: dict[str, str]) -> tuple[list[tuple[str, int, str]], set[str]]:
        done = subprocess.run([sys.executable, "-m", "flows.cli", "import",
                               *(str(s.pdf) for s in samples), "--json"], capture_output=True,
                              text=True, env=env, timeout=900, check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["state"] == "COMPLETED"
        home = Path(env["PREFECT_HOME"])
        assert any(n.startswith("import-") for n in _flow_runs_in(home))
        assert _serving(home) == []
        with sqlite3.connect(home / "prefect.db") as db:
            states = [state for (state,) in db.execute(
                "SELECT state_type FROM task_run ORDER BY id")]
            logs = list(db.execute("SELECT task_run_id, level, message FROM log "
                                   "WHERE name = 'stmtflow'"))
            runs = [state for (state,) in db.execute(
                "SELECT state_name FROM flow_run WHERE name LIKE 'import-%'")]
            events = {event for (event,) in db.execute("SELECT event FROM events")}
        assert states == ["COMPLETED"] * len(samples) and runs == ["Completed"]
        return logs, events

    logs, events = run(_prefect_env(tmp_path))
    # the UI's page of the run: each file's line under its task run
    assert sorted(level for _, level, _ in logs) == [logging.INFO] * len(samples)
    assert len({task_run for task_run, _, _ in logs if task_run}) == len(samples)
    assert all("validated" in message for _, _, message in logs)
    assert events == set()

    # no periodic write of task runs within the run: they are all written as the API stops
    (tmp_path / "events").mkdir()
    _, events = run(_prefect_env(tmp_path / "events", **{
        "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "true",
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "3600"}))
    # its flow run sent no heartbeat to an API that dies with it
    assert "prefect.flow-run.Completed" in events
    assert "prefect.flow-run.heartbeat" not in events


def test_an_api_named_by_a_prefect_profile_wins_over_the_embedded_one(
        stmtflow_home: Path, inbox, tmp_path: Path) -> None:
    """A profile's `PREFECT_API_URL` is Prefect's choice: the batch runs there, and the
    embedded API the command started at once is stopped unused."""
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL
    from prefect.utilities.asyncutils import run_coro_as_sync

    sample = next(s for s in inbox.samples if s.reason is None)
    profiles = tmp_path / "profiles.toml"
    profiles.write_text(f'active = "remote"\n[profiles.remote]\n'
                        f'PREFECT_API_URL = "{PREFECT_API_URL.value()}"\n')
    env = _prefect_env(tmp_path, PREFECT_PROFILES_PATH=str(profiles))
    done = subprocess.run([sys.executable, "-m", "flows.cli", "import", str(sample.pdf),
                           "--json"], capture_output=True, text=True, env=env, timeout=900,
                          check=False)
    assert done.returncode == 0, done.stderr
    batch = json.loads(done.stdout)["batch_id"]
    home = Path(env["PREFECT_HOME"])
    assert _flow_runs_in(home) == []
    assert _serving(home) == []
    flow_run_id = json.loads(cli("status", batch, "--json").stdout)["flow_run_id"]

    async def read() -> Any:
        async with get_client() as client:
            return await client.read_flow_run(UUID(flow_run_id))

    assert run_coro_as_sync(read()).name.startswith("import-")


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_the_embedded_api_holds_its_port_from_the_start(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The socket is bound before the server starts: no other process can take the port in
    between, and each command's server logs to a file of its own."""
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    embedded = Embedded()
    try:
        with socket.socket() as other, pytest.raises(OSError, match="in use"):
            other.bind(("127.0.0.1", _port(embedded.url)))
        assert embedded.log_path == stmtflow_home / f"embedded-server-{os.getpid()}.log"
    finally:
        embedded.stop()


def test_the_embedded_api_runs_with_its_defaults_unless_the_environment_says(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No event history, no telemetry, task runs recorded in batches; a setting the
    environment gives wins over the embedded default."""
    import psutil

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    monkeypatch.setenv("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED", "true")
    embedded = Embedded()
    try:
        assert embedded.proc is not None
        env = psutil.Process(embedded.proc.pid).environ()
    finally:
        embedded.stop()
    assert env["PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED"] == "true"
    others = {k: v for k, v in EMBEDDED_DEFAULTS.items()
              if k != "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED"}
    assert others.items() <= env.items()
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"


def test_the_embedded_api_takes_events_uncompressed(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that offers to compress its events (Prefect's do) is not taken up on it."""
    from websockets.sync.client import connect

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    embedded = Embedded()
    try:
        url = embedded.ready(START_TIMEOUT)
        with connect(url.replace("http://", "ws://") + "/events/in",
                     compression="deflate") as ws:
            assert ws.response is not None
            assert "Sec-WebSocket-Extensions" not in ws.response.headers
    finally:
        embedded.stop()


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"true")

    def log_message(self, *args: object) -> None:
        pass


def test_an_embedded_api_that_ended_is_not_taken_for_whatever_answers(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    embedded = Embedded()
    assert embedded.proc is not None
    embedded.proc.kill()
    embedded.proc.wait()
    other = HTTPServer(("127.0.0.1", _port(embedded.url)), _Healthy)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        with pytest.raises(RuntimeError, match="ended before it answered"):
            embedded.ready(30)
    finally:
        other.shutdown()
        other.server_close()


def test_the_embedded_api_dies_with_its_command(stmtflow_home: Path, tmp_path: Path) -> None:
    """A command killed outright leaves no server behind."""
    script = ("import time\nfrom flows.cli.server import Embedded\n"
              "print(Embedded().proc.pid, flush=True)\ntime.sleep(600)\n")
    command = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                               env={**_prefect_env(tmp_path), "PYTHONPATH": os.getcwd()})
    assert command.stdout is not None
    server = int(command.stdout.readline())
    command.send_signal(signal.SIGKILL)
    command.wait()
    assert ended_within(server, 5)




def test_the_progress_thread_outlives_a_ledger_it_cannot_reach(
        stmtflow_home: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from flows.cli.batch import _progress
    from flows.config import Settings

    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()  # nothing listens there: every read of the ledger fails at once
    monkeypatch.setenv("STMTFLOW_DATABASE_URL", f"postgresql+psycopg://u@127.0.0.1:{port}/x")
    stop, died = threading.Event(), []
    monkeypatch.setattr(threading, "excepthook", died.append)
    watcher = threading.Thread(target=_progress, args=(Settings.from_env(), "b-x", stop))
    said = "progress: the ledger cannot be read now (OperationalError); trying again"

    def mine() -> list[str]:
        """This watcher's lines (an earlier test's import may still be logging its own)."""
        return [r.message for r in caplog.records if r.thread == watcher.ident]

    with caplog.at_level(logging.WARNING, logger="stmtflow"):
        watcher.start()
        for _ in range(600):  # the first failing read (a loaded machine may be slow to it)
            if said in mine():
                break
            time.sleep(0.1)
        stop.wait(2.0)  # more reads, each failing
        stop.set()
        watcher.join(30)
    assert not watcher.is_alive() and not died
    assert mine().count(said) == 1
