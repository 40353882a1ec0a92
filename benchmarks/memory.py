"""Peak memory of `stmtflow import` by batch size: does any process grow with the file count?

Each size runs `stmtflow import DIR --json` in a new process on a new home (local folder,
SQLite, the ephemeral Prefect API) with two parse workers, and samples the resident set of
its whole process tree a few times a second, by role:

- **cli**: the command's own process (the flow, its tasks, the ledger);
- **prefect server**: the ephemeral API's subprocess;
- **parse workers**: the pool's worker processes together (and the largest one alone);
- **fork server**, **other**: multiprocessing's fork server and resource tracker;
- **total**: the whole tree summed at one sample.

Files are text statements of the corpus generator: the smallest size's worth of distinct
statements, each copy carrying its own trailing PDF comment, so every file has distinct bytes
(acceptance never makes it a duplicate) and is parsed in full. Target: every role's peak at
the largest size ≤ 1.2x its peak at the smallest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil

from benchmarks import corpora
from corpus import SCANNED

ROLES = ("cli", "prefect server", "parse workers", "largest worker", "fork server", "other",
         "total")
MB = 1024 * 1024


def folder(files: int, distinct: int, seed: int) -> Path:
    """`files` text statements with distinct bytes, made from `distinct` generated ones."""
    samples = [s for s in corpora.plain(distinct * 2, seed) if s.bank not in SCANNED
               and s.reason is None][:distinct]
    out = corpora.work() / f"memory-{files}-{distinct}-{seed}"
    out.mkdir(parents=True, exist_ok=True)
    bodies = [s.pdf.read_bytes() for s in samples]
    for i in range(files):
        (out / f"s{i:05d}.pdf").write_bytes(bodies[i % len(bodies)] + b"%%copy %d\n" % i)
    return out


def _role(proc: psutil.Process, root: int, forkserver: set[int]) -> str:
    if proc.pid == root:
        return "cli"
    cmd = " ".join(proc.cmdline())
    if "forkserver" in cmd:
        if proc.ppid() in forkserver:
            return "parse workers"
        forkserver.add(proc.pid)
        return "fork server"
    if ("prefect" in cmd and "server" in cmd) or "embedded_app" in cmd:
        return "prefect server"
    return "other"


def sampled(folder: Path, workers: int, every: float = 0.2) -> tuple[dict[str, float], dict]:
    """(peak MB by role, the command's JSON report) of one import on a new home."""
    home = tempfile.mkdtemp(prefix="stmtflow-memory-")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(STMTFLOW_HOME=home, STMTFLOW_WORKERS=str(workers),
               STMTFLOW_PARSE_WORKERS=str(workers))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        cli = subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder), "--json"],
                               env=env, stdout=out, stderr=err)
        root = psutil.Process(cli.pid)
        roles: dict[int, str] = {}
        forkserver: set[int] = set()
        peak: dict[str, float] = defaultdict(float)
        while cli.poll() is None:
            now: dict[str, float] = defaultdict(float)
            try:
                tree = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                break
            for proc in tree:
                try:
                    role = roles.get(proc.pid) or roles.setdefault(
                        proc.pid, _role(proc, cli.pid, forkserver))
                    rss = proc.memory_info().rss / MB
                except psutil.NoSuchProcess:
                    continue
                now[role] += rss
                now["total"] += rss
                if role == "parse workers":
                    now["largest worker"] = max(now["largest worker"], rss)
            for role, mb in now.items():
                peak[role] = max(peak[role], mb)
            time.sleep(every)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if not stdout.strip():
        raise RuntimeError(f"the import printed nothing: {stderr[-2000:]}")
    return dict(peak), json.loads(stdout)


def run(sizes: list[int], seed: int, workers: int) -> None:
    sizes = sorted(sizes)
    peaks: dict[int, dict[str, float]] = {}
    for n in sizes:
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        peaks[n], report = sampled(folder(n, sizes[0], seed), workers)
        states: dict[str, int] = defaultdict(int)
        for job in report["jobs"]:
            states[str(job.get("status"))] += 1
        print(f"{n} files (load {load:.1f}): {report['state']} in "
              f"{time.perf_counter() - t0:.0f} s, jobs {dict(states)}")
    small, large = sizes[0], sizes[-1]
    print(f"peak RSS (MB) on {workers} parse workers, {small} -> {large} files "
          f"(target <= 1.2x):")
    for role in ROLES:
        got = [peaks[n].get(role, 0.0) for n in sizes]
        if not any(got):
            continue
        ratio = got[-1] / got[0] if got[0] else float("inf")
        figures = " -> ".join(f"{mb:.0f}" for mb in got)
        print(f"  {role:15} {figures:>24}  {ratio:.2f}x")
