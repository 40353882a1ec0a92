"""Decisions on held statements: applied only when the statement then reconciles, audited,
a correction written beside the original, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers.codes import ReviewAction, ReviewState
from parsers.model import money
from reconcile.book import Book, Delivery
from reconcile.corrections import problems
from reconcile.db import make_engine
from reconcile.decisions import DecisionError, Decisions
from reconcile.storage import Storage, sha256


def flagged(*rows: tuple[str, str, str, str | None], opening: str = "100.00",
            closing: str = "70.00", last4: str = "1234") -> dict:
    """A statement as the parser wrote it, with validation's verdict on it."""
    st = {"bank": "northwind", "accounts": [{
        "account_last4": last4, "currency": "USD", "opening_balance": opening,
        "closing_balance": closing,
        "transactions": [{"date": d, "description": s, "amount": a, "balance": b}
                         for d, s, a, b in rows]}]}
    found = problems(st)
    return {**st, "validation": {"ok": not found, "problems": found or ["low confidence"],
                                 "repairs": []}}


MISREAD = flagged(("2026-01-02", "COFFEE", "-10.00", "90.00"),
                  ("2026-01-03", "GROCERIES", "-25.00", "70.00"))


class Desk:
    def __init__(self, database_url: str, root: Path) -> None:
        engine = make_engine(database_url)
        self.book = Book(engine)
        self.storage = Storage(str(root))
        self.decisions = Decisions(engine, self.storage)

    def hold(self, job_id: str, doc: dict) -> str:
        """Write the job's output object and let the book take it in; return its uri."""
        data = json.dumps(doc).encode()
        self.storage.write_outputs(f"results/{job_id}", {"statement.json": data}, "t")
        uri = self.storage.uri(f"results/{job_id}/statement.json")
        self.book.consume(Delivery(job_id, f"in-{job_id}", sha256(data), doc, output_uri=uri))
        return uri


@pytest.fixture
def desk(database_url: str, tmp_path: Path) -> Desk:
    return Desk(database_url, tmp_path / "storage")


def test_accepting_what_does_not_reconcile_is_refused_and_recorded(desk: Desk) -> None:
    desk.hold("j-1", MISREAD)
    out = desk.decisions.accept("j-1", by="ana", via="cli")
    assert not out.applied and "does not reconcile" in out.message and out.problems
    assert desk.decisions.review("j-1").state == ReviewState.OPEN
    assert desk.book.records() == []
    events = desk.decisions.log.events(out.review.id)
    assert [e.action for e in events] == [ReviewAction.OPENED, ReviewAction.REFUSED]
    assert events[1].actor == "ana" and "does not reconcile" in (events[1].note or "")


def test_accepting_a_reconciling_statement_imports_it_with_dedup(desk: Desk) -> None:
    desk.book.consume(Delivery("j-0", "in-0", "o0", flagged(
        ("2026-01-02", "COFFEE", "-10.00", "90.00"), closing="90.00")))
    low_confidence = flagged(("2026-01-02", "COFFEE", "-10.00", "90.00"),
                             ("2026-01-03", "GROCERIES", "-20.00", "70.00"))
    assert low_confidence["validation"]["problems"] == ["low confidence"]
    low_confidence["validation"]["ok"] = False
    desk.hold("j-1", low_confidence)
    out = desk.decisions.accept(1, by="ana", via="cli", note="descriptions checked")
    assert out.applied and out.review.state == ReviewState.ACCEPTED
    assert [(t.description, t.decision_id) for t in desk.book.records()] == [
        ("COFFEE", "j-0"), ("GROCERIES", "j-1")]
    assert desk.book.summary()["held_transactions"] == 0
    assert desk.book.summary()["imported"] == 2


