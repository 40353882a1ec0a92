"""A batch that ends with statements to review leaves a paused review run for each, linked
from its artifacts; one review is then done on the review page in headless Chromium: a cell
edited, the balance and Accept following it, a description cut short refused with the reason,
the decision in the ledger and the paused run ended by it."""

from __future__ import annotations

import contextlib
import getpass
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import Browser
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from prefect.exceptions import ObjectNotFound
from prefect.flow_engine import run_flow
from prefect.utilities.asyncutils import run_coro_as_sync
from test_review_flow import misprint

from flows.batch_reviews import take_up_reviews
from flows.config import Settings
from flows.import_flow import import_batch
from flows.review_flow import REVIEW_DEPLOYMENT, review_statement
from flows.review_page import serve
from parsers.codes import ReviewAction, ReviewState
from reconcile.book import Book
from reconcile.review import ReviewLog

#: where the picture of the page, mid-review, is kept for people to look at
SCREENSHOT = Path("/tmp/review-page.png")


@pytest.fixture
def review_deployment() -> Iterator[list[str]]:
    """The `review` deployment on the test server; yields a list the test adds its flow
    runs to, deleted afterwards with the deployment (so no later `serve` runs them)."""
    async def undeploy(runs: list[str]) -> None:
        async with get_client() as client:
            for run in runs:
                with contextlib.suppress(ObjectNotFound):
                    await client.delete_flow_run(run)
            with contextlib.suppress(ObjectNotFound):
                found = await client.read_deployment_by_name(REVIEW_DEPLOYMENT)
                await client.delete_deployment(found.id)

    async def deploy() -> None:
        async with get_client() as client:
            flow_id = await client.create_flow(review_statement)
            await client.create_deployment(flow_id, REVIEW_DEPLOYMENT.split("/")[1])

    runs: list[str] = []
    run_coro_as_sync(undeploy([]))
    run_coro_as_sync(deploy())
    yield runs
    run_coro_as_sync(undeploy(runs))


async def _run(run_id: str) -> Any:
    async with get_client() as client:
        return await client.read_flow_run(run_id)


async def _artifact(key: str) -> Any:
    async with get_client() as client:
        found = await client.read_artifacts(artifact_filter=ArtifactFilter(
            key=ArtifactFilterKey(any_=[key])))
        return found[0] if found else None


def _until(probe: Any, what: str, seconds: float = 90) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := probe()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)
    return found


