"""Reconciliation at scale: a synthesised ledger of many succeeded jobs, reconciled twice.

The ledger rows and output objects are written directly (what `stmtflow import` would leave
behind, without parsing thousands of PDFs): jobs of a few hundred accounts, each statement
with its own transactions and one overlapping the previous statement of its account, a few
needing review, and the listing stamps of their objects that the import records with each
success. Each round copies the untouched ledger, then times

- the **first pass**: the sweep and the report, the book taking in every statement (read
  for it; the stamps vouch for the other objects);
- the **steady pass**: the same again, nothing new (the listing vouches for every object, so
  none is read);
- the **floor**: reading and hashing every output object once, which a first pass without
  the import's stamps must do to check them;
- the **per-statement baseline**: the book taking in the first `sample` statements one
  transaction each, against the same statements in one batch.

Rounds are interleaved and medians printed, with the load average of each round and the
time each pass's main thread waited for a core, because the machine may be busy: a pass's
wall time less its CPU and that wait is, roughly, its own waiting (disks, threads).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from flows.job_files import SCHEMA_VERSION, document_files
from parsers.codes import BatchState, Outcome, Status
from reconcile.book import Book, Delivery
from reconcile.db import attempts, batches, jobs, make_engine, notifications, output_stamps
from reconcile.ledger import Ledger
from reconcile.recovery import sweep
from reconcile.report import build
from reconcile.storage import Storage, sha256

BANKS = ("northwind", "bluebird", "harbor", "alpenbank")
WORDS = ("COFFEE HOUSE", "GROCER", "RENT", "SALARY", "FUEL STATION", "PHARMACY", "BOOKSHOP",
         "TRANSFER TO SAVINGS", "CARD PAYMENT", "RESTAURANT", "UTILITIES", "INSURANCE")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def statement(rng: random.Random, bank: str, last4: str, month: int, carried: list[dict],
              ok: bool) -> tuple[dict[str, Any], list[dict]]:
    """A statement document of one account: `carried` rows first (the overlap), then new."""
    start = date(2020, 1, 1) + timedelta(days=30 * month)
    rows = list(carried)
    for n in range(rng.randint(15, 35)):
        rows.append({"date": (start + timedelta(days=n % 28)).isoformat(),
                     "description": f"{rng.choice(WORDS)} {rng.randint(1, 999)}",
                     "amount": str(Decimal(rng.randint(-90000, 60000)) / 100),
                     "balance": None})
    opening = Decimal(rng.randint(0, 10**6)) / 100
    closing = opening + sum(Decimal(r["amount"]) for r in rows)
    doc = {"schema_version": SCHEMA_VERSION, "bank": bank,
           "period": {"start": start.isoformat(), "end": (start + timedelta(days=29)).isoformat()},
           "accounts": [{"account_last4": last4, "currency": "USD",
                         "opening_balance": f"{opening:.2f}", "closing_balance": f"{closing:.2f}",
                         "transactions": rows}],
           "validation": {"ok": ok, "problems": [] if ok else ["running balance"], "repairs": []},
           "layout": bank, "pages": 2, "ocr_pages": 0}
    return doc, rows[-3:]


def synthesise(root: Path, count: int, seed: int, batch_size: int = 1000) -> Path:
    """A ledger of `count` succeeded jobs and their objects under `root`; returns the db."""
    rng = random.Random(seed)
    storage = root / "storage"
    partial = root / "ledger.db.partial"  # named ledger.db once complete
    root.mkdir(parents=True)
    engine = make_engine(f"sqlite:///{partial}")
    accounts = [(rng.choice(BANKS), f"{rng.randint(0, 9999):04d}") for _ in range(300)]
    carried: dict[tuple[str, str], list[dict]] = {}
    store = Storage(str(storage))
    job_rows, attempt_rows, note_rows, batch_rows, stamp_rows = [], [], [], [], []
    for i in range(count):
        if i % batch_size == 0:
            batch_rows.append({"batch_id": f"b-{i // batch_size:05d}", "source": "synthetic",
                               "created_at": T0, "state": BatchState.COMPLETED.value})
        bank, last4 = accounts[i % len(accounts)]
        doc, carried[(bank, last4)] = statement(
            rng, bank, last4, i // len(accounts), carried.get((bank, last4), []),
            ok=rng.random() > 0.03)
        job_id = f"j-{i:016x}"
        sha = sha256(job_id.encode())
        doc.update(job_id=job_id, input_sha256=sha)
        files = document_files(doc)
        folder = storage / "results" / job_id
        folder.mkdir(parents=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        digests = {store.uri(f"results/{job_id}/{n}"): sha256(d) for n, d in files.items()}
        stamp_rows += [{"uri": uri, "size": listed.size, "stamp": listed.stamp,
                        "sha256": digests[uri]}
                       for uri, listed in store.list_objects(f"results/{job_id}").items()]
        at = T0 + timedelta(seconds=i)
        job_rows.append({
            "job_id": job_id, "batch_id": f"b-{i // batch_size:05d}",
            "source_uri": f"/inbox/{job_id}.pdf", "input_uri": f"{storage}/inputs/{sha}.pdf",
            "size": 1, "sha256": sha, "submitted_at": at, "expires_at": at + timedelta(days=1),
            "chain_revision": "c", "ocr_engine": "o", "policy_revision": "p",
            "status": Status.SUCCEEDED, "attempts": 1,
            "output_uri": f"{storage}/results/{job_id}/statement.json",
            "output_digest": sha256(files["statement.json"]),
            "outputs": json.dumps({n: sha256(d) for n, d in files.items()}),
            "needs_review": not doc["validation"]["ok"], "bank": bank, "account_last4": last4,
            "transactions": len(doc["accounts"][0]["transactions"]),
            "finished_at": at + timedelta(seconds=2)})
        attempt_rows.append({"job_id": job_id, "number": 1, "lease_owner": "bench",
                             "started_at": at, "ended_at": at + timedelta(seconds=2),
                             "outcome": Outcome.SUCCEEDED})
        note_rows.append({"job_id": job_id, "channel": "event", "attempts": 1,
                          "delivered_at": at, "created_at": at})
    with engine.begin() as c:
        c.execute(insert(batches), batch_rows)
        c.execute(insert(jobs), job_rows)
        c.execute(insert(attempts), attempt_rows)
        c.execute(insert(notifications), note_rows)
        c.execute(insert(output_stamps), stamp_rows)
    engine.dispose()
    return partial.rename(root / "ledger.db")


def waited() -> float:
    """Seconds this thread has spent runnable but waiting for a core (Linux's schedstat; 0
    where there is none): what the machine's load adds to a pass, apart from its own
    waiting on disks and threads."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except OSError:
        return 0.0


