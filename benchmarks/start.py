"""The fixed cost of a command: what a one-task flow run costs in a new process, by where its
Prefect API is.

- **import**: the process imports Prefect and exits (the floor of any command);
- **server**: a flow run against a long-running local server (`PREFECT_API_URL` set);
- **ephemeral, warm home**: the embedded default, its database already made by an earlier run;
- **ephemeral, new home**: the embedded default on a new `PREFECT_HOME`, which first creates
  and migrates the database.

The differences name where the time goes: new − warm home is making the database, warm home
− server is starting the ephemeral API, server − import is the run's own bookkeeping. Rounds
are interleaved and medians printed with the load average, because the machine may be busy.

Then the ephemeral API's own start on the warm home, in CPU seconds (which the load does not
inflate), as `stmtflow` starts it (`flows.cli.server.Embedded`): importing the server's app
alone, and the whole start to its first health answer with Prefect's defaults, without
migrating the database at start, and without the services an ephemeral API need not run
(event persister, automation triggers, the event stream) — what settings could cut.
"""

from __future__ import annotations

import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import psutil

FLOW = ("from prefect import flow, task\n"
        "@task\ndef one(): return 1\n"
        "@flow\ndef ping(): return one()\n"
        "if ping() != 1:\n    raise SystemExit('the flow returned no result')\n")


def _env(home: str, api_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=home, PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_LOGGING_LEVEL="WARNING",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="600")
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


def _timed(code: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"the timed run failed: {done.stderr[-2000:]}")
    return time.perf_counter() - t0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server(home: str) -> tuple[subprocess.Popen[bytes], str]:
    """`prefect server start` on a free loopback port, once it answers its health check."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
         "--port", str(port)], env=_env(home), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    return proc, answering(proc, f"http://127.0.0.1:{port}/api")


def answering(proc: subprocess.Popen[bytes], url: str, timeout: float = 600) -> str:
    """`url` once the API `proc` serves there answers its health check (else it is killed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/health", timeout=2).read()
            return url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the Prefect API did not answer within {timeout:.0f} s")


#: Prefect settings that could make the ephemeral API's start cheaper, by what they skip
CUTS = {
    "no migration at start": {"PREFECT_API_DATABASE_MIGRATE_ON_START": "false"},
    "no event persister, triggers or event stream": {
        "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
        "PREFECT_API_EVENTS_STREAM_OUT_ENABLED": "false"},
}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cpu_of_import(home: str) -> float:
    """CPU seconds of a new process that imports the ephemeral API's app and exits."""
    before = _children_cpu()
    _timed("import prefect.server.api.server", _env(home))
    return _children_cpu() - before


def _cpu_of_api_start(home: str, extra: dict[str, str]) -> float:
    """CPU seconds of the ephemeral API, started as `stmtflow` starts it, to its first health
    answer."""
    from flows.cli.server import EPHEMERAL_ENV

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "flows.embedded_app:create_app",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "error", "--lifespan", "on"],
        env={**_env(home), **EPHEMERAL_ENV, **extra}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2).read()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("the ephemeral API did not answer within 600 s")
        cpu = psutil.Process(proc.pid).cpu_times()
        return cpu.user + cpu.system
    finally:
        proc.terminate()
        proc.wait(30)


def run(rounds: int) -> None:
    server, url = _server(tempfile.mkdtemp(prefix="stmtflow-server-"))
    warm = tempfile.mkdtemp(prefix="stmtflow-warm-")
    try:
        _timed(FLOW, _env(warm))  # makes the warm home's database
        times: dict[str, list[float]] = {"import": [], "server": [], "warm": [], "new": []}
        loads = []
        for _ in range(rounds):
            loads.append(os.getloadavg()[0])
            times["import"].append(_timed("import prefect.flows", _env(warm)))
            times["server"].append(_timed(FLOW, _env(warm, url)))
            times["warm"].append(_timed(FLOW, _env(warm)))
            times["new"].append(_timed(FLOW, _env(tempfile.mkdtemp(prefix="stmtflow-new-"))))
    finally:
        server.terminate()
        server.wait(30)
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"one-task flow run in a new process (medians of {rounds} rounds, load "
          f"{statistics.median(loads):.1f}): import only {m['import']:.1f} s, local server "
          f"{m['server']:.1f} s (baseline), ephemeral warm home {m['warm']:.1f} s "
          f"({m['warm'] / m['server']:.1f}x), ephemeral new home {m['new']:.1f} s "
          f"({m['new'] / m['server']:.1f}x)")
    print(f"where it goes: making the database {m['new'] - m['warm']:.1f} s, starting the "
          f"ephemeral API {m['warm'] - m['server']:.1f} s, the run's bookkeeping "
          f"{m['server'] - m['import']:.1f} s, importing Prefect {m['import']:.1f} s")
    cuts: dict[str, list[float]] = {"import": [], "defaults": [], **{k: [] for k in CUTS}}
    for _ in range(rounds):
        cuts["import"].append(_cpu_of_import(warm))
        cuts["defaults"].append(_cpu_of_api_start(warm, {}))
        for name, extra in CUTS.items():
            cuts[name].append(_cpu_of_api_start(warm, extra))
    c = {k: statistics.median(v) for k, v in cuts.items()}
    print(f"the ephemeral API's start on a warm home, CPU s (medians of {rounds}): "
          f"{c['defaults']:.2f} to its first health answer, of which importing its app "
          f"{c['import']:.2f}; " + "; ".join(f"{name} {c[name]:.2f} "
                                               f"({c[name] - c['defaults']:+.2f})"
                                               for name in CUTS))