def test_a_review_is_done_on_the_review_page_and_ends_its_paused_run(
        stmtflow_home: Path, tmp_path: Path, review_deployment: list[str]) -> None:
    settings = Settings.from_env()
    bad = [misprint(tmp_path / "a", seed=51), misprint(tmp_path / "b", seed=52)]
    state = import_batch([str(b.pdf) for b in bad], batch_id="b-page", return_state=True)
    assert state.is_completed() and "2 need review" in state.message, state.message

    # as the batch ends: one review each, each with its review run, linked from the batch
    log = ReviewLog(settings.engine())
    reviews = log.all(ReviewState.OPEN)
    review_deployment += [r.flow_run_id for r in reviews if r.flow_run_id]
    assert len(reviews) == 2 and len(review_deployment) == 2
    assert [run_coro_as_sync(_run(r.flow_run_id)).parameters for r in reviews] == [
        {"review_id": r.id} for r in reviews]
    links = run_coro_as_sync(_artifact("batch-b-page-reviews")).data
    table = str(run_coro_as_sync(_artifact("batch-b-page")).data)
    for r in reviews:
        assert f"/runs/flow-run/{r.flow_run_id})" in links
        assert f"[review {r.id}](http://127.0.0.1:8377/review/{r.id})" in links
        assert f"review {r.id}: http://127.0.0.1:8377/review/{r.id}" in table
    again = take_up_reviews(settings, "b-page", settings.ledger().jobs("b-page"))
    assert {(x.flow_run_id, x.started) for x in again.values()} == {
        (r.flow_run_id, False) for r in reviews}, "a live run is linked, never doubled"

    # the first review's run, run here as a worker would: it pauses for an answer
    first = reviews[0]
    job = settings.ledger().job(first.decision_id)
    fixed = next(b for b in bad if b.pdf.name == job.file_name)
    flow_run = run_coro_as_sync(_run(first.flow_run_id))
    ended: list[Any] = []
    worker = threading.Thread(target=lambda: ended.append(run_flow(
        review_statement, flow_run=flow_run, parameters={**flow_run.parameters,
                                                         "poll_seconds": 1},
        return_type="state")), daemon=True)
    worker.start()
    _until(lambda: run_coro_as_sync(_run(first.flow_run_id)).state.is_paused(), "the pause")

    server = serve(settings, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    browser = Browser(tmp_path / "chromium")
    row = f"#row-1-{fixed.row}"
    try:
        browser.open(f"{server.origin}/review/{first.id}")
        assert browser.js("document.querySelector('#accept').disabled") is True
        assert "Does not reconcile" in browser.js("document.querySelector('#status').textContent")
        assert browser.js(f"document.querySelector('{row}').classList.contains('bad')")
        assert browser.js(f"document.querySelector('#box-1-{fixed.row}').classList"
                          ".contains('questioned')"), "the row is outlined on its page"
        truth = fixed.truth["accounts"][0]["transactions"]
        truth_row = truth[fixed.row - 1]
        shown = browser.js("[...document.querySelectorAll('[data-f=description]')]"
                           ".map(i => i.value)")
        assert shown == [t["description"] for t in truth], "descriptions are shown whole"
        assert any(re.search(r"\d{5}", d) for d in shown), "a reference number among them"

        browser.type_into(f"{row} input[data-f=amount]", fixed.amount)
        assert browser.js(f"document.querySelector('{row} .computed').textContent") == \
            truth_row["balance"], "the running balance follows the typing"
        assert browser.js("document.querySelector('#accept').disabled") is False
        assert browser.js("document.querySelector('#accept').textContent") == \
            "Accept with 1 correction(s)"
        assert not browser.js(f"document.querySelector('{row}').classList.contains('bad')")

        # a description cut short reconciles in the page, but the ledger refuses it, saying why
        n, words = next((n, t["description"]) for n, t in enumerate(truth, start=1)
                        if " " in t["description"])
        browser.type_into(f"#row-1-{n} [data-f=description]", words.rsplit(" ", 1)[0])
        assert browser.js("document.querySelector('#accept').textContent") == \
            "Accept with 2 correction(s)"
        browser.js("document.querySelector('#accept').click()")
        assert "cut short" in browser.until("document.querySelector('#message')?.textContent")
        assert log.get(first.id).state == ReviewState.OPEN
        assert log.events(first.id)[-1].action == ReviewAction.REFUSED
        browser.type_into(f"#row-1-{n} [data-f=description]", words)
        assert browser.js("document.querySelector('#accept').textContent") == \
            "Accept with 1 correction(s)"
        browser.screenshot(SCREENSHOT)

        browser.js("document.querySelector('#accept').click()")
        assert browser.until("document.body.dataset.decided") == "corrected"
        assert browser.js("!!document.querySelector('#woke')"), "its run was resumed"
    finally:
        browser.close()
        server.shutdown()
        server.server_close()

    # the ledger holds the decision, the book the corrected rows, and the run ended with it
    decided = log.get(first.id)
    assert (decided.state, decided.decided_by) == (ReviewState.CORRECTED, getpass.getuser())
    last = log.events(first.id)[-1]
    assert (last.action, last.via) == (ReviewAction.CORRECTED, "review-page")
    assert [c["target"] for c in last.changes] == [f"account1.{fixed.row}.amount"]
    assert last.changes[0]["new"] == fixed.amount
    rows = [r for r in Book(settings.engine()).records() if r.decision_id == first.decision_id]
    assert [f"{r.amount:.2f}" for r in rows] == [
        t["amount"] for t in fixed.truth["accounts"][0]["transactions"]]
    worker.join(timeout=120)
    assert ended and ended[0].is_completed(), ended
    assert f"already corrected by {getpass.getuser()}" in ended[0].message
    assert log.get(reviews[1].id).state == ReviewState.OPEN, "the other waits for its own"


def test_the_table_sent_back_becomes_the_corrections_it_makes() -> None:
    from flows.review_page import changed

    doc = {"bank": "northwind", "accounts": [{
        "account_last4": "1234", "currency": "USD", "opening_balance": "100.00",
        "closing_balance": "70.00", "transactions": [
            {"date": "2026-01-01", "description": "TO 9876541234 REF 55512", "amount": "-10.00",
             "balance": "90.00"},
            {"date": "2026-01-02", "description": "COFFEE", "amount": "-25.00",
             "balance": None}]}]}
    same = {"account": 1, "opening_balance": "100", "closing_balance": "70.00", "rows": [
        {"row": 1, "date": "2026-01-01", "description": "TO ****1234  REF 55512",
         "amount": "-10.0", "balance": "90.00"},
        {"row": 2, "date": "2026-01-02", "description": "COFFEE", "amount": "-25.00",
         "balance": ""}]}
    assert changed(doc, [same]) == [], "amounts as amounts, a masked number as shown"
    edited = {**same, "closing_balance": "75.00", "rows": [
        {**same["rows"][0], "drop": True},
        {**same["rows"][1], "amount": "-20.00", "balance": "80.00"}]}
    assert changed(doc, [edited]) == ["account1.closing_balance=75.00", "drop account1.1",
                                      "account1.2.amount=-20.00", "account1.2.balance=80.00"]