def reconcile_pass(db: Path, storage: Path) -> tuple[float, float, float, dict[str, Any]]:
    """Seconds (wall, CPU of this process, and waiting for a core) for the sweep and the
    report on the ledger at `db`, and the report."""
    t0, cpu, queued = time.perf_counter(), time.process_time(), waited()
    ledger = Ledger(make_engine(f"sqlite:///{db}"))
    swept = sweep(ledger)
    report = build(ledger, Storage(str(storage)), operator=None,
                   queue_limit=timedelta(hours=24), capacity=500,
                   review_alert=timedelta(hours=48), completed_tasks=set(), swept=swept,
                   notifications_resent=0)
    seconds = time.perf_counter() - t0, time.process_time() - cpu, waited() - queued
    ledger.engine.dispose()
    return *seconds, report


def floor(storage: Path) -> float:
    """Seconds to read and hash every output object once, one at a time."""
    t0 = time.perf_counter()
    for path in sorted((storage / "results").rglob("*.*")):
        sha256(path.read_bytes())
    return time.perf_counter() - t0


def book_alone(db: Path, storage: Path, sample: int, batched: bool) -> float:
    """Seconds for a fresh book to take in the first `sample` statements."""
    ledger = Ledger(make_engine(f"sqlite:///{db}"))
    deliveries = []
    for j in ledger.jobs()[:sample]:
        data = (storage / "results" / j.job_id / "statement.json").read_bytes()
        deliveries.append(Delivery(j.job_id, j.sha256, sha256(data), json.loads(data),
                                   recorded_digest=j.output_digest, output_uri=j.output_uri))
    book = Book(ledger.engine)
    t0 = time.perf_counter()
    if batched:
        book.consume_many(deliveries)
    else:
        for d in deliveries:
            book.consume(d)
    seconds = time.perf_counter() - t0
    ledger.engine.dispose()
    return seconds


