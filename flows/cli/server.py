"""`stmtflow server start|stop|status`: a long-running local Prefect server for the commands;
and the embedded API a command starts for itself when there is none.

The commands that run a flow (`import`, `recover`, `reconcile`), on the embedded default,
start Prefect's ephemeral API and stop it at the end (`Embedded`). `server start` runs
Prefect's server (what `prefect server start` runs: its API, UI and services) in the
background once (but for `SERVER_DEFAULTS`: task runs recorded in batches), on a port it
binds itself (its log in `STMTFLOW_HOME/server.log`), and notes its address in
`STMTFLOW_HOME/server.json`; while it answers, every later command of that home talks to it
(`api_url`) instead of starting its own, unless `PREFECT_API_URL` says otherwise. `server
stop` ends it. Both serve `flows.embedded_app`'s app: Prefect's, which as it stops first
hands on every event it received, so that a batch's last task runs are recorded even when
the server is stopped right after the import that sent them.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from parsers.lifetime import dies_with_this_process

#: seconds `server start` waits for the server's health check
START_TIMEOUT = 300.0

#: seconds the embedded API is given to stop (to record the task runs it holds) before it
#: is killed
STOP_TIMEOUT = 30.0

#: what Prefect gives its own ephemeral server: no UI, only the services an ephemeral API
#: runs (`RunInEphemeralServers`), one app per process
EPHEMERAL_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
                 "PREFECT__SERVER_FINAL": "1"}

#: seconds between the task run recorder's flushes on the servers the commands start
RECORDER_FLUSH_SECONDS = 1

#: Prefect's clients send every event over a websocket, and uvicorn agrees to compress each
#: message by default: the client deflates what the server inflates again, on the loopback
#: or a local network, where the bytes saved cost more CPU on both sides than they save.
UNCOMPRESSED_EVENTS = ("--ws-per-message-deflate", "false")

#: Prefect defaults every server the commands start changes (the embedded API and `server
#: start`'s), unless the environment sets them: the task run recorder writes task runs from
#: their state events in batches, at the latest a second later (and the rest when it stops),
#: where Prefect's default is one database transaction per state event; on a long-running
#: server that was half of its CPU for an import (22 of 44 ms a file). Its UI shows a
#: state a second late at most.
SERVER_DEFAULTS = {"PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
                   "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL":
                       str(RECORDER_FLUSH_SECONDS)}

#: and what the embedded API changes besides: it dies with its command and nobody watches
#: it (no UI, a port only the command knows), so it keeps no event history (the event
#: persister was the largest part of its CPU per file left, 7 ms; runs, task runs and their
#: states, logs and artifacts are all still recorded, and automations still act on events
#: as they arrive) and sends Prefect no telemetry. Its task run recorder writes only on its
#: periodic flush and as it stops, never on a full batch: the write as it stops restores a
#: batch whose write the stop cancelled, one batch of at most the batch size, and a full
#: batch's write and a periodic one could both be cancelled at once. Docs:
#: docs/operating.md, "A long-running local server".
EMBEDDED_DEFAULTS = {**SERVER_DEFAULTS,
                     "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "1000",
                     "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
                     "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def home() -> Path:
    """Where the server's note and log are (the same folder `Settings` uses)."""
    return Path(os.environ.get("STMTFLOW_HOME", ".stmtflow")).absolute()


def _note() -> Path:
    return home() / "server.json"


def api_url() -> str | None:
    """The API of this home's running `stmtflow server`, when there is one that answers."""
    try:
        note = json.loads(_note().read_text())
    except (OSError, ValueError):
        return None
    url = note.get("url")
    return url if isinstance(url, str) and _healthy(url) else None


def _healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as response:
            return bool(200 <= response.status < 300)
    except OSError:
        return False


def _listening(port: int = 0) -> socket.socket:
    """A loopback socket bound and listening on `port` (0: a free one), for a server to
    take over (`--fd`): a port merely found free could be taken by another process before
    the server binds it, and the commands would then talk to that process's API."""
    sock = socket.socket()
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(socket.SOMAXCONN)
    except OSError:
        sock.close()
        raise
    return sock


#: how many start-up timeouts a command waits at most while servers of its home start
QUEUED_STARTS = 4
#: seconds a command still waits after it last saw a server of its home starting
QUEUED_GRACE = 10.0


