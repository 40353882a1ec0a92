"""Property tests over random ledgers: classes are disjoint, nothing is folded away."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from parsers.codes import Reason, ReviewState, Status
from reconcile.accounting import Records, account
from reconcile.records import Investigation, Job, Review

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def job(job_id: str, status: Status, **kw: Any) -> Job:
    """A job record; what a test does not say is a plain envelope."""
    envelope = dict(batch_id="b-1", source_uri=f"file:///{job_id}.pdf",
                    input_uri=f"mem://{job_id}", size=1, sha256=job_id, submitted_at=T0,
                    expires_at=T0 + timedelta(hours=24), chain_revision="c", ocr_engine="o",
                    policy_revision="p")
    return Job(job_id=job_id, status=status, **{**envelope, **kw})


@st.composite
def consistent_job(draw, job_id: str) -> Job:
    """A job record that satisfies every invariant of the ledger."""
    status = draw(st.sampled_from(list(Status)))
    attempts = {Status.QUEUED: 0, Status.EXPIRED: 0, Status.DUPLICATE: 0}.get(
        status, draw(st.integers(1, 3)))
    if status in (Status.PROCESSING, Status.RETRYING):
        attempts = draw(st.integers(1, 3)) if status == Status.PROCESSING \
            else draw(st.integers(1, 2))
    return job(
        job_id, status, attempts=attempts,
        reason=draw(st.sampled_from([Reason.CORRUPT, Reason.RETRIES_EXHAUSTED]))
        if status == Status.FAILED else None,
        output_uri="mem://o" if status == Status.SUCCEEDED else None,
        output_digest="d" if status == Status.SUCCEEDED else None,
        finished_at=T0 + timedelta(seconds=draw(st.integers(0, 999)))
        if status.terminal else None)


@st.composite
def ledgers(draw) -> Records:
    n = draw(st.integers(0, 30))
    jobs = [draw(consistent_job(f"j-{i}")) for i in range(n)]
    # a duplicate names a job of the same bytes and pins (one that is not a duplicate itself)
    holder = next((j for j in jobs if j.status != Status.DUPLICATE), None)
    jobs = [j if j.status != Status.DUPLICATE
            else replace(j, duplicate_of=holder.job_id, sha256=holder.sha256)
            for j in jobs if holder is not None or j.status != Status.DUPLICATE]
    return Records(jobs=jobs, attempt_rows={j.job_id: j.attempts for j in jobs})


@given(ledgers())
def test_consistent_ledger_is_never_invalid_and_adds_up(r: Records) -> None:
    report = account(r)
    c = report["counts"]
    assert report["state"] in ("accounted", "investigate")
    assert c["accepted"] == c["terminal"] + c["unresolved"]
    assert c["terminal"] == c["succeeded"] + c["failed"] + c["expired"] + c["duplicates"]
    assert c["failed"] == c["failed_deterministic"] + c["failed_exhausted"]
    listed = {u["job_id"] for u in report["unresolved"]}
    assert listed == {j.job_id for j in r.jobs
                      if j.status in (Status.QUEUED, Status.PROCESSING, Status.RETRYING)}
    assert (report["state"] == "accounted") == (not listed)


@given(ledgers())
def test_owned_open_investigations_account_for_unresolved_jobs(r: Records) -> None:
    r.investigations = {j.job_id: Investigation(id=i, job_id=j.job_id, opened_at=T0,
                                                owner="ana") for i, j in enumerate(r.jobs)}
    assert account(r)["state"] == "accounted"


CONTRADICTIONS = {
    "succeeded_without_output": lambda j: replace(j, status=Status.SUCCEEDED, attempts=1,
                                                  finished_at=T0, output_uri=None),
    "expired_but_processed": lambda j: replace(j, status=Status.EXPIRED, attempts=2,
                                               finished_at=T0),
    "terminal_without_finish": lambda j: replace(j, status=Status.FAILED, attempts=1,
                                                 finished_at=None),
    "too_many_attempts": lambda j: replace(j, status=Status.FAILED, attempts=4, finished_at=T0),
    "duplicate_that_ran": lambda j: replace(j, status=Status.DUPLICATE, attempts=1,
                                            finished_at=T0, duplicate_of=j.job_id),
    "duplicate_of_nobody": lambda j: replace(j, status=Status.DUPLICATE, attempts=0,
                                             finished_at=T0, duplicate_of="j-nobody"),
    # a status no version of the ledger writes (a record built by hand, not read from a row)
    "unknown_status": lambda j: replace(j, status="LOST"),
}


@given(ledgers().filter(lambda r: r.jobs), st.sampled_from(sorted(CONTRADICTIONS)),
       st.data())
def test_any_contradiction_makes_the_report_invalid(r: Records, kind: str, data) -> None:
    i = data.draw(st.integers(0, len(r.jobs) - 1))
    victim = r.jobs[i] = CONTRADICTIONS[kind](r.jobs[i])
    r.attempt_rows[victim.job_id] = victim.attempts
    report = account(r)
    assert report["state"] == "invalid"
    assert any(victim.job_id in x for x in report["contradictions"])


@given(ledgers().filter(lambda r: r.jobs), st.data())
def test_a_job_in_two_classes_is_invalid(r: Records, data) -> None:
    victim = data.draw(st.sampled_from(r.jobs))
    r.jobs.append(replace(victim, status=Status.EXPIRED if victim.status != Status.EXPIRED
                          else Status.FAILED, attempts=0, finished_at=T0))
    assert account(r)["state"] == "invalid"


@given(ledgers(), st.data())
def test_attempt_rows_must_equal_attempts(r: Records, data) -> None:
    if not r.jobs:
        return
    victim = data.draw(st.sampled_from(r.jobs))
    r.attempt_rows[victim.job_id] = victim.attempts + 1
    assert account(r)["state"] == "invalid"


def failed(job_id: str = "j-1") -> Job:
    return job(job_id, Status.FAILED, attempts=1, finished_at=T0, reason=Reason.CORRUPT)


def test_book_import_of_an_unsucceeded_job_is_invalid() -> None:
    assert account(Records(jobs=[failed()], imported={"j-1"}))["state"] == "invalid"


def test_a_file_refused_at_acceptance_is_failed_without_attempts() -> None:
    refused = job("j-1", Status.FAILED, attempts=0, finished_at=T0, input_uri=None,
                  sha256=None, reason=Reason.UNREADABLE_SOURCE)
    report = account(Records(jobs=[refused]))
    assert report["state"] == "accounted"
    assert report["counts"]["refused_at_acceptance"] == report["counts"]["failed"] == 1
    # a stored input that never ran is not a refusal: it is a contradiction
    assert account(Records(jobs=[replace(refused, input_uri="mem://i")]))["state"] == "invalid"


def test_completed_task_with_failed_job_is_invalid() -> None:
    assert account(Records(jobs=[failed()], completed_tasks={"j-1"}))["state"] == "invalid"
    assert account(Records(jobs=[failed()], completed_tasks=set()))["state"] == "accounted"


def test_time_to_completion_percentiles() -> None:
    jobs = [job(f"j-{s}", Status.EXPIRED, finished_at=T0 + timedelta(seconds=s))
            for s in range(1, 101)]
    t = account(Records(jobs=jobs))["time_to_completion"]
    assert (t["p50"], t["p95"], t["max"], t["jobs"]) == (50, 95, 100, 100)


def review(n: int, state: str, opened_hours_ago: float, decided_hours_ago: float | None = None,
           ) -> Review:
    at = T0 - timedelta(hours=opened_hours_ago)
    decided = None if decided_hours_ago is None else T0 - timedelta(hours=decided_hours_ago)
    return Review(id=n, decision_id=f"j-{n}", input_sha256="in", output_uri="mem://o",
                  output_digest="d", problems=("x",), state=ReviewState(state), created_at=at,
                  decided_at=decided, decided_by=None if decided is None else "ana")


def test_reviews_are_counted_by_state_with_their_age_and_overdue_ones_listed() -> None:
    r = Records(jobs=[], at=T0, review_alert=timedelta(hours=24), reviews=[
        review(1, "open", 30), review(2, "open", 2), review(3, "accepted", 10, 9),
        review(4, "corrected", 5, 1), review(5, "rejected", 50, 48)])
    out = account(r)["reviews"]
    assert out["counts"] == {"open": 2, "accepted": 1, "corrected": 1, "rejected": 1}
    assert [(o["review_id"], o["age_seconds"]) for o in out["open"]] == [(1, 108000.0),
                                                                         (2, 7200.0)]
    assert out["oldest_open_seconds"] == 108000.0
    assert out["overdue"] == [1]
    assert out["time_to_decision"] == {"p50": 7200.0, "max": 14400.0, "reviews": 3}


def test_unverified_transactions_in_the_book_make_the_records_invalid() -> None:
    report = account(Records(jobs=[], consumer={"unverified_in_book": ["j-7"]}))
    assert report["state"] == "invalid"
    assert report["contradictions"] == ["j-7 has transactions in the book but is not verified"]
