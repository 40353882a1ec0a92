"""`python -m benchmarks dask`: one batch on a real Dask cluster, one worker against two.

Everything runs as the scale-out guide (docs/scale-out.md) sets it up, each part a process
of its own: this home's `stmtflow server` (the Prefect API the workers report to), a
`dask scheduler`, and `dask worker` processes of one thread each, every worker (with the
one parse process it starts) held to a core of its own with `taskset`. Each round imports
the same files into a new ledger and storage with `STMTFLOW_TASK_RUNNER=dask`; a round on
the thread runner in the command's own process is the baseline. Reported: wall time, files
per second, every job's end, and two workers' speed-up over one, on text statements and
on the sample's mix (one statement in six a scan, whose OCR is most of its cost).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from benchmarks import corpora
from benchmarks.memory import folder

BIN = Path(sys.executable).parent


def _stmtflow(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "stmtflow"), *args], env=env, capture_output=True,
                          text=True, check=False)


@contextlib.contextmanager
def _server(env: dict[str, str]) -> Iterator[str]:
    """This home's `stmtflow server`, and its API's address."""
    started = _stmtflow("server", "start", env=env)
    if started.returncode:
        raise RuntimeError(f"stmtflow server start failed: {started.stderr.strip()}")
    try:
        status = _stmtflow("server", "status", env=env).stdout
        yield status.split("running: ", 1)[1].split()[0]
    finally:
        _stmtflow("server", "stop", env=env)


@contextlib.contextmanager
def _cluster(workers: int, work: Path, env: dict[str, str]) -> Iterator[str]:
    """A scheduler and `workers` single-threaded workers, each on a core of its own; the
    scheduler's address."""
    scheduler_file = work / f"scheduler-{workers}.json"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        cores = os.sched_getaffinity(0)
        for i in range(workers):
            core = sorted(cores)[i % len(cores)]
            procs.append(subprocess.Popen(
                ["taskset", "-c", str(core), str(BIN / "dask"), "worker", "--nthreads", "1",
                 "--no-nanny", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client

        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        with Client(scheduler_file=str(scheduler_file), timeout=60) as client:
            client.wait_for_workers(workers, timeout=60)
            address = client.scheduler.address
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=20)


def _round(env: dict[str, str], round_dir: Path) -> dict[str, str]:
    """`env` with a ledger and storage of the round's own, shared by all its processes."""
    round_dir.mkdir(parents=True)
    return {**env, "STMTFLOW_DATABASE_URL": f"sqlite:///{round_dir}/ledger.db",
            "STMTFLOW_STORAGE": str(round_dir / "storage")}


def _import(source: Path, env: dict[str, str]) -> tuple[float, Counter[str]]:
    started = time.perf_counter()
    done = _stmtflow("import", str(source), "--json", env=env)
    took = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"import failed ({done.returncode}): {done.stdout[-800:]}"
                           f"{done.stderr.strip()[-800:]}")
    jobs = json.loads(done.stdout)["jobs"]
    return took, Counter(j["status"] for j in jobs)


def _sample(files: int, seed: int) -> Path:
    """The generated statements `stmtflow sample` draws (every layout; one in six a scan)."""
    out = corpora.work() / f"dask-sample-{files}-{seed}"
    out.mkdir(parents=True, exist_ok=True)
    for s in corpora.plain(files, seed):
        if s.reason is None:
            shutil.copy(s.pdf, out / s.pdf.name)
    return out


def _rounds(source: Path, work: Path, env: dict[str, str]) -> list[tuple[str, float,
                                                                         Counter[str]]]:
    """The thread runner's round, then one and two Dask workers'."""
    threads = {**env, "STMTFLOW_PARSE_WORKERS": "2", "STMTFLOW_WORKERS": "2"}
    took, ends = _import(source, _round(threads, work / "threads"))
    rows = [("threads, 2 parse workers (baseline)", took, ends)]
    for workers in (1, 2):
        round_env = _round(env, work / f"dask-{workers}")
        with _cluster(workers, work, round_env) as address:
            took, ends = _import(source, {**round_env, "STMTFLOW_TASK_RUNNER": "dask",
                                          "STMTFLOW_DASK_ADDRESS": address})
        rows.append((f"dask, {workers} worker(s), 1 core each", took, ends))
    return rows


def run(files: int, seed: int) -> None:
    sources = {"text statements": folder(files, min(files, 100), seed),
               "the sample's statements, one in six a scan": _sample(files, seed)}
    work = Path(tempfile.mkdtemp(prefix="stmtflow-dask-"))
    env = {**os.environ, "STMTFLOW_HOME": str(work / "home"), "STMTFLOW_PARSE_WORKERS": "1",
           "STMTFLOW_WORKERS": "1", "PREFECT_LOGGING_LEVEL": "WARNING"}
    env.pop("PREFECT_API_URL", None)
    try:
        with _server(env) as api:
            env["PREFECT_API_URL"] = api
            for title, source in sources.items():
                count = sum(1 for _ in source.glob("*.pdf"))
                rows = _rounds(source, work / title.split()[1], env)
                print(f"dask: {count} {title}, one batch each round ({os.cpu_count()} cores)")
                for name, took, ends in rows:
                    print(f"  {name:<38} {took:7.1f} s  {count / took:5.1f} files/s  "
                          + ", ".join(f"{n} {state}" for state, n in sorted(ends.items())))
                print(f"  two Dask workers against one: {rows[1][1] / rows[2][1]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