class Embedded:
    """Prefect's ephemeral API for one command, started at once in the background.

    Prefect starts its own only when a flow first asks for a client, after the command has
    imported everything, and imports its whole server into the command's process to do it.
    Started here, it comes up while the command imports and checks its input on the other
    core, and the command's process never imports the server. The same app, in the same
    environment, as Prefect's ephemeral server (but for `EMBEDDED_DEFAULTS`: no event
    history, task runs recorded in batches; and for the wait, as it stops, until every event
    it received was handed on: `flows.embedded_app`); stopped when the command ends (once
    it recorded what it holds), killed with the command's process should that die first.

    The listening socket is bound here and handed to the server (`_listening`). Each
    command's server logs to a file of its own (`embedded-server-<pid>.log`, removed when
    empty).
    """

    def __init__(self) -> None:
        sock = _listening()
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/api"
        home().mkdir(parents=True, exist_ok=True)
        self.log_path = home() / f"embedded-server-{os.getpid()}.log"
        with sock, open(self.log_path, "wb") as log:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "--factory", "flows.embedded_app:create_app",
                 "--fd", str(sock.fileno()), "--log-level", "error", "--lifespan", "on",
                 *UNCOMPRESSED_EVENTS],
                env={**EMBEDDED_DEFAULTS, **os.environ, **EPHEMERAL_ENV}, stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, pass_fds=(sock.fileno(),),
                preexec_fn=dies_with_this_process())
        # registered before Prefect is imported, so it runs after Prefect's own exit
        # handlers, which send the last logs and events to this API
        atexit.register(self.stop)

    def ready(self, timeout: float, prefect_home: Path | None = None) -> str:
        """Its URL once it answers its health check; raise when it ended or took too long.
        Whether it still runs is asked first: once it ended, whatever answers is not it.

        The servers of one Prefect home start one at a time (`flows.embedded_app`): while
        one of them starts, the wait does not count against `timeout` (it ends no sooner
        than `QUEUED_GRACE` after; up to `QUEUED_STARTS` timeouts in all), so that the
        first commands run at once on a new home wait for each other's start-up instead of
        giving up."""
        from flows.embedded_app import setting_up

        started = time.monotonic()
        deadline = started + timeout
        while True:
            if self.proc is None or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"the embedded Prefect API ended before it answered; "
                                   f"see {self.log_path}")
            if _healthy(self.url, timeout=1.0):
                return self.url
            now = time.monotonic()
            if prefect_home is not None and now < started + QUEUED_STARTS * timeout \
                    and setting_up(prefect_home):
                deadline = max(deadline, now + QUEUED_GRACE)
            if now > deadline:
                self.stop()
                raise RuntimeError(f"the embedded Prefect API did not start within "
                                   f"{timeout:.0f} s; see {self.log_path}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop it, and wait until it has recorded what it was sent (Prefect's exit handlers
        sent the last events and logs before this runs): its app (`flows.embedded_app`)
        hands every event it received to the services before they stop, and the task run
        recorder writes what it holds as it stops."""
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size == 0:
                self.log_path.unlink()


#: the embedded API this process started (`start_embedded`), if any
_embedded: Embedded | None = None


def start_embedded() -> None:
    """Start the embedded API in the background, before the command imports Prefect."""
    global _embedded
    _embedded = Embedded()


def api_ready() -> contextlib.AbstractContextManager[object]:
    """Where the command's flows run on the embedded API it started: once that answers,
    Prefect's settings point at it. Prefect's own choice stands where its settings name an
    API (a profile's `PREFECT_API_URL`) or forbid an ephemeral one; the embedded one is
    then stopped unused.

    Flow runs on the embedded API send no heartbeats: they tell a server that a run whose
    process died is a zombie, and this API dies with the process. Each flow run's end would
    otherwise wait for its heartbeat thread, which looks whether to stop once a second. Nor
    do its clients ask it for a CSRF token before their first change (a round trip each)
    unless the settings have it protect against CSRF: Prefect's server does not by default,
    and this one serves only its command, on the loopback.
    """
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_CLIENT_CSRF_SUPPORT_ENABLED,
        PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
        get_current_settings,
        temporary_settings,
    )

    if _embedded is None:
        return contextlib.nullcontext()
    settings = get_current_settings()
    if settings.api.url or not settings.server.ephemeral.enabled:
        _embedded.stop()
        return contextlib.nullcontext()
    url = _embedded.ready(float(settings.server.ephemeral.startup_timeout_seconds),
                          settings.home)
    return temporary_settings(updates={
        PREFECT_API_URL: url, PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None,
        PREFECT_CLIENT_CSRF_SUPPORT_ENABLED: settings.server.api.csrf_protection_enabled})


def cmd_server_start(args: argparse.Namespace) -> int:
    running = api_url()
    if running:
        print(f"already running: {running}")
        return 0
    try:
        sock = _listening(args.port)
    except OSError as exc:
        print(f"stmtflow: port {args.port} cannot be used: {exc.strerror}", file=sys.stderr)
        return 1
    port = int(sock.getsockname()[1])
    url = f"http://127.0.0.1:{port}/api"
    home().mkdir(parents=True, exist_ok=True)
    log_path = home() / "server.log"
    offset = log_path.stat().st_size if log_path.exists() else 0  # where this start writes
    env = {**SERVER_DEFAULTS,
           **{k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}}
    # what `prefect server start` gives its server; the UI is told where its API is
    env.update(PREFECT__SERVER_FINAL="1", PREFECT_SERVER_API_HOST="127.0.0.1",
               PREFECT_SERVER_API_PORT=str(port), PREFECT_SERVER_UI_API_URL=url)
    with sock, open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory",
             "flows.embedded_app:create_app", "--fd", str(sock.fileno()),
             "--log-level", "warning", *UNCOMPRESSED_EVENTS], env=env, stdout=log,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, pass_fds=(sock.fileno(),),
            start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while not _healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            print(f"stmtflow: the server did not start; see {log_path}", file=sys.stderr)
            return 1
        time.sleep(0.5)
    _note().write_text(json.dumps({"url": url, "pid": proc.pid, "log_offset": offset}))
    print(f"running: {url} (UI on http://127.0.0.1:{port}); stop with `stmtflow server stop`")
    return 0


def cmd_server_stop(args: argparse.Namespace) -> int:
    try:
        note = json.loads(_note().read_text())
    except (OSError, ValueError):
        print("no server running")
        return 0
    pid = int(note.get("pid") or 0)
    if pid > 0:  # the server and what it started, in the session it leads
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.killpg(pid, signal.SIGKILL)
    _note().unlink(missing_ok=True)
    print(f"stopped {note.get('url')}")
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a child of this process that ended but was never waited for is not alive
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def own_log(url: str) -> tuple[Path, int] | None:
    """This home's server log and where its current start began writing, when `url` is
    this home's running `stmtflow server`."""
    try:
        note = json.loads(_note().read_text())
    except (OSError, ValueError):
        return None
    if note.get("url") != url:
        return None
    return home() / "server.log", int(note.get("log_offset") or 0)


def problems(url: str) -> list[str]:
    """What `flows.server_health` finds wrong with the server at `url`'s services."""
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.utilities.asyncutils import run_coro_as_sync

    from flows.server_health import service_problems

    log, offset = own_log(url) or (None, 0)
    with temporary_settings({PREFECT_API_URL: url}):
        return [str(p) for p in run_coro_as_sync(service_problems(log, offset))]


def cmd_server_status(args: argparse.Namespace) -> int:
    """Whether this home's server runs and its services do their work (exit 1 if not)."""
    url = api_url()
    if not url:
        print("not running")
        return 1
    found = problems(url)
    print(f"running: {url}" if not found else f"running with services in error: {url}")
    for problem in found:
        print(f"  {problem}")
    return 1 if found else 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    s = sub.add_parser("server", help="a long-running local Prefect server the commands use")
    ssub = s.add_subparsers(required=True, metavar="ACTION")
    st = ssub.add_parser("start", help="start it in the background (once)")
    st.add_argument("--port", type=int, default=0, help="its port (default: a free one)")
    st.set_defaults(func=cmd_server_start)
    ssub.add_parser("stop", help="stop it").set_defaults(func=cmd_server_stop)
    ssub.add_parser("status", help="whether it runs, where, and services in error").set_defaults(
        func=cmd_server_status)
