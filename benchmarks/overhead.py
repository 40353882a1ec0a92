"""What `stmtflow import` costs on top of parsing: text statements through the command on two
workers against a bare single-process loop over `parse_pdf` on the same files.

- **bare loop** (baseline): a new process imports the parser, then parses every file in turn;
  its whole time (start-up included) and the loop alone are both timed;
- **import**: `stmtflow import DIR --json` in a new process, on a new home, with the
  ephemeral Prefect API; its whole time, and from its ledger the processing span (first
  claim to last finish), the mean attempt (claim to finish: read, parse in a worker process,
  write and verify the outputs, record) and what is left between attempts (Prefect's task
  bookkeeping, the thread pool).

Targets: processing per file ≤ 1.3x the bare loop's per file / 2 (both cores used), and the
whole import ≤ 2x the bare loop with its start-up.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import corpora
from corpus import SCANNED
from reconcile.records import Attempt

BARE = ("import sys, time\n"
        "from pathlib import Path\n"
        "from parsers.api import parse_pdf\n"
        "files = [Path(p).read_bytes() for p in sys.argv[1:]]\n"
        "t0 = time.perf_counter()\n"
        "for data in files:\n"
        "    parse_pdf(data)\n"
        "print(time.perf_counter() - t0)\n")


def bare(files: list[Path]) -> tuple[float, float]:
    """(whole seconds with start-up, seconds of the loop alone) of the bare loop."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BARE, *map(str, files)], capture_output=True,
                          text=True, check=True)
    return time.perf_counter() - t0, float(done.stdout.strip().splitlines()[-1])


def through_import(folder: Path, workers: int) -> dict[str, Any]:
    """Seconds of `stmtflow import` on a new home: whole, processing span, mean attempt."""
    home = tempfile.mkdtemp(prefix="stmtflow-overhead-")
    env = {**os.environ, "STMTFLOW_HOME": home, "STMTFLOW_WORKERS": str(workers),
           "STMTFLOW_PARSE_WORKERS": str(workers)}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "flows.cli", "import", str(folder), "--json"],
                          env=env, capture_output=True, text=True)
    whole = time.perf_counter() - t0
    if not done.stdout.strip():
        raise RuntimeError(f"the import printed nothing: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    attempts = _attempts(home)
    starts = [a.started_at for a in attempts]
    ends = [a.ended_at for a in attempts if a.ended_at is not None]
    return {"whole": whole, "command": float(report["seconds"]),
            "span": (max(ends) - min(starts)).total_seconds(),
            "attempt": statistics.mean((a.ended_at - a.started_at).total_seconds()
                                       for a in attempts if a.ended_at is not None),
            "files": float(len(report["jobs"])), "state": report["state"]}


def _attempts(home: str) -> list[Attempt]:
    """Every attempt row of the ledger in `home`."""
    from flows.config import Settings

    saved = os.environ.get("STMTFLOW_HOME")
    os.environ["STMTFLOW_HOME"] = home
    try:
        ledger = Settings.from_env().ledger()
        return [a for j in ledger.jobs() for a in ledger.attempts(j.job_id)]
    finally:
        if saved is None:
            os.environ.pop("STMTFLOW_HOME")
        else:
            os.environ["STMTFLOW_HOME"] = saved


def run(statements: int, seed: int, workers: int) -> None:
    samples = [s for s in corpora.plain(statements * 2, seed) if s.bank not in SCANNED
               and s.reason is None][:statements]
    folder = corpora.work() / f"overhead-{statements}-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    for s in samples:
        (folder / s.pdf.name).write_bytes(s.pdf.read_bytes())
    files = sorted(folder.glob("*.pdf"))
    load = os.getloadavg()[0]
    whole_bare, loop = bare(files)
    got = through_import(folder, workers)
    n = len(files)
    per_bare, per_import = loop / n, got["span"] / n
    print(f"{n} text statements (load {load:.1f}): bare loop {loop:.1f} s ({1000 * per_bare:.0f} "
          f"ms/file, baseline), {whole_bare:.1f} s with start-up; `stmtflow import` on "
          f"{workers} workers {got['whole']:.1f} s whole, {got['state']} "
          f"({got['whole'] / whole_bare:.2f}x the bare loop with start-up; target <= 2x)")
    print(f"  processing {got['span']:.1f} s, {1000 * per_import:.0f} ms/file: "
          f"{per_import / (per_bare / workers):.2f}x the bare loop / {workers} (target <= 1.3x); "
          f"mean attempt {1000 * got['attempt']:.0f} ms (parse alone {1000 * per_bare:.0f}); "
          f"start-up and acceptance before the first claim and the end after the last "
          f"{got['whole'] - got['span']:.1f} s")
