"""Property tests over random ledgers: classes are disjoint, nothing is folded away."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from reconcile.accounting import Records, account
from reconcile.review import Review, ReviewState

T0 = datetime(2026, 11, 1, tzinfo=UTC)
STATUSES = ["QUEUED", "PROCESSING", "RETRYING", "SUCCEEDED", "FAILED", "EXPIRED"]


@st.composite
def consistent_job(draw, job_id: str) -> dict:
    """A job record that satisfies every invariant of the ledger."""
    status = draw(st.sampled_from(STATUSES))
    attempts = {"QUEUED": 0, "EXPIRED": 0}.get(status, draw(st.integers(1, 3)))
    if status in ("PROCESSING", "RETRYING"):
        attempts = draw(st.integers(1, 3)) if status == "PROCESSING" else draw(st.integers(1, 2))
    terminal = status in ("SUCCEEDED", "FAILED", "EXPIRED")
    return {
        "job_id": job_id, "status": status, "attempts": attempts,
        "reason": draw(st.sampled_from(["corrupt", "retries_exhausted"]))
        if status == "FAILED" else None,
        "output_uri": "mem://o" if status == "SUCCEEDED" else None,
        "output_digest": "d" if status == "SUCCEEDED" else None,
        "submitted_at": T0,
        "finished_at": T0 + timedelta(seconds=draw(st.integers(0, 999))) if terminal else None,
        "sha256": job_id, "needs_review": False,
    }


@st.composite
def ledgers(draw) -> Records:
    n = draw(st.integers(0, 30))
    jobs = [draw(consistent_job(f"j-{i}")) for i in range(n)]
    return Records(jobs=jobs, attempt_rows={j["job_id"]: j["attempts"] for j in jobs})


@given(ledgers())
def test_consistent_ledger_is_never_invalid_and_adds_up(r: Records) -> None:
    report = account(r)
    c = report["counts"]
    assert report["state"] in ("accounted", "investigate")
    assert c["accepted"] == c["terminal"] + c["unresolved"]
    assert c["terminal"] == c["succeeded"] + c["failed"] + c["expired"]
    assert c["failed"] == c["failed_deterministic"] + c["failed_exhausted"]
    listed = {u["job_id"] for u in report["unresolved"]}
    assert listed == {j["job_id"] for j in r.jobs
                      if j["status"] in ("QUEUED", "PROCESSING", "RETRYING")}
    assert (report["state"] == "accounted") == (not listed)


@given(ledgers())
def test_owned_open_investigations_account_for_unresolved_jobs(r: Records) -> None:
    r.investigations = {j["job_id"]: {"id": i, "owner": "ana", "opened_at": T0}
                        for i, j in enumerate(r.jobs)}
    assert account(r)["state"] == "accounted"


CONTRADICTIONS = {
    "succeeded_without_output": lambda j: j.update(status="SUCCEEDED", attempts=1,
                                                   finished_at=T0, output_uri=None),
    "expired_but_processed": lambda j: j.update(status="EXPIRED", attempts=2, finished_at=T0),
    "terminal_without_finish": lambda j: j.update(status="FAILED", attempts=1,
                                                  finished_at=None),
    "too_many_attempts": lambda j: j.update(status="FAILED", attempts=4, finished_at=T0),
    "unknown_status": lambda j: j.update(status="LOST"),
}


@given(ledgers().filter(lambda r: r.jobs), st.sampled_from(sorted(CONTRADICTIONS)),
       st.data())
def test_any_contradiction_makes_the_report_invalid(r: Records, kind: str, data) -> None:
    victim = data.draw(st.sampled_from(r.jobs))
    CONTRADICTIONS[kind](victim)
    r.attempt_rows[victim["job_id"]] = victim["attempts"]
    report = account(r)
    assert report["state"] == "invalid"
    assert any(victim["job_id"] in x for x in report["contradictions"])


@given(ledgers().filter(lambda r: r.jobs), st.data())
def test_a_job_in_two_classes_is_invalid(r: Records, data) -> None:
    victim = dict(data.draw(st.sampled_from(r.jobs)))
    r.jobs.append({**victim, "status": "EXPIRED" if victim["status"] != "EXPIRED"
                   else "FAILED", "attempts": 0, "finished_at": T0})
    assert account(r)["state"] == "invalid"


@given(ledgers(), st.data())
def test_attempt_rows_must_equal_attempts(r: Records, data) -> None:
    if not r.jobs:
        return
    victim = data.draw(st.sampled_from(r.jobs))
    r.attempt_rows[victim["job_id"]] = victim["attempts"] + 1
    assert account(r)["state"] == "invalid"


def test_book_import_of_an_unsucceeded_job_is_invalid() -> None:
    job = {"job_id": "j-1", "status": "FAILED", "attempts": 1, "finished_at": T0,
           "submitted_at": T0, "reason": "corrupt"}
    assert account(Records(jobs=[job], imported={"j-1"}))["state"] == "invalid"


def test_completed_task_with_failed_job_is_invalid() -> None:
    job = {"job_id": "j-1", "status": "FAILED", "attempts": 1, "finished_at": T0,
           "submitted_at": T0, "reason": "corrupt"}
    assert account(Records(jobs=[job], task_states={"j-1": "COMPLETED"}))["state"] == "invalid"
    assert account(Records(jobs=[job], task_states={"j-1": "FAILED"}))["state"] == "accounted"


def test_time_to_completion_percentiles() -> None:
    jobs = [{"job_id": f"j-{s}", "status": "EXPIRED", "attempts": 0, "submitted_at": T0,
             "finished_at": T0 + timedelta(seconds=s)} for s in range(1, 101)]
    t = account(Records(jobs=jobs))["time_to_completion"]
    assert (t["p50"], t["p95"], t["max"], t["jobs"]) == (50, 95, 100, 100)


def review(n: int, state: str, opened_hours_ago: float, decided_hours_ago: float | None = None,
           ) -> Review:
    at = T0 - timedelta(hours=opened_hours_ago)
    decided = None if decided_hours_ago is None else T0 - timedelta(hours=decided_hours_ago)
    return Review(n, f"j-{n}", "in", "mem://o", "d", ("x",), ReviewState(state), at, decided,
                  None if decided is None else "ana", None, None, None, None)


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
