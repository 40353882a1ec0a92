"""Ledger transitions: the database is the lock, terminal records never change.

Time is the ledger's injected clock: leases run out and queues expire when a test moves it,
never by sleeping.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text, update

from parsers.codes import ErrorClass, Outcome, Reason, Status
from reconcile import ledger as ledger_module
from reconcile.db import jobs, make_engine
from reconcile.ledger import MAX_ATTEMPTS, Claim, Ledger
from reconcile.records import Identities, Job

IDS = Identities("chain-1", "tesseract:5.3.0+eng:abc", "balances-v1")
LEASE = timedelta(minutes=5)


class ManualClock:
    """A clock that moves only when told to, or by `tick` on every reading."""

    def __init__(self, tick: timedelta = timedelta(0)) -> None:
        self.now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        self.tick = tick
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            now, self.now = self.now, self.now + self.tick
            return now

    def advance(self, by: timedelta) -> None:
        with self._lock:
            self.now += by


def new_ledger(url: str, clock: ManualClock | None = None) -> Ledger:
    return Ledger(make_engine(url), lease=LEASE, clock=clock or ManualClock())


def accept(ledger: Ledger, n: int, batch: str = "b-1",
           limit: timedelta = timedelta(hours=1)) -> list[str]:
    ledger.open_batch(batch, "test", None)
    return [ledger.accept(batch, source_uri=f"file:///{i}.pdf", input_uri=f"mem://{i}",
                          size=1, sha256=f"{i:064x}", bank_hint=None, ids=IDS,
                          queue_limit=limit).job_id for i in range(n)]


def succeed(ledger: Ledger, claim: Claim) -> Job | None:
    return ledger.succeed(claim, output_uri="mem://out", output_digest="d", outputs={},
                          needs_review=False, bank="x", account_last4="1234", transactions=0)


def test_the_same_file_in_the_same_batch_is_one_job(database_url: str) -> None:
    ledger = new_ledger(database_url)
    first = accept(ledger, 3)
    assert accept(ledger, 3) == first
    assert len(ledger.jobs("b-1")) == 3


def test_the_same_bytes_under_another_name_are_a_duplicate_job_of_the_batch(
        database_url: str) -> None:
    ledger = new_ledger(database_url)
    [first] = accept(ledger, 1)
    again = ledger.accept("b-1", source_uri="file:///copy-of-0.pdf", input_uri="mem://0",
                          size=1, sha256=f"{0:064x}", bank_hint=None, ids=IDS,
                          queue_limit=timedelta(hours=1))
    assert (again.job_id != first, again.status, again.duplicate_of) == (
        True, Status.DUPLICATE, first)
    assert sorted(j.source_uri for j in ledger.jobs("b-1")) == [
        "file:///0.pdf", "file:///copy-of-0.pdf"]


def test_acceptance_returns_the_job_as_committed_with_its_input_claimed(
        database_url: str) -> None:
    """A new file's envelope and its input claim are one transaction: the job it returns is
    the one a read finds, and the next job of the same bytes is its duplicate."""
    ledger = new_ledger(database_url)
    [job_id] = accept(ledger, 1)
    accepted = ledger.job(job_id)
    assert accepted is not None and accepted.status is Status.QUEUED
    ledger.open_batch("b-2", "test", None)
    again = ledger.accept("b-2", source_uri="file:///again.pdf", input_uri="mem://0", size=1,
                          sha256=f"{0:064x}", bank_hint=None, ids=IDS, queue_limit=LEASE)
    assert (again.status, again.duplicate_of) == (Status.DUPLICATE, job_id)
    fresh = ledger.accept("b-1", source_uri="file:///new.pdf", input_uri="mem://new", size=2,
                          sha256="f" * 64, bank_hint="x", ids=IDS, queue_limit=LEASE)
    assert fresh == ledger.job(fresh.job_id)
    assert (fresh.status, fresh.bank_hint, fresh.size) == (Status.QUEUED, "x", 2)


def test_rows_come_back_as_records_with_aware_times(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job_id] = accept(ledger, 1)
    job = ledger.job(job_id)
    assert job is not None and job.status is Status.QUEUED
    assert job.submitted_at == clock.now and job.expires_at == clock.now + timedelta(hours=1)
    assert job.identities == IDS
    batch = ledger.batch("b-1")
    assert batch is not None and batch.created_at.tzinfo is not None


def test_two_claimants_exactly_one_wins(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    barrier = threading.Barrier(2)

    def race(owner: str) -> Claim | None:
        barrier.wait()
        return ledger.claim(job, owner)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(race, ["a", "b"]))
    assert sum(r is not None for r in results) == 1
    assert ledger.job(job).attempts == 1


def test_every_thread_sharing_an_engine_holds_a_connection_at_once(database_url: str) -> None:
    # more threads than a default pool's 5 + 10 connections, all inside a transaction
    # together: none may be left waiting for a connection another holds
    engine = make_engine(database_url)
    together = threading.Barrier(20, timeout=20)

    def hold() -> None:
        with engine.begin() as c:
            c.execute(text("SELECT 1"))
            together.wait()

    threads = [threading.Thread(target=hold) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not together.broken
    engine.dispose()


def test_claim_race_sixteen_workers_five_hundred_jobs(database_url: str) -> None:
    ledger = new_ledger(database_url)
    ids = accept(ledger, 500)
    wins: list[tuple[str, int]] = []
    done: set[str] = set()
    lock = threading.Lock()
    give_up = time.monotonic() + 300  # a bound on a hang, not a measure of speed

    def worker(n: int) -> None:
        # sweep until every job succeeded: a job whose first attempt is still being set to
        # retry when a worker passes it is claimed on a later sweep
        while len(done) < len(ids) and time.monotonic() < give_up:
            for job in ids:
                if job in done:
                    continue
                claim = ledger.claim(job, f"w{n}")
                if claim is None:
                    continue
                with lock:
                    wins.append((job, claim.attempt))
                if claim.attempt < 2:
                    assert ledger.retry(claim, Reason.TIMEOUT, "injected")
                else:
                    assert succeed(ledger, claim)
                    with lock:
                        done.add(job)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # every job: claimed once for attempt 1 and once for attempt 2, never twice per attempt
    assert sorted(wins) == sorted((j, a) for j in ids for a in (1, 2))
    rows = ledger.jobs("b-1")
    assert {r.status for r in rows} == {Status.SUCCEEDED}
    assert all(r.attempts == 2 == len(ledger.attempts(r.job_id)) for r in rows)


def test_deterministic_failure_counts_one_attempt(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w")
    assert ledger.fail(claim, ErrorClass.DETERMINISTIC, Reason.CORRUPT, "broken xref")
    row = ledger.job(job)
    assert (row.status, row.attempts, row.reason) == (Status.FAILED, 1, Reason.CORRUPT)
    assert ledger.claim(job, "w2") is None  # terminal records never change


def test_stale_worker_commits_nothing(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1)
    stale = ledger.claim(job, "paused-worker", task_run_id="run-1")
    assert ledger.reclaim() == []  # its lease still runs
    clock.advance(LEASE + timedelta(seconds=1))
    assert ledger.reclaim() == [job]
    fresh = ledger.claim(job, "second-worker")
    assert fresh is not None and fresh.attempt == 2
    assert succeed(ledger, fresh)
    assert not succeed(ledger, stale)
    assert not ledger.fail(stale, ErrorClass.TRANSIENT, Reason.TIMEOUT, "late")
    row = ledger.job(job)
    assert (row.status, row.attempts) == (Status.SUCCEEDED, 2)
    assert [(a.outcome, a.task_run_id) for a in ledger.attempts(job)] == [
        (Outcome.CRASHED, "run-1"), (Outcome.SUCCEEDED, None)]


def test_crash_on_the_last_attempt_fails_the_job(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1)
    for _ in range(MAX_ATTEMPTS):
        assert ledger.claim(job, "w") is not None
        clock.advance(LEASE + timedelta(seconds=1))
        ledger.reclaim()
    row = ledger.job(job)
    assert (row.status, row.attempts, row.reason) == (
        Status.FAILED, 3, Reason.RETRIES_EXHAUSTED)
    assert ledger.last_attempts()[job].outcome == Outcome.CRASHED
    assert ledger.last_attempts()[job].number == 3


def test_expired_job_is_never_claimed(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1, limit=timedelta(minutes=30))
    assert ledger.expire() == []
    clock.advance(timedelta(minutes=30))
    assert ledger.claim(job, "w") is None
    assert ledger.expire() == [job]
    row = ledger.job(job)
    assert (row.status, row.attempts) == (Status.EXPIRED, 0)
    assert ledger.claim(job, "w") is None


def test_expiry_boundary_no_job_both_expired_and_processed(database_url: str) -> None:
    """Claimers and the expirer race while the clock crosses the limit: each job ends in
    exactly one of the two."""
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    limit = timedelta(milliseconds=150)
    ids = accept(ledger, 200, limit=limit)
    # from now on every claim and every expiry pass moves the clock by a millisecond, so the
    # limit falls in the middle of the race
    over = clock.now + 2 * limit
    clock.tick = timedelta(milliseconds=1)
    claimed: set[str] = set()
    done = threading.Event()

    def claimer() -> None:
        for job in ids:
            if ledger.claim(job, "w") is not None:
                claimed.add(job)
        done.set()

    def expirer() -> None:
        while not done.is_set() and clock.now < over:
            ledger.expire()

    threads = [threading.Thread(target=claimer), threading.Thread(target=expirer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    clock.advance(timedelta(seconds=1))
    ledger.expire()
    rows = {r.job_id: r for r in ledger.jobs("b-1")}
    for job, row in rows.items():
        if job in claimed:
            assert row.status == Status.PROCESSING and row.attempts == 1
        else:
            assert row.status == Status.EXPIRED and row.attempts == 0


def test_retrying_job_is_not_expired(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1, limit=timedelta(minutes=30))
    claim = ledger.claim(job, "w")
    assert ledger.retry(claim, Reason.TIMEOUT, "transient")
    clock.advance(timedelta(hours=1))
    assert ledger.expire() == []
    assert ledger.job(job).status == Status.RETRYING
    assert ledger.claim(job, "w") is not None


def test_database_is_the_lock_even_when_rows_are_changed_underneath(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w")
    with ledger.engine.begin() as c:  # an operator resets the job by hand
        c.execute(update(jobs).where(jobs.c.job_id == job).values(status=Status.QUEUED))
    assert not succeed(ledger, claim)


def accept_digest(ledger: Ledger, batch: str, digest: str, *, rerun_of: str | None = None,
                  source: str = "file:///in.pdf"):
    ledger.open_batch(batch, "test", None)
    return ledger.accept(batch, source_uri=source, input_uri=f"mem://{digest}", size=1,
                         sha256=digest, bank_hint=None, ids=IDS,
                         queue_limit=timedelta(hours=1), rerun_of=rerun_of)


def test_bytes_that_succeeded_become_a_duplicate_never_claimed(database_url: str) -> None:
    ledger = new_ledger(database_url)
    first = accept_digest(ledger, "b-1", "a" * 64)
    claim = ledger.claim(first.job_id, "w")
    assert claim is not None and succeed(ledger, claim)
    again = accept_digest(ledger, "b-2", "a" * 64)
    assert (again.status, again.duplicate_of, again.attempts) == (
        Status.DUPLICATE, first.job_id, 0)
    assert again.finished_at is not None
    assert ledger.claim(again.job_id, "w") is None
    assert ledger.outcome_of(again).job_id == first.job_id
    # other pins are other work: the same bytes under a new chain are parsed again
    ledger.open_batch("b-3", "test", None)
    other = ledger.accept("b-3", source_uri="file:///in.pdf", input_uri="mem://a", size=1,
                          sha256="a" * 64, bank_hint=None, ids=Identities("chain-2", "o", "p"),
                          queue_limit=timedelta(hours=1))
    assert other.status == Status.QUEUED


def test_bytes_in_flight_become_a_duplicate_of_the_running_job(database_url: str) -> None:
    ledger = new_ledger(database_url)
    first = accept_digest(ledger, "b-1", "b" * 64)
    assert ledger.claim(first.job_id, "w") is not None
    again = accept_digest(ledger, "b-2", "b" * 64)
    assert (again.status, again.duplicate_of) == (Status.DUPLICATE, first.job_id)


def test_a_holder_that_failed_transiently_hands_its_claim_over(database_url: str) -> None:
    ledger = new_ledger(database_url)
    first = accept_digest(ledger, "b-1", "c" * 64)
    claim = ledger.claim(first.job_id, "w")
    assert claim is not None
    assert ledger.fail(claim, ErrorClass.TRANSIENT, Reason.RETRIES_EXHAUSTED, "x")
    second = accept_digest(ledger, "b-2", "c" * 64)
    assert second.status == Status.QUEUED
    # and a deterministic failure is a property of the bytes: the next job is its duplicate
    claim = ledger.claim(second.job_id, "w")
    assert claim is not None and ledger.fail(claim, ErrorClass.DETERMINISTIC,
                                             Reason.CORRUPT, "x")
    third = accept_digest(ledger, "b-3", "c" * 64)
    assert (third.status, third.duplicate_of) == (Status.DUPLICATE, second.job_id)
    # unless a rerun asks for another try
    rerun = accept_digest(ledger, "b-4", "c" * 64, rerun_of=second.job_id)
    assert rerun.status == Status.QUEUED


def test_concurrent_acceptance_claims_each_input_once(database_url: str) -> None:
    ledger = new_ledger(database_url)
    digests = [f"{i:064x}" for i in range(40)]
    barrier = threading.Barrier(2)

    def accept_all(batch: str) -> list[Status]:
        ledger.open_batch(batch, "test", None)
        barrier.wait()
        return [accept_digest(ledger, batch, d).status for d in digests]

    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(accept_all, ["b-1", "b-2"])
    for i in range(len(digests)):
        assert sorted((a[i], b[i])) == [Status.DUPLICATE, Status.QUEUED]
    assert len([j for j in ledger.jobs() if j.status == Status.QUEUED]) == 40


def test_a_refused_source_is_failed_without_input_once(database_url: str) -> None:
    ledger = new_ledger(database_url)
    ledger.open_batch("b-1", "test", None)
    kwargs = dict(source_uri="/inbox/gone.pdf", size=0, reason=Reason.UNREADABLE_SOURCE,
                  message="FileNotFoundError", bank_hint=None, ids=IDS,
                  queue_limit=timedelta(hours=1))
    first = ledger.refuse("b-1", **kwargs)
    other = ledger.refuse("b-1", **{**kwargs, "source_uri": "/inbox/also-gone.pdf"})
    assert ledger.refuse("b-1", **kwargs).job_id == first.job_id != other.job_id
    assert (first.status, first.reason, first.attempts, first.input_uri, first.sha256) == (
        Status.FAILED, Reason.UNREADABLE_SOURCE, 0, None, None)
    assert ledger.claim(first.job_id, "w") is None


def test_a_stale_run_cannot_close_the_batch(database_url: str) -> None:
    from parsers.codes import BatchState

    ledger = new_ledger(database_url)
    ledger.open_batch("b-1", "test", None)
    stale = ledger.take_batch("b-1", "run-1")
    fresh = ledger.take_batch("b-1", "run-2")
    assert ledger.close_batch("b-1", BatchState.COMPLETED_WITH_WARNINGS, fresh)
    assert not ledger.close_batch("b-1", BatchState.INVALID, stale)
    batch = ledger.batch("b-1")
    assert batch is not None
    assert (batch.state, batch.flow_run_id, batch.epoch) == (
        BatchState.COMPLETED_WITH_WARNINGS, "run-2", fresh)


def test_renew_keeps_a_live_lease_from_the_sweep(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w1")
    assert claim is not None
    for _ in range(3):  # three leases' worth of time, renewed each third
        clock.advance(LEASE * 2 / 3)
        assert ledger.renew(claim)
        assert ledger.reclaim() == []
    assert succeed(ledger, claim)


def test_renew_after_the_lease_was_taken_over_loses(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w1")
    assert claim is not None
    clock.advance(LEASE + timedelta(seconds=1))
    assert ledger.reclaim() == [job]
    assert not ledger.renew(claim)
    assert ledger.job(job).status == Status.RETRYING


def test_reclaim_held_counts_the_dead_attempt_without_waiting(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    claim = ledger.claim(job, "w1", "task-run-1")
    assert claim is not None
    assert [j.job_id for j, a in ledger.held("b-1") if a.task_run_id == "task-run-1"] == [job]
    assert not ledger.reclaim_held(job, "someone-else")
    assert ledger.reclaim_held(job, "w1")  # its lease still runs: the run is known dead
    assert not ledger.reclaim_held(job, "w1")
    assert ledger.held("b-1") == []
    assert (ledger.job(job).status, ledger.job(job).attempts) == (Status.RETRYING, 1)
    assert [a.outcome for a in ledger.attempts(job)] == [Outcome.CRASHED]
    assert not succeed(ledger, claim)  # the dead holder commits nothing


def test_reclaim_held_on_the_last_attempt_fails_the_job(database_url: str) -> None:
    ledger = new_ledger(database_url)
    [job] = accept(ledger, 1)
    for n in range(1, MAX_ATTEMPTS + 1):
        claim = ledger.claim(job, f"w{n}")
        assert claim is not None and ledger.reclaim_held(job, f"w{n}")
    record = ledger.job(job)
    assert (record.status, record.reason, record.attempts) == (
        Status.FAILED, Reason.RETRIES_EXHAUSTED, MAX_ATTEMPTS)
    assert [a.outcome for a in ledger.attempts(job)] == [Outcome.CRASHED] * MAX_ATTEMPTS


def test_jobs_read_in_bulk_are_the_records_read_one_by_one(database_url: str) -> None:
    """`jobs()` builds records by a plan worked out once per result: every field, enum,
    JSON column and time (aware UTC) must come out as `job()` makes it."""
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    done, failed, queued = accept(ledger, 3)
    claim = ledger.claim(done, "w1", "run-1")
    assert claim and ledger.succeed(claim, output_uri="mem://out", output_digest="d",
                                    outputs={"statement.json": "d", "x.csv": "e"},
                                    needs_review=True, bank="x", account_last4="1234",
                                    transactions=3)
    other = ledger.claim(failed, "w2")
    assert other and ledger.fail(other, ErrorClass.DETERMINISTIC, Reason.CORRUPT, "no")
    bulk = {j.job_id: j for j in ledger.jobs()}
    assert bulk == {j: ledger.job(j) for j in (done, failed, queued)}
    assert bulk[done].outputs == {"statement.json": "d", "x.csv": "e"}
    assert bulk[done].needs_review is True and bulk[failed].reason is Reason.CORRUPT
    assert bulk[queued].status is Status.QUEUED and bulk[done].finished_at == clock.now
    assert all(j.submitted_at.tzinfo is not None for j in bulk.values())


def test_a_pass_over_a_batch_reads_its_jobs_a_page_at_a_time_each_once_in_order(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger_module, "JOB_PAGE", 2)
    ledger = new_ledger(database_url, ManualClock(tick=timedelta(seconds=1)))
    ids = accept(ledger, 5)
    accept(ledger, 2, batch="b-2")
    passing = ledger.each_job("b-1")
    first = next(passing)
    assert [first, *passing] == [ledger.job(j) for j in ids]


def test_a_finish_writes_the_owed_notifications_with_it_and_a_lost_one_writes_nothing(
        database_url: str) -> None:
    from reconcile.notifications import Notifications

    ledger = new_ledger(database_url)
    done, retried = accept(ledger, 2)
    claim = ledger.claim(done, "w1")
    assert claim is not None
    record = ledger.succeed(claim, output_uri="mem://out", output_digest="d", outputs={},
                            needs_review=False, bank="x", account_last4="1234",
                            transactions=0, notify=("event", "webhook"))
    assert record == ledger.job(done) and record is not None
    assert record.status is Status.SUCCEEDED
    assert ledger.succeed(claim, output_uri="mem://other", output_digest="e", outputs={},
                          needs_review=False, bank="x", account_last4="1234",
                          transactions=0, notify=("event",)) is None
    other = ledger.claim(retried, "w2")
    assert other and ledger.retry(other, Reason.STORAGE_UNAVAILABLE, "down")
    store = Notifications(ledger.engine, ledger.clock)
    assert sorted(store.pending()) == [(done, "event"), (done, "webhook")]
