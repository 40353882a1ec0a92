"""What `stmtflow import` costs on top of parsing: text statements through the command on two
workers against a bare single-process loop over `parse_pdf` on the same files.

- **bare loop** (baseline): a new process imports the parser, then parses every file in turn;
  its whole time (start-up included) and the loop alone are both timed;
- **import**: `stmtflow import DIR --json` in a new process, three times: on the embedded
  default (the command starts its own Prefect API) on new homes (a new `STMTFLOW_HOME` and a
  new `PREFECT_HOME`, whose database Prefect creates and migrates: a user's first run); on
  the embedded default again on the same homes with as many other files (a user's next
  run: Prefect's database is there); and against a long-running local server (`stmtflow
  server start` on new homes, started before and not timed). For each: its whole time, and
  from its ledger the processing span (first claim to last finish), the mean attempt (claim
  to finish: read, parse in a worker process, write and verify the outputs, record), and the
  time outside it by phase: to the batch's record (process start, imports, the API's start,
  the flow run's creation), acceptance, to the first claim (the run's setup, the parse
  workers' start), and from the last finish to the process's end (verdict, artifacts, the
  flow run's end, the API's stop).

Targets: processing per file ≤ 1.3x the bare loop's per file / 2 (both cores used), and the
whole import ≤ 2x the bare loop with its start-up.

The machine may be shared, so wall times may be inflated by others' work: the CPU seconds
of each process (sampled every 0.1 s: the command, the Prefect server, the parse workers)
are printed as well, and do not depend on the load.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psutil

from benchmarks import corpora
from benchmarks.memory import _role
from corpus import SCANNED
from reconcile.records import Attempt, Batch

BARE = ("import sys, time\n"
        "from pathlib import Path\n"
        "from parsers.api import parse_pdf\n"
        "files = [Path(p).read_bytes() for p in sys.argv[1:]]\n"
        "t0 = time.perf_counter()\n"
        "for data in files:\n"
        "    parse_pdf(data)\n"
        "print(time.perf_counter() - t0)\n")


def bare(files: list[Path]) -> tuple[float, float, float]:
    """(whole seconds with start-up, seconds of the loop alone, CPU seconds) of the bare
    loop."""
    before = _children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BARE, *map(str, files)], capture_output=True,
                          text=True, check=True)
    whole = time.perf_counter() - t0
    return whole, float(done.stdout.strip().splitlines()[-1]), _children_cpu() - before


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cpu_by_role(proc: subprocess.Popen[bytes], every: float = 0.1) -> dict[str, float]:
    """CPU seconds of `proc` and of every process under it, by role, until it ends (a
    process's last 0.1 s may be missed)."""
    root = psutil.Process(proc.pid)
    roles: dict[int, str] = {}
    forkserver: set[int] = set()
    last: dict[int, float] = {}
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for p in tree:
            try:
                roles.setdefault(p.pid, _role(p, proc.pid, forkserver))
                t = p.cpu_times()
                last[p.pid] = t.user + t.system
            except psutil.NoSuchProcess:
                continue
        time.sleep(every)
    cpu: dict[str, float] = defaultdict(float)
    for pid, seconds in last.items():
        cpu[roles[pid]] += seconds
    return dict(cpu)


def _homes() -> dict[str, str]:
    """A new `STMTFLOW_HOME` and a new `PREFECT_HOME`."""
    return {"STMTFLOW_HOME": tempfile.mkdtemp(prefix="stmtflow-overhead-"),
            "PREFECT_HOME": tempfile.mkdtemp(prefix="stmtflow-overhead-prefect-")}


def through_import(folder: Path, workers: int, api_url: str | None,
                   homes: dict[str, str]) -> dict[str, Any]:
    """Seconds of `stmtflow import` on `homes` (on the embedded API, or against the server
    at `api_url`): whole, processing span, mean attempt, the phases outside the span; CPU
    seconds by process."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(homes, STMTFLOW_WORKERS=str(workers), STMTFLOW_PARSE_WORKERS=str(workers),
               **({"PREFECT_API_URL": api_url} if api_url else {}))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = datetime.now(UTC)
        t0 = time.perf_counter()
        cli = subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder),
                                "--json"], env=env, stdout=out, stderr=err)
        cpu = _cpu_by_role(cli)
        whole = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if not stdout.strip():
        raise RuntimeError(f"the import printed nothing: {stderr[-2000:]}")
    report = json.loads(stdout)
    batch, attempts = _ledger(homes["STMTFLOW_HOME"], report["batch_id"])
    first = min(a.started_at for a in attempts)
    last = max(a.ended_at for a in attempts if a.ended_at is not None)
    accepted = batch.accepted_at or first
    phases = {"to the batch's record": batch.created_at - began,
              "acceptance": accepted - batch.created_at,
              "to the first claim": first - accepted,
              "last finish to exit": began + timedelta(seconds=whole) - last}
    return {"whole": whole, "command": float(report["seconds"]), "cpu": cpu,
            "span": (last - first).total_seconds(),
            "phases": {k: v.total_seconds() for k, v in phases.items()},
            "attempt": statistics.mean((a.ended_at - a.started_at).total_seconds()
                                       for a in attempts if a.ended_at is not None),
            "files": float(len(report["jobs"])), "state": report["state"]}


def _ledger(home: str, batch_id: str) -> tuple[Batch, list[Attempt]]:
    """The batch `batch_id` in the ledger in `home`, and every attempt of its jobs."""
    from flows.config import Settings

    saved = os.environ.get("STMTFLOW_HOME")
    os.environ["STMTFLOW_HOME"] = home
    try:
        ledger = Settings.from_env().ledger()
        batch = ledger.batch(batch_id)
        if batch is None:
            raise RuntimeError(f"no batch {batch_id} in {home}")
        return batch, [a for j in ledger.jobs(batch_id) for a in ledger.attempts(j.job_id)]
    finally:
        if saved is None:
            os.environ.pop("STMTFLOW_HOME")
        else:
            os.environ["STMTFLOW_HOME"] = saved


def _server() -> tuple[str, psutil.Process, dict[str, str]]:
    """A long-running local server, as `stmtflow server start` runs it: (its API, its
    process, the env that `stmtflow server stop` needs)."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(_homes())
    subprocess.run([sys.executable, "-m", "flows.cli", "server", "start"], env=env, check=True,
                   capture_output=True)
    note = json.loads((Path(env["STMTFLOW_HOME"]) / "server.json").read_text())
    return str(note["url"]), psutil.Process(int(note["pid"])), env


def _tree_cpu(proc: psutil.Process) -> float:
    """CPU seconds of `proc` and every process under it."""
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def _folder(statements: int, seed: int) -> Path:
    """A folder of `statements` text statements of the plain corpus of `seed`."""
    samples = [s for s in corpora.plain(statements * 2, seed) if s.bank not in SCANNED
               and s.reason is None][:statements]
    folder = corpora.work() / f"overhead-{statements}-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    for s in samples:
        (folder / s.pdf.name).write_bytes(s.pdf.read_bytes())
    return folder


def run(statements: int, seed: int, workers: int) -> None:
    folder = _folder(statements, seed)
    # the next run's files: other statements, which the ledger does not take for duplicates
    other = _folder(statements, seed + 1)
    files = sorted(folder.glob("*.pdf"))
    load = os.getloadavg()[0]
    whole_bare, loop, cpu_bare = bare(files)
    homes = _homes()
    runs = {"embedded API, first run (new homes)": through_import(folder, workers, None, homes),
            "embedded API, next run (same homes, other files)": through_import(
                other, workers, None, homes)}
    url, server, server_env = _server()
    try:
        before = _tree_cpu(server)
        runs["long-running server"] = got = through_import(folder, workers, url, _homes())
        got["cpu"]["prefect server"] = _tree_cpu(server) - before
    finally:
        subprocess.run([sys.executable, "-m", "flows.cli", "server", "stop"], env=server_env,
                       check=False, capture_output=True)
    n = len(files)
    per_bare = loop / n
    print(f"{n} text statements (load {load:.1f}): bare loop {loop:.1f} s ({1000 * per_bare:.0f} "
          f"ms/file, baseline), {whole_bare:.1f} s with start-up, {cpu_bare:.1f} CPU s")
    for name, got in runs.items():
        per_import = got["span"] / n
        cpu = ", ".join(f"{role} {s:.1f}" for role, s in sorted(got["cpu"].items()))
        print(f"`stmtflow import` on {workers} workers, {name}: {got['whole']:.1f} s whole, "
              f"{got['state']} ({got['whole'] / whole_bare:.2f}x the bare loop with start-up; "
              f"target <= 2x)")
        print(f"  processing {got['span']:.1f} s, {1000 * per_import:.0f} ms/file: "
              f"{per_import / (per_bare / workers):.2f}x the bare loop / {workers} (target <= "
              f"1.3x); mean attempt {1000 * got['attempt']:.0f} ms (parse alone "
              f"{1000 * per_bare:.0f}); before the first claim and after the last "
              f"{got['whole'] - got['span']:.1f} s")
        print("  outside processing: " + ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds
                                                   in got["phases"].items()))
        print(f"  CPU s {sum(got['cpu'].values()):.1f} ({sum(got['cpu'].values()) / cpu_bare:.2f}x"
              f" the bare loop's): {cpu}")