def test_wrong_correction_changes_nothing_and_says_why(desk: Desk) -> None:
    uri = desk.hold("j-1", MISREAD)
    out = desk.decisions.correct("j-1", ["2.amount=-2.00"], by="ana", via="cli")
    assert not out.applied and "still does not reconcile" in out.message
    assert any("closing is 70.00" in p for p in out.problems)
    assert [c.to_dict() for c in out.changes] == [
        {"target": "account1.2.amount", "old": "-25.00", "new": "-2.00"}]
    assert desk.decisions.review("j-1").state == ReviewState.OPEN
    assert desk.storage.list_keys("results/j-1") == ["statement.json"]
    assert json.loads(desk.storage.read(uri)) == MISREAD


def test_correction_that_reconciles_is_a_new_version_and_enters_the_book(desk: Desk) -> None:
    uri = desk.hold("j-1", MISREAD)
    original = desk.storage.read(uri)
    out = desk.decisions.correct("j-1", ["2.amount=-20.00"], by="ana",
                                 via="flow-run 42", note="misread 0 as 5")
    assert out.applied, out.message
    review = out.review
    assert (review.state, review.decided_by, review.note) == (ReviewState.CORRECTED, "ana",
                                                              "misread 0 as 5")
    assert review.version_uri != uri and review.version_uri.startswith(uri.rsplit("/", 1)[0])
    assert desk.storage.read(uri) == original, "the original is never overwritten"
    version = json.loads(desk.storage.read(review.version_uri))
    assert sha256(desk.storage.read(review.version_uri)) == review.version_digest
    assert version["validation"]["ok"] is True
    assert version["review"]["changes"] == [
        {"target": "account1.2.amount", "old": "-25.00", "new": "-20.00"}]
    assert version["review"]["corrects"] == {"uri": uri, "sha256": sha256(original)}
    assert [money(t.amount) for t in desk.book.records()] == ["-10.00", "-20.00"]
    [_, corrected] = desk.decisions.log.events(review.id)
    assert (corrected.action, corrected.actor, corrected.via) == (ReviewAction.CORRECTED, "ana",
                                                                  "flow-run 42")
    assert corrected.changes == ({"target": "account1.2.amount", "old": "-25.00",
                                  "new": "-20.00"},)


def test_rejected_statement_never_enters_the_book(desk: Desk) -> None:
    desk.hold("j-1", MISREAD)
    assert not desk.decisions.reject("j-1", by="ana", via="cli", note=" ").applied
    out = desk.decisions.reject("j-1", by="ana", via="cli", note="not our account")
    assert out.applied and out.review.state == ReviewState.REJECTED
    assert desk.book.records(include_unreviewed=True) == []
    later = desk.decisions.correct("j-1", ["2.amount=-20.00"], by="bo",
                                   via="cli")
    assert not later.applied and later.message.startswith("already rejected by ana")
    assert desk.book.records() == []
    assert desk.book.summary()["rejected"] == 1


def test_only_the_first_of_two_decisions_wins(desk: Desk) -> None:
    desk.hold("j-1", MISREAD)
    first = desk.decisions.reject(1, by="ana", via="cli", note="duplicate statement")
    second = desk.decisions.reject(1, by="bo", via="cli", note="also")
    assert first.applied and not second.applied
    actions = [e.action for e in desk.decisions.log.events(1)]
    assert actions == [ReviewAction.OPENED, ReviewAction.REJECTED]


def test_a_statement_that_changed_after_it_was_held_is_not_decided(desk: Desk) -> None:
    uri = desk.hold("j-1", MISREAD)
    desk.storage.put(desk.storage.key(uri), b"{}")
    with pytest.raises(DecisionError, match="changed after it was held"):
        desk.decisions.accept("j-1", by="ana", via="cli")
    with pytest.raises(DecisionError, match="no review"):
        desk.decisions.accept("j-404", by="ana", via="cli")
    with pytest.raises(DecisionError, match="name of who"):
        desk.decisions.accept("j-1", by=" ", via="cli")


def test_an_unreadable_correction_is_refused_and_recorded(desk: Desk) -> None:
    desk.hold("j-1", MISREAD)
    out = desk.decisions.correct("j-1", ["2.amount=twenty"], by="ana", via="cli")
    assert not out.applied and "not an amount" in out.message
    assert desk.decisions.log.events(out.review.id)[-1].action == ReviewAction.REFUSED
