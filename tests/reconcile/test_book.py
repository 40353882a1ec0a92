"""The book imports each decision once, deduplicates overlaps, quarantines changes, and holds
statements that need review apart from the verified transactions."""

from __future__ import annotations

import copy

import pytest

from reconcile.book import Book, Delivery
from reconcile.db import make_engine


def statement(*rows: tuple[str, str, str], ok: bool = True, last4: str = "1234") -> dict:
    return {"bank": "northwind", "validation": {"ok": ok, "problems": [] if ok else ["x"]},
            "accounts": [{"account_last4": last4, "currency": "USD",
                          "opening_balance": "0.00", "closing_balance": "0.00",
                          "transactions": [{"date": d, "description": s, "amount": a,
                                            "balance": None} for d, s, a in rows]}]}


@pytest.fixture
def book(database_url: str) -> Book:
    return Book(make_engine(database_url))


def test_same_success_twice_is_one_import(book: Book) -> None:
    d = Delivery("j-1", "in-1", "out-1", statement(("2026-01-02", "COFFEE", "-4.50")))
    assert book.consume(d) == "imported"
    assert book.consume(copy.deepcopy(d)) == "duplicate"
    s = book.summary()
    assert (s["imported"], s["reviews"], s["duplicates_suppressed"], s["transactions"]) == (
        1, 0, 1, 1)


def test_statement_needing_review_is_held_apart_with_one_review(book: Book) -> None:
    d = Delivery("j-1", "in-1", "out-1", statement(("2026-01-02", "COFFEE", "-4.50"),
                                                   ("2026-01-03", "Beginning Balance", "0.00"),
                                                   ok=False))
    assert book.consume(d) == "held"
    assert book.consume(copy.deepcopy(d)) == "duplicate"
    assert book.transactions() == []
    unreviewed = book.transactions(include_unreviewed=True)
    assert [(t["description"], t["verified"]) for t in unreviewed] == [
        ("COFFEE", False), ("Beginning Balance", False)]
    s = book.summary()
    assert (s["imported"], s["held"], s["reviews"], s["transactions"],
            s["held_transactions"]) == (0, 1, 1, 0, 2)
    assert book.imported() == {"j-1"}


def test_export_with_unreviewed_marks_each_row(book: Book) -> None:
    book.consume(Delivery("j-1", "in-1", "o1", statement(("2026-01-02", "RENT", "-900.00"))))
    book.consume(Delivery("j-2", "in-2", "o2", statement(("2026-01-05", "SALARY", "2500.00"),
                                                         ok=False)))
    assert [t["verified"] for t in book.transactions(include_unreviewed=True)] == [True, False]
    assert [t["description"] for t in book.transactions()] == ["RENT"]
    assert book.transactions("9999", include_unreviewed=True) == []


def test_overlapping_statements_do_not_duplicate_transactions(book: Book) -> None:
    dec = statement(("2026-01-30", "RENT", "-900.00"), ("2026-01-31", "COFFEE", "-4.50"),
                    ("2026-01-31", "COFFEE", "-4.50"))
    jan = statement(("2026-01-31", "COFFEE", "-4.50"), ("2026-01-31", "COFFEE", "-4.50"),
                    ("2026-01-31", "COFFEE", "-4.50"), ("2026-02-01", "SALARY", "2500.00"))
    assert book.consume(Delivery("j-1", "in-1", "o1", dec)) == "imported"
    assert book.consume(Delivery("j-2", "in-2", "o2", jan)) == "imported"
    rows = [(t["date"], t["description"], t["amount"]) for t in book.transactions("1234")]
    assert rows == [("2026-01-30", "RENT", "-900.00")] + [("2026-01-31", "COFFEE", "-4.50")] * 3 \
        + [("2026-02-01", "SALARY", "2500.00")]


def test_changed_output_for_a_decision_is_quarantined_not_replaced(book: Book) -> None:
    first = statement(("2026-01-02", "COFFEE", "-4.50"))
    assert book.consume(Delivery("j-1", "in-1", "out-A", first)) == "imported"
    other = statement(("2026-01-02", "COFFEE", "-45.00"))
    assert book.consume(Delivery("j-1", "in-1", "out-B", other)) == "quarantined"
    assert book.consume(Delivery("j-1", "in-1", "out-B", other)) == "quarantined"
    assert [t["amount"] for t in book.transactions()] == ["-4.50"]
    [q] = book.quarantined()
    assert (q["reason"], q["known_digest"], q["new_digest"]) == ("decision_changed", "out-A",
                                                                 "out-B")


def test_same_input_bytes_with_a_different_output_are_quarantined(book: Book) -> None:
    assert book.consume(Delivery("j-1", "in-1", "out-A", statement())) == "imported"
    assert book.consume(Delivery("j-9", "in-1", "out-B", statement())) == "quarantined"
    assert book.consume(Delivery("j-8", "in-1", "out-A", statement())) == "duplicate"
    assert book.summary()["imported"] == 1


def test_object_differing_from_the_ledger_record_is_refused(book: Book) -> None:
    d = Delivery("j-1", "in-1", "out-X", statement(("2026-01-02", "A", "1.00")),
                 recorded_digest="out-recorded")
    assert book.consume(d) == "quarantined"
    assert book.transactions() == []