def run(count: int, rounds: int, sample: int, seed: int, keep: Path | None = None) -> None:
    """`keep`: a folder where the synthesised ledger is kept for the next run (and reused)."""
    work = Path(tempfile.mkdtemp(prefix="stmtflow-reconcile-"))
    source = (keep or work) / f"ledger-{count}-{seed}"
    pristine = source / "ledger.db"
    if not pristine.exists():
        t0 = time.perf_counter()
        shutil.rmtree(source, ignore_errors=True)
        synthesise(source, count, seed)
        print(f"synthesised {count} succeeded jobs in {time.perf_counter() - t0:.0f} s")
    storage = source / "storage"
    first, steady, bare, one, many, loads = [], [], [], [], [], []
    first_cpu, steady_cpu, first_queued, steady_queued = [], [], [], []
    for r in range(rounds):
        loads.append(os.getloadavg()[0])
        db = work / f"round-{r}.db"
        shutil.copy(pristine, db)
        seconds, cpu, queued, report = reconcile_pass(db, storage)
        first.append(seconds)
        first_cpu.append(cpu)
        first_queued.append(queued)
        seconds, cpu, queued, _ = reconcile_pass(db, storage)
        steady.append(seconds)
        steady_cpu.append(cpu)
        steady_queued.append(queued)
        bare.append(floor(storage))
        for batched, out in ((r % 2 == 0, many if r % 2 == 0 else one),
                             (r % 2 == 1, many if r % 2 == 1 else one)):
            copy = work / f"book-{r}-{batched}.db"
            shutil.copy(pristine, copy)
            out.append(book_alone(copy, storage, sample, batched))
        print(f"round {r + 1}: load {loads[-1]:.1f}, first {first[-1]:.1f} s "
              f"({first_cpu[-1]:.1f} s CPU, {first_queued[-1]:.1f} s waiting for a core), "
              f"steady {steady[-1]:.1f} s ({steady_cpu[-1]:.1f} s CPU, "
              f"{steady_queued[-1]:.1f} s waiting for a core), floor {bare[-1]:.1f} s, "
              f"book of {sample}: one by one "
              f"{one[-1]:.2f} s, batched {many[-1]:.2f} s; state {report['state']}, "
              f"{report['consumer']['imported']} imported, {report['consumer']['held']} held")
    med = statistics.median
    print(f"reconcile of {count} jobs (medians of {rounds} rounds, load {med(loads):.1f}): "
          f"first pass {med(first):.1f} s ({med(first_cpu):.1f} s CPU, "
          f"{med(first_queued):.1f} s waiting for a core), steady pass {med(steady):.1f} s "
          f"({med(steady_cpu):.1f} s CPU, {med(steady_queued):.1f} s waiting for a core); "
          f"reading and hashing every object {med(bare):.1f} s (floor): "
          f"steady/floor {med(steady) / med(bare):.2f}x")
    print(f"book, {sample} statements: one transaction each {med(one):.2f} s (baseline), one "
          f"batch {med(many):.2f} s; ratio {med(one) / med(many):.1f}x")
    shutil.rmtree(work, ignore_errors=True)
