"""The review flow on the real Prefect API: it pauses for the operator's form, applies a
correction only when the statement then reconciles, and only verified rows reach the book."""

from __future__ import annotations

import contextlib
import csv
import getpass
import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from prefect import get_client
from prefect.exceptions import ObjectNotFound
from prefect.utilities.asyncutils import run_coro_as_sync
from test_cli import cli  # the command line as a user runs it, in its own process

from corpus import banks, generate
from flows.config import Settings
from flows.import_flow import import_batch
from flows.review_flow import REVIEW_DEPLOYMENT, review_statement, start_review_runs
from parsers.codes import ReviewAction, ReviewState
from parsers.model import Statement
from reconcile.book import Book, sync
from reconcile.review import ReviewLog


class Misprint(NamedTuple):
    pdf: Path
    truth: dict
    #: the row (from 1) whose amount is printed wrong, and its true amount
    row: int
    amount: str


def misprint(folder: Path, seed: int, row: int = 2) -> Misprint:
    """A generated Northwind statement whose row `row` amount is printed 0.60 off while every
    balance stays true: it no longer reconciles, as after a misread digit."""
    real = banks.account
    true: list[Decimal] = []

    def with_a_wrong_amount(*args: Any, **kwargs: Any) -> Any:
        acct = real(*args, **kwargs)
        t = acct.transactions[row - 1]
        true.append(t.amount)
        wrong = t.amount - Decimal("0.60") if t.amount < 0 else t.amount + Decimal("0.60")
        acct.transactions[row - 1] = replace(t, amount=wrong)
        return acct

    with pytest.MonkeyPatch.context() as m:
        m.setattr(banks, "account", with_a_wrong_amount)
        [sample] = generate(folder, ("northwind",), 1, seed=seed)
    truth = json.loads(sample.truth.read_text())
    truth["accounts"][0]["transactions"][row - 1]["amount"] = f"{true[0]:.2f}"
    return Misprint(sample.pdf, truth, row, f"{true[0]:.2f}")


class Running:
    """A review flow run in a thread, and the way the UI talks to it: the API."""

    def __init__(self, review_id: int) -> None:
        self.review_id = review_id
        self.states: list[Any] = []
        self.thread = threading.Thread(target=lambda: self.states.append(review_statement(
            review_id, poll_seconds=1, return_state=True)), daemon=True)
        self.thread.start()

    def flow_run_id(self) -> str:
        log = ReviewLog(Settings.from_env().ledger().engine)
        return _until(lambda: log.get(self.review_id).flow_run_id, "the run to attach")

    def paused(self, pause: int) -> Any:
        """Wait until the run pauses for the `pause`-th time; return its flow run."""
        run_id = self.flow_run_id()

        def read() -> Any:
            run = run_coro_as_sync(_read_run(run_id))
            state = run.state
            return run if state.is_paused() and state.state_details.pause_key == str(pause) \
                else None

        return _until(read, f"pause {pause}")

    def answer(self, **form: Any) -> None:
        """Submit the form as the UI does: POST /flow_runs/{id}/resume with a run_input."""
        run_coro_as_sync(_resume(self.flow_run_id(), form))

    def final(self) -> Any:
        self.thread.join(timeout=120)
        assert not self.thread.is_alive(), "the review run did not end"
        return self.states[0]


async def _read_run(run_id: str) -> Any:
    async with get_client() as client:
        return await client.read_flow_run(run_id)


async def _resume(run_id: str, run_input: dict[str, Any]) -> None:
    async with get_client() as client:
        response = await client.resume_flow_run(run_id, run_input=run_input)
        assert response.status.value == "ACCEPT", response


async def _form_schema(run_id: str, pause: int) -> dict[str, Any]:
    async with get_client() as client:
        return json.loads(await client.read_flow_run_input(run_id, f"paused-{pause}-schema"))


async def _form_text(run_id: str, pause: int) -> str:
    async with get_client() as client:
        return json.loads(await client.read_flow_run_input(run_id,
                                                           f"paused-{pause}-description"))


def _until(probe: Callable[[], Any], what: str, seconds: float = 90) -> Any:
    deadline = time.monotonic() + seconds
    while (found := probe()) is None or found is False:
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)
    return found


async def undeploy() -> None:
    """Remove the `review` deployment (another test may have served one on this server)."""
    async with get_client() as client:
        with contextlib.suppress(ObjectNotFound):
            found = await client.read_deployment_by_name(REVIEW_DEPLOYMENT)
            await client.delete_deployment(found.id)


