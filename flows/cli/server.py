"""`stmtflow server start|stop|status`: a long-running local Prefect server for the commands.

Every command that runs a flow on the embedded default starts Prefect's ephemeral API first
and stops it at the end. `server start` runs `prefect server start` in the background once
(its log in `STMTFLOW_HOME/server.log`) and notes its address in `STMTFLOW_HOME/server.json`;
while it answers, every later command of that home talks to it (`api_url`) instead of
starting its own, unless `PREFECT_API_URL` says otherwise. `server stop` ends it.
"""

from __future__ import annotations

import argparse
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

#: seconds `server start` waits for the server's health check
START_TIMEOUT = 300.0


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cmd_server_start(args: argparse.Namespace) -> int:
    running = api_url()
    if running:
        print(f"already running: {running}")
        return 0
    port = args.port or _free_port()
    url = f"http://127.0.0.1:{port}/api"
    home().mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    with open(home() / "server.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
             "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while not _healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            print(f"stmtflow: the server did not start; see {home() / 'server.log'}",
                  file=sys.stderr)
            return 1
        time.sleep(0.5)
    _note().write_text(json.dumps({"url": url, "pid": proc.pid}))
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


def cmd_server_status(args: argparse.Namespace) -> int:
    url = api_url()
    print(f"running: {url}" if url else "not running")
    return 0 if url else 1


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    s = sub.add_parser("server", help="a long-running local Prefect server the commands use")
    ssub = s.add_subparsers(required=True, metavar="ACTION")
    st = ssub.add_parser("start", help="start it in the background (once)")
    st.add_argument("--port", type=int, default=0, help="its port (default: a free one)")
    st.set_defaults(func=cmd_server_start)
    ssub.add_parser("stop", help="stop it").set_defaults(func=cmd_server_stop)
    ssub.add_parser("status", help="whether it runs, and where").set_defaults(
        func=cmd_server_status)
