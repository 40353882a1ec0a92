"""What the ledger costs an import per file, on SQLite: the claim, the finish (guarded update,
attempt end, owed notification, the record read back) and the delivery record of the
notification, each its own transaction, as `process_job` makes them.

Two ledgers side by side, cycles interleaved: one finishing with its objects' stamps (three
`output_stamps` rows, what an import records), one without (the baseline), so that what the
stamps add is a ratio from one run. Wall and CPU seconds of this process are both printed:
each commit waits for the disk (SQLite syncs its log), which the machine's load does not
change much, while the CPU shows what the Python side costs.
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

from reconcile.db import make_engine
from reconcile.ledger import Ledger
from reconcile.notifications import Notifications
from reconcile.records import Identities
from reconcile.storage import Stamp

OBJECTS = ("statement.json", "transactions.csv", "transactions.parquet")
PHASES = ("claim", "finish", "record")


class Timed:
    """Wall and CPU seconds summed per phase."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)

    def __call__(self, phase: str, started: tuple[float, float]) -> None:
        self.wall[phase] += time.perf_counter() - started[0]
        self.cpu[phase] += time.process_time() - started[1]

    def line(self, cycles: int) -> str:
        parts = [f"{p} {self.wall[p] / cycles * 1e3:.2f} ms ({self.cpu[p] / cycles * 1e3:.2f} "
                 f"CPU)" for p in PHASES]
        return (", ".join(parts) + f"; per file {sum(self.wall.values()) / cycles * 1e3:.2f} "
                f"ms ({sum(self.cpu.values()) / cycles * 1e3:.2f} ms CPU)")


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def ledger_of(folder: Path, cycles: int) -> tuple[Ledger, Notifications, list[str]]:
    """A new ledger with `cycles` queued jobs."""
    engine = make_engine(f"sqlite:///{folder}/ledger.db")
    ledger = Ledger(engine)
    ledger.open_batch("b", "benchmark", None)
    jobs = [ledger.accept("b", source_uri=f"/inbox/{n}.pdf", input_uri=f"/inputs/{n}", size=1,
                          sha256=f"{n:064x}", bank_hint=None, ids=Identities("c", "o", "p"),
                          queue_limit=timedelta(days=1)).job_id for n in range(cycles)]
    return ledger, Notifications(engine), jobs


def cycle(ledger: Ledger, notes: Notifications, job_id: str, stamped: bool,
          timed: Timed) -> None:
    """One file's ledger work, as `process_job` does it on a success."""
    t = now()
    claim = ledger.claim(job_id, "benchmark")
    timed("claim", t)
    if claim is None:
        raise RuntimeError(f"{job_id}: the benchmark's claim lost")
    prefix = f"/results/{job_id}/1-abcd"
    digests = {name: f"{n:064x}" for n, name in enumerate(OBJECTS)}
    stamps = [Stamp(f"{prefix}/{name}", 1000, "1:2:3", d) for name, d in digests.items()]
    t = now()
    ledger.succeed(claim, output_uri=f"{prefix}/statement.json",
                   output_digest=digests["statement.json"], outputs=digests,
                   needs_review=False, bank="b", account_last4="1234", transactions=20,
                   notify=("event",), stamps=stamps if stamped else ())
    timed("finish", t)
    t = now()
    notes.record(job_id, "event", None)
    timed("record", t)


def run(cycles: int) -> None:
    with tempfile.TemporaryDirectory(prefix="stmtflow-ledger-") as work:
        setups = {}
        for stamped in (True, False):
            folder = Path(work) / ("stamped" if stamped else "plain")
            folder.mkdir()
            setups[stamped] = (*ledger_of(folder, cycles), Timed())
        for n in range(cycles):
            for stamped in ((True, False) if n % 2 else (False, True)):
                ledger, notes, jobs, timed = setups[stamped]
                cycle(ledger, notes, jobs[n], stamped, timed)
        plain, stamped = setups[False][3], setups[True][3]
        print(f"ledger, {cycles} files on SQLite: without stamps (baseline) "
              f"{plain.line(cycles)}")
        print(f"  with stamps {stamped.line(cycles)}")
        print(f"  stamps: finish {stamped.cpu['finish'] / plain.cpu['finish']:.2f}x CPU; the "
              f"delivery record is {plain.cpu['record'] / sum(plain.cpu.values()):.0%} of the "
              f"baseline's CPU, {plain.wall['record'] / sum(plain.wall.values()):.0%} of its "
              f"wall")
        for ledger, *_ in setups.values():
            ledger.engine.dispose()
