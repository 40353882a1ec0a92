"""A batch's lease says its run is alive; a batch no run closed and none keeps alive is
abandoned, whatever its run was doing when it died.

Time is the ledger's injected clock, moved by the test.
"""

from __future__ import annotations

from datetime import timedelta

from test_ledger import LEASE, ManualClock, accept, accept_digest, new_ledger, succeed

from parsers.codes import BatchState
from reconcile.ledger import Ledger
from reconcile.recovery import abandoned_batches

LATER = LEASE + timedelta(seconds=1)


def abandoned(ledger: Ledger, ended_runs: set[str] | None = None) -> list[str]:
    return abandoned_batches(ledger.unclosed_batches(), ledger.unfinished_jobs(),
                             ledger.clock(), ended_runs or set())


def test_only_the_run_holding_the_batch_renews_its_lease(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    ledger.open_batch("b-1", "test", None)
    assert ledger.batch("b-1").lease_until is None  # nobody took it yet
    stale = ledger.take_batch("b-1", "run-1")
    assert ledger.batch("b-1").lease_until == clock.now + LEASE
    clock.advance(LEASE / 3)
    assert ledger.renew_batch("b-1", stale)
    assert ledger.batch("b-1").lease_until == clock.now + LEASE
    fresh = ledger.take_batch("b-1", "run-2")
    assert not ledger.renew_batch("b-1", stale)
    ledger.release_batch("b-1", stale)  # the stale run ending releases nothing
    assert ledger.batch("b-1").lease_until == clock.now + LEASE
    assert ledger.renew_batch("b-1", fresh)
    assert ledger.close_batch("b-1", BatchState.COMPLETED, fresh)
    assert ledger.batch("b-1").lease_until is None
    assert not ledger.renew_batch("b-1", fresh)  # a renewal racing the close revives nothing
    assert ledger.batch("b-1").lease_until is None


def test_a_batch_whose_run_died_listing_accepting_or_closing_is_abandoned(
        database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    epochs = {}
    # died listing: no job at all
    ledger.open_batch("b-listing", "test", None, acceptance={"sources": ["x"]})
    # died accepting: two files of the source enveloped, the source not recorded accepted
    ledger.open_batch("b-accepting", "test", None, acceptance={"sources": ["y"]})
    accept(ledger, 2, "b-accepting")
    # died closing: every job ended, the state not written
    done = accept_digest(ledger, "b-closing", "c" * 64)
    assert succeed(ledger, ledger.claim(done.job_id, "w"))
    for b in ("b-listing", "b-accepting", "b-closing"):
        epochs[b] = ledger.take_batch(b, f"run-{b}")
    # closed: nothing to do
    closed = accept_digest(ledger, "b-closed", "d" * 64)
    assert succeed(ledger, ledger.claim(closed.job_id, "w"))
    assert ledger.close_batch("b-closed", BatchState.COMPLETED,
                              ledger.take_batch("b-closed", "run-closed"))

    assert abandoned(ledger) == []  # every run still renews its lease
    clock.advance(LEASE * 2 / 3)
    assert ledger.renew_batch("b-listing", epochs["b-listing"])
    clock.advance(LEASE * 2 / 3)
    assert abandoned(ledger) == ["b-accepting", "b-closing"]  # b-listing's run renewed
    clock.advance(LATER)
    assert abandoned(ledger) == ["b-accepting", "b-closing", "b-listing"]


def test_a_run_that_ended_without_closing_its_batch_abandoned_it_at_once(
        database_url: str) -> None:
    ledger = new_ledger(database_url)
    accept(ledger, 2)
    epoch = ledger.take_batch("b-1", "run-1")
    assert abandoned(ledger) == []
    assert abandoned(ledger, ended_runs={"run-1"}) == ["b-1"]  # Prefect saw it end
    ledger.release_batch("b-1", epoch)  # it ended by itself, say on an error
    assert abandoned(ledger) == ["b-1"]


def test_a_job_held_under_a_live_lease_keeps_its_batch_alive(database_url: str) -> None:
    clock = ManualClock()
    ledger = new_ledger(database_url, clock)
    dead, live = accept(ledger, 2)
    ledger.take_batch("b-1", "run-1")
    assert ledger.claim(dead, "worker-that-died")
    clock.advance(LATER)
    assert ledger.reclaim() == [dead]
    assert abandoned(ledger) == ["b-1"]
    assert ledger.claim(live, "worker-still-running")  # a task on a worker of its own
    assert abandoned(ledger) == []
    assert abandoned(ledger, ended_runs={"run-1"}) == []


def test_a_batch_closed_with_an_unfinished_job_is_not_done(database_url: str) -> None:
    ledger = new_ledger(database_url)
    accept(ledger, 1)
    assert ledger.close_batch("b-1", BatchState.INCOMPLETE, ledger.take_batch("b-1", None))
    assert [b.batch_id for b in ledger.unclosed_batches()] == ["b-1"]
    assert abandoned(ledger) == ["b-1"]