def imported(settings: Settings, *pdfs: Path) -> list[int]:
    """Import `pdfs` as a batch and let the book take them in; the reviews that opened. No
    `review` deployment is left to start their runs as the batch ends: the test runs them."""
    run_coro_as_sync(undeploy())
    state = import_batch([str(p) for p in pdfs], batch_id="b-review", return_state=True)
    assert state.is_completed()
    ledger = settings.ledger()
    sync(Book(ledger.engine), ledger, settings.storage())
    return [r.id for r in ReviewLog(ledger.engine).all(ReviewState.OPEN)]


def exported(tmp_path: Path, *flags: str) -> list[dict[str, str]]:
    out = tmp_path / f"book{len(flags)}.csv"
    done = cli("book", "export", "--output", str(out), *flags)
    assert done.returncode == 0, done.stderr
    with out.open() as f:
        return list(csv.DictReader(f))


def test_correction_through_the_form_enters_the_book_and_rejection_never_does(
        stmtflow_home: Path, tmp_path: Path) -> None:
    settings = Settings.from_env()
    fixed, rejected = misprint(tmp_path / "a", seed=41), misprint(tmp_path / "b", seed=42)
    [clean] = generate(tmp_path / "c", ("bluebird",), 1, seed=43)
    first, second = imported(settings, fixed.pdf, rejected.pdf, clean.pdf)
    book = Book(settings.ledger().engine)
    clean_rows = sum(len(a["transactions"]) for a in json.loads(clean.truth.read_text())
                     ["accounts"])
    assert len(book.records()) == clean_rows, "flagged statements are held apart"

    # the flagged statement's run pauses with its evidence; a wrong correction is refused
    run = Running(first)
    paused = run.paused(1)
    assert paused.name.startswith("review-")
    text = run_coro_as_sync(_form_text(str(paused.id), 1))
    assert "printed closing" in text and "**differs**" in text
    assert f"`{fixed.pdf.name}`, northwind statement" in text, "the form names file and bank"
    assert f"- **{fixed.row}**: " in text, "the misprinted row is listed as corrections name it"
    assert "[Pictures of these rows as printed](/artifacts/artifact/" in text
    assert f"[the review page](http://127.0.0.1:8377/review/{first})" in text
    schema = run_coro_as_sync(_form_schema(str(paused.id), 1))
    assert schema["properties"]["reviewer"]["default"] == getpass.getuser(), "pre-filled"
    wrong = {"row": fixed.row, "field": "amount", "value": "-0.01", "account": 1}
    run.answer(decision="correct", corrections=[wrong], note="", reviewer="ana")
    again = run_coro_as_sync(_form_text(str(run.paused(2).id), 2))
    assert again.startswith("> **Not applied** (answer 1 of 5)")
    assert again.endswith(text), "then the same evidence"
    assert "still does not reconcile" in again
    kept = run_coro_as_sync(_form_schema(str(run.paused(2).id), 2))["properties"]
    assert (kept["decision"]["default"], kept["corrections"]["default"],
            kept["reviewer"]["default"]) == ("correct", [wrong], "ana"), "answers kept"

    # the right value: the statement reconciles and enters the book as a new version
    run.answer(decision="correct", corrections=[{**wrong, "value": fixed.amount}],
               note="misread digit", reviewer="ana")
    final = run.final()
    assert final.is_completed() and "now reconciles" in final.message
    review = ReviewLog(settings.ledger().engine).get(first)
    assert (review.state, review.decided_by) == (ReviewState.CORRECTED, "ana")
    events = ReviewLog(settings.ledger().engine).events(first)
    assert [e.action for e in events] == [ReviewAction.OPENED, ReviewAction.REFUSED,
                                          ReviewAction.CORRECTED]
    assert events[-1].via == f"flow-run {paused.id}"
    truth_rows = fixed.truth["accounts"][0]["transactions"]
    assert events[-1].changes[0]["new"] == fixed.amount
    version = json.loads(settings.storage().read(review.version_uri))
    assert Statement.from_dict(version).to_dict()["accounts"] == fixed.truth["accounts"]
    assert settings.storage().digest_of(review.output_uri) == review.output_digest

    # the other is rejected through the form: it never enters the book
    run = Running(second)
    run.paused(1)
    run.answer(decision="reject", corrections=[], note="statement of a closed account",
               reviewer="bo")
    assert run.final().is_completed()
    assert ReviewLog(settings.ledger().engine).get(second).state == ReviewState.REJECTED

    rows = exported(tmp_path)
    assert len(rows) == clean_rows + len(truth_rows)
    assert {r["decision_id"] for r in rows} == {review.decision_id, _job_of(settings, clean)}
    mine = [r for r in rows if r["decision_id"] == review.decision_id]
    assert [(r["date"], r["amount"], r["balance"]) for r in mine] == [
        (t["date"], t["amount"], t["balance"]) for t in truth_rows]
    assert {r["verified"] for r in rows} == {"True"}
    assert exported(tmp_path, "--include-unreviewed") == rows, "nothing is left waiting"


