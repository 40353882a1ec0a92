"""Ledger transitions: the database is the lock, terminal records never change."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy import update

from reconcile.db import jobs, make_engine
from reconcile.ledger import (
    EXPIRED,
    FAILED,
    MAX_ATTEMPTS,
    PROCESSING,
    QUEUED,
    RETRYING,
    SUCCEEDED,
    Identities,
    Ledger,
)

IDS = Identities("chain-1", "tesseract:5.3.0+eng:abc", "balances-v1")


def new_ledger(url: str, lease: timedelta = timedelta(minutes=5)) -> Ledger:
    return Ledger(make_engine(url), lease=lease)


def accept(ledger: Ledger, n: int, batch: str = "b-1",
           limit: timedelta = timedelta(hours=1)) -> list[str]:
    ledger.open_batch(batch, "test", None)
    return [ledger.accept(batch, source_uri=f"file:///{i}.pdf", input_uri=f"mem://{i}",
                          size=1, sha256=f"{i:064x}", bank_hint=None, ids=IDS,
                          queue_limit=limit) for i in range(n)]


def succeed(ledger: Ledger, claim) -> bool:
    return ledger.succeed(claim, output_uri="mem://out", output_digest="d", outputs={},
                          needs_review=False, bank="x", account_last4="1234", transactions=0)


def test_same_bytes_in_same_batch_is_one_job(database_url: str) -> None:
    ledger = new_ledger(database_url)
    first = accept(ledger, 3)
    assert accept(ledger, 3) == first
    assert len(ledger.jobs("b-1")) == 3


def test_two_claimants_exactly_one_wins(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    barrier = threading.Barrier(2)

    def race(owner: str):
        barrier.wait()
        return ledger.claim(job, owner)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(race, ["a", "b"]))
    assert sum(r is not None for r in results) == 1
    assert ledger.job(job)["attempts"] == 1


def test_claim_race_sixteen_workers_five_hundred_jobs(database_url: str) -> None:
    ledger = new_ledger(database_url)
    ids = accept(ledger, 500)
    wins: list[tuple[str, int]] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        for job in ids:
            claim = ledger.claim(job, f"w{n}")
            if claim is not None:
                with lock:
                    wins.append((job, claim.attempt))
                assert ledger.retry(claim, "timeout", "injected") if claim.attempt < 2 \
                    else succeed(ledger, claim)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # every job: claimed once for attempt 1 and once for attempt 2, never twice per attempt
    assert sorted(wins) == sorted((j, a) for j in ids for a in (1, 2))
    rows = ledger.jobs("b-1")
    assert {r["status"] for r in rows} == {SUCCEEDED}
    assert all(r["attempts"] == 2 == len(ledger.attempts(r["job_id"])) for r in rows)


def test_deterministic_failure_counts_one_attempt(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w")
    assert ledger.fail(claim, "deterministic", "corrupt", "broken xref")
    row = ledger.job(job)
    assert (row["status"], row["attempts"], row["reason"]) == (FAILED, 1, "corrupt")
    assert ledger.claim(job, "w2") is None  # terminal records never change


def test_stale_worker_commits_nothing(database_url: str) -> None:
    ledger = new_ledger(database_url, lease=timedelta(milliseconds=50))
    [job] = accept(ledger, 1)
    stale = ledger.claim(job, "paused-worker")
    time.sleep(0.1)
    assert ledger.reclaim() == [job]
    fresh = ledger.claim(job, "second-worker")
    assert fresh is not None and fresh.attempt == 2
    assert succeed(ledger, fresh)
    assert not succeed(ledger, stale)
    assert not ledger.fail(stale, "transient", "timeout", "late")
    row = ledger.job(job)
    assert (row["status"], row["attempts"]) == (SUCCEEDED, 2)
    assert [a["outcome"] for a in ledger.attempts(job)] == ["crashed", "succeeded"]


def test_crash_on_the_last_attempt_fails_the_job(database_url: str) -> None:
    ledger = new_ledger(database_url, lease=timedelta(milliseconds=20))
    [job] = accept(ledger, 1)
    for _ in range(MAX_ATTEMPTS):
        assert ledger.claim(job, "w") is not None
        time.sleep(0.05)
        ledger.reclaim()
    row = ledger.job(job)
    assert (row["status"], row["attempts"], row["reason"]) == (FAILED, 3, "retries_exhausted")


def test_expired_job_is_never_claimed(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1, limit=timedelta(milliseconds=30))
    time.sleep(0.06)
    assert ledger.claim(job, "w") is None
    assert ledger.expire() == [job]
    row = ledger.job(job)
    assert (row["status"], row["attempts"]) == (EXPIRED, 0)
    assert ledger.claim(job, "w") is None


def test_expiry_boundary_no_job_both_expired_and_processed(database_url: str) -> None:
    """Claimers and the expirer race at the limit: each job ends in exactly one of the two."""
    ledger = new_ledger(database_url)
    ids = accept(ledger, 200, limit=timedelta(milliseconds=150))
    claimed: set[str] = set()

    def claimer() -> None:
        for job in ids:
            if ledger.claim(job, "w") is not None:
                claimed.add(job)

    def expirer() -> None:
        for _ in range(40):
            ledger.expire()
            time.sleep(0.01)

    threads = [threading.Thread(target=claimer), threading.Thread(target=expirer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ledger.expire()
    time.sleep(0.2)
    ledger.expire()
    rows = {r["job_id"]: r for r in ledger.jobs("b-1")}
    for job, row in rows.items():
        if job in claimed:
            assert row["status"] == PROCESSING and row["attempts"] == 1
        else:
            assert row["status"] == EXPIRED and row["attempts"] == 0


def test_retrying_job_is_not_expired(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1, limit=timedelta(milliseconds=30))
    claim = ledger.claim(job, "w")
    assert ledger.retry(claim, "timeout", "transient")
    time.sleep(0.05)
    assert ledger.expire() == []
    assert ledger.job(job)["status"] == RETRYING
    assert ledger.claim(job, "w") is not None


def test_database_is_the_lock_even_when_rows_are_changed_underneath(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w")
    with ledger.engine.begin() as c:  # an operator resets the job by hand
        c.execute(update(jobs).where(jobs.c.job_id == job).values(status=QUEUED))
    assert not succeed(ledger, claim)


