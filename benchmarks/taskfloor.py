"""`python -m benchmarks.taskfloor [--files N]`: what Prefect alone costs per file of an
import, against the parse it orchestrates, so that the per-file target of `overhead` can be
read against what no code of ours can go below.

A new process runs a flow that maps N tasks doing nothing, decorated as `process_file` is
(retries with a retry condition, a persisted result, the inputs-and-source cache policy, a
run name) on two threads, against each server the commands start, in its environment: a
long-running one (`stmtflow server start`: `SERVER_DEFAULTS`, event history kept) and the
embedded API (`EMBEDDED_DEFAULTS`, Prefect's ephemeral services), both kept running; the
same with no task at all is the baseline, so the difference is the task runs alone. CPU
seconds, of the process and of the server, which the load does not inflate: per task run,
against `parse_pdf`'s per file over the same number of text statements in this process.

One Prefect task run per file stays (it is what the UI shows), so per-file processing on two
cores is at least (the client's + the server's CPU per task run + a parse) / 2.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import psutil

from benchmarks import corpora
from benchmarks.start import _children_cpu, _env, _free_port, answering
from flows.cli.server import (
    EMBEDDED_DEFAULTS,
    EPHEMERAL_ENV,
    SERVER_DEFAULTS,
    UNCOMPRESSED_EVENTS,
)
from parsers.api import parse_pdf

#: a flow of `argv[1]` tasks that do nothing, with `process_file`'s task options
FLOW = """
import sys
from prefect import flow, task
from prefect.cache_policies import INPUTS, TASK_SOURCE
from prefect.task_runners import ThreadPoolTaskRunner

@task(retries=2, retry_condition_fn=lambda task, run, state: False, persist_result=True,
      task_run_name="nothing {n}", cache_policy=INPUTS + TASK_SOURCE, log_prints=False)
def nothing(n: int) -> int:
    return n

@flow(task_runner=ThreadPoolTaskRunner(max_workers=2))
def batch(n: int) -> int:
    return len([f.result() for f in nothing.map(list(range(n)))])

if batch(int(sys.argv[1])) != int(sys.argv[1]):
    sys.exit("the flow ran fewer tasks than it mapped")
"""


#: each server's environment on top of the benchmark's
SERVERS = {"long-running server": {**SERVER_DEFAULTS, "PREFECT__SERVER_FINAL": "1"},
           "embedded API": {**EMBEDDED_DEFAULTS, **EPHEMERAL_ENV}}


def _server(home: str, extra: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {**_env(home), **extra, "PREFECT_UI_ENABLED": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "flows.embedded_app:create_app",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "error",
         *UNCOMPRESSED_EVENTS], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, answering(proc, f"http://127.0.0.1:{port}/api")


def _cpu(server: psutil.Process) -> float:
    t = server.cpu_times()
    return t.user + t.system


def _flow_cpu(tasks: int, env: dict[str, str], server: psutil.Process) -> tuple[float, float]:
    """CPU seconds of a new process running the flow with `tasks` tasks, and of the server
    meanwhile (and for the recorder's next write after it)."""
    client, served = _children_cpu(), _cpu(server)
    subprocess.run([sys.executable, "-c", FLOW, str(tasks)], env=env, check=True,
                   capture_output=True)
    time.sleep(2 * float(SERVER_DEFAULTS[
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL"]))
    return _children_cpu() - client, _cpu(server) - served


def _parse_cpu(files: list[bytes]) -> float:
    """CPU seconds per file of `parse_pdf` in this process (after one warm-up pass)."""
    for data in files[:5]:
        parse_pdf(data)
    started = time.process_time()
    for data in files:
        parse_pdf(data)
    return (time.process_time() - started) / len(files)


def _per_task_run(files: int, rounds: int, extra: dict[str, str]) -> tuple[float, float]:
    """CPU seconds per task run of the client and of the server, with `extra` settings."""
    home = tempfile.mkdtemp(prefix="stmtflow-taskfloor-")
    proc, url = _server(home, extra)
    server = psutil.Process(proc.pid)
    env = {**_env(home, url), "PREFECT_LOGGING_LEVEL": "WARNING"}
    try:
        _flow_cpu(1, env, server)  # the flow and its task known to the server
        spent: dict[int, list[tuple[float, float]]] = {0: [], files: []}
        for _ in range(rounds):
            for n in spent:
                spent[n].append(_flow_cpu(n, env, server))
    finally:
        proc.terminate()
        proc.wait(30)
    return tuple((statistics.median(x[i] for x in spent[files])  # type: ignore[return-value]
                  - statistics.median(x[i] for x in spent[0])) / files for i in (0, 1))


def run(files: int, rounds: int) -> None:
    texts = [s.pdf.read_bytes() for s in corpora.plain(files, 2026) if s.bank != "meridian"]
    parse = _parse_cpu(texts)
    print(f"parse_pdf {1000 * parse:.1f} CPU ms/file (baseline); per no-op task run, "
          f"{files} per flow, medians of {rounds} rounds, CPU:")
    for name, extra in SERVERS.items():
        client, served = _per_task_run(files, rounds, extra)
        least = (client + served + parse) / 2
        print(f"  {name:<20} client {1000 * client:4.1f} ms, server {1000 * served:4.1f} ms: "
              f"per-file processing on 2 cores no less than {1000 * least:.1f} ms/file, "
              f"{least / (parse / 2):.2f}x the bare parse / 2 (target 1.3x)")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.taskfloor")
    ap.add_argument("--files", type=int, default=100, help="task runs per flow, and statements")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    run(args.files, args.rounds)


if __name__ == "__main__":
    main()