def _job_of(settings: Settings, sample: Any) -> str:
    from reconcile.storage import sha256

    digest = sha256(sample.pdf.read_bytes())
    return next(j.job_id for j in settings.ledger().jobs() if j.sha256 == digest)


def test_evidence_artifact_pictures_the_questioned_row(stmtflow_home: Path,
                                                        tmp_path: Path) -> None:
    settings = Settings.from_env()
    bad = misprint(tmp_path / "a", seed=44)
    [review_id] = imported(settings, bad.pdf)
    run = Running(review_id)
    run.paused(1)

    job_id = ReviewLog(settings.ledger().engine).get(review_id).decision_id

    async def artifact() -> Any:
        async with get_client() as client:
            from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

            found = await client.read_artifacts(artifact_filter=ArtifactFilter(
                key=ArtifactFilterKey(any_=[f"review-{job_id}"])))
            return found[0] if found else None

    evidence = _until(lambda: run_coro_as_sync(artifact()), "the evidence artifact")
    assert "![account 1 row 2](data:image/png;base64," in evidence.data
    assert "printed closing" in evidence.data and "**differs**" in evidence.data
    assert f"/artifacts/artifact/{evidence.id}" in run_coro_as_sync(
        _form_text(str(run.paused(1).id), 1)), "the form links to the pictures"
    run.answer(decision="accept", corrections=[], note="", reviewer="ana")
    assert run.paused(2), "accepting what does not reconcile is refused and asked again"
    run.answer(decision="reject", corrections=[], note="unreadable", reviewer="ana")
    assert run.final().is_completed()


def test_a_decision_from_the_command_line_ends_the_waiting_run(stmtflow_home: Path,
                                                               tmp_path: Path) -> None:
    settings = Settings.from_env()
    bad = misprint(tmp_path / "a", seed=45)
    [review_id] = imported(settings, bad.pdf)
    run = Running(review_id)
    run.paused(1)
    done = cli("review", "correct", str(review_id), "--set", f"{bad.row}.amount={bad.amount}",
               "--by", "cy")
    assert done.returncode == 0, done.stderr
    assert "ended its waiting review run" in done.stderr
    final = run.final()
    assert final.is_completed() and "already corrected by cy" in final.message
    events = ReviewLog(settings.ledger().engine).events(review_id)
    assert [(e.action, e.via) for e in events] == [(ReviewAction.OPENED, "book"),
                                                    (ReviewAction.CORRECTED, "cli")]


def test_reconciliation_starts_one_review_run_per_open_review(stmtflow_home: Path,
                                                              tmp_path: Path) -> None:
    settings = Settings.from_env()
    bad = misprint(tmp_path / "a", seed=46)
    [review_id] = imported(settings, bad.pdf)

    async def deploy() -> None:
        async with get_client() as client:
            flow_id = await client.create_flow(review_statement)
            await client.create_deployment(flow_id, REVIEW_DEPLOYMENT.split("/")[1])

    run_coro_as_sync(undeploy())
    assert start_review_runs(settings) == {}, "without the deployment, the CLI decides"
    run_coro_as_sync(deploy())
    started = start_review_runs(settings)
    try:
        assert list(started) == [review_id]
        created = run_coro_as_sync(_read_run(started[review_id]))
        assert created.parameters == {"review_id": review_id}
        log = ReviewLog(settings.ledger().engine)
        assert log.get(review_id).flow_run_id == started[review_id]
        assert start_review_runs(settings) == {}, "a review with a live run gets no second one"
    finally:
        run_coro_as_sync(undeploy())
