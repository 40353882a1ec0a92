"""The book imports each decision once, deduplicates overlaps, quarantines changes, and holds
statements that need review apart from the verified transactions."""

from __future__ import annotations

import copy
import sqlite3
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import event

from parsers.model import Transaction, money, transaction_id
from reconcile.book import Book, Delivery
from reconcile.db import BULK_CACHE_KIB, bulk, make_engine


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
    assert book.records() == []
    unreviewed = book.records(include_unreviewed=True)
    assert [(t.description, t.verified) for t in unreviewed] == [
        ("COFFEE", False), ("Beginning Balance", False)]
    s = book.summary()
    assert (s["imported"], s["held"], s["reviews"], s["transactions"],
            s["held_transactions"]) == (0, 1, 1, 0, 2)
    assert book.imported() == {"j-1"}


def test_export_with_unreviewed_marks_each_row(book: Book) -> None:
    book.consume(Delivery("j-1", "in-1", "o1", statement(("2026-01-02", "RENT", "-900.00"))))
    book.consume(Delivery("j-2", "in-2", "o2", statement(("2026-01-05", "SALARY", "2500.00"),
                                                         ok=False)))
    assert [t.verified for t in book.records(include_unreviewed=True)] == [True, False]
    assert [t.description for t in book.records()] == ["RENT"]
    assert book.records("9999", include_unreviewed=True) == []


def test_overlapping_statements_do_not_duplicate_transactions(book: Book) -> None:
    dec = statement(("2026-01-30", "RENT", "-900.00"), ("2026-01-31", "COFFEE", "-4.50"),
                    ("2026-01-31", "COFFEE", "-4.50"))
    jan = statement(("2026-01-31", "COFFEE", "-4.50"), ("2026-01-31", "COFFEE", "-4.50"),
                    ("2026-01-31", "COFFEE", "-4.50"), ("2026-02-01", "SALARY", "2500.00"))
    assert book.consume(Delivery("j-1", "in-1", "o1", dec)) == "imported"
    assert book.consume(Delivery("j-2", "in-2", "o2", jan)) == "imported"
    rows = [(t.date.isoformat(), t.description, money(t.amount)) for t in book.records("1234")]
    assert rows == [("2026-01-30", "RENT", "-900.00")] + [("2026-01-31", "COFFEE", "-4.50")] * 3 \
        + [("2026-02-01", "SALARY", "2500.00")]


def test_changed_output_for_a_decision_is_quarantined_not_replaced(book: Book) -> None:
    first = statement(("2026-01-02", "COFFEE", "-4.50"))
    assert book.consume(Delivery("j-1", "in-1", "out-A", first)) == "imported"
    other = statement(("2026-01-02", "COFFEE", "-45.00"))
    assert book.consume(Delivery("j-1", "in-1", "out-B", other)) == "quarantined"
    assert book.consume(Delivery("j-1", "in-1", "out-B", other)) == "quarantined"
    assert [money(t.amount) for t in book.records()] == ["-4.50"]
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
    assert book.records() == []


def test_rows_carry_the_stable_id_of_their_transaction(book: Book) -> None:
    assert book.consume(Delivery("j-1", "in-1", "o1", statement(
        ("2026-01-31", "COFFEE", "-4.50"), ("2026-01-31", "COFFEE", "-4.50")))) == "imported"
    coffee = Transaction(date(2026, 1, 31), "COFFEE", Decimal("-4.50"))
    assert [(r.txn_id, r.bank, r.amount) for r in book.records()] == [
        (transaction_id("northwind", "1234", "USD", coffee, n), "northwind", Decimal("-4.50"))
        for n in (1, 2)]


def test_same_last_four_at_two_banks_are_two_accounts(book: Book) -> None:
    other = statement(("2026-01-02", "COFFEE", "-4.50"))
    other["bank"] = "bluebird"
    book.consume(Delivery("j-1", "in-1", "o1", statement(("2026-01-02", "COFFEE", "-4.50"))))
    book.consume(Delivery("j-2", "in-2", "o2", other))
    assert sorted(r.bank for r in book.records()) == ["bluebird", "northwind"]


def test_statement_balances_are_kept_with_the_period_or_the_transactions_span(
        book: Book) -> None:
    printed = statement(("2026-01-05", "A", "-1.00"))
    printed["period"] = {"start": "2026-01-01", "end": "2026-01-31"}
    printed["accounts"][0].update(opening_balance="10.00", closing_balance="9.00")
    card = statement(("2026-02-03", "B", "-2.00"), ("2026-02-20", "C", "-3.00"), last4="4821")
    card["period"] = {"start": None, "end": "2026-02-25"}
    book.consume(Delivery("j-1", "in-1", "o1", printed))
    book.consume(Delivery("j-2", "in-2", "o2", card))
    assert [(b.decision_id, b.account_last4, b.period_start, b.period_end, b.opening_balance,
             b.closing_balance) for b in book.balances()] == [
        ("j-1", "1234", date(2026, 1, 1), date(2026, 1, 31), Decimal("10.00"),
         Decimal("9.00")),
        ("j-2", "4821", date(2026, 2, 3), date(2026, 2, 25), Decimal("0.00"), Decimal("0.00"))]


def test_statements_awaiting_review_are_read_only_when_asked(book: Book) -> None:
    book.consume(Delivery("j-1", "in-1", "o1", statement(("2026-01-02", "A", "-1.00"))))
    book.consume(Delivery("j-2", "in-2", "o2", statement(("2026-01-03", "B", "-2.00"),
                                                         ok=False)))
    assert [r.decision_id for r in book.records()] == ["j-1"]
    assert [b.decision_id for b in book.balances()] == ["j-1"]
    asked = book.records(include_unreviewed=True)
    assert [(r.decision_id, r.verified) for r in asked] == [("j-1", True), ("j-2", False)]
    assert [b.verified for b in book.balances(include_unreviewed=True)] == [True, False]


def mixed_batch() -> list[Delivery]:
    """Every kind of delivery, and their interplay inside one batch."""
    dec = statement(("2026-01-30", "RENT", "-900.00"), ("2026-01-31", "COFFEE", "-4.50"))
    jan = statement(("2026-01-31", "COFFEE", "-4.50"), ("2026-01-31", "COFFEE", "-4.50"),
                    ("2026-02-01", "SALARY", "2500.00"))
    return [
        Delivery("j-1", "in-1", "o1", dec),
        Delivery("j-2", "in-2", "o2", jan),                           # overlaps j-1
        Delivery("j-1", "in-1", "o1", copy.deepcopy(dec)),            # delivered twice
        Delivery("j-1", "in-1", "o1-changed", jan),                   # decision changed
        Delivery("j-3", "in-2", "o3", jan),                           # input changed
        Delivery("j-4", "in-2", "o2", copy.deepcopy(jan)),            # same input, same output
        Delivery("j-5", "in-5", "o5", statement(("2026-03-01", "FEE", "-1.00"), ok=False)),
        Delivery("j-6", "in-6", "o6", dec, recorded_digest="o6-recorded"),
        Delivery("j-7", "in-7", "o7", statement(("2026-01-31", "COFFEE", "-4.50"),
                                                last4="9876")),
    ]


def state(book: Book) -> tuple:
    return (book.summary(), book.records(include_unreviewed=True),
            book.balances(include_unreviewed=True),
            [(q["decision_id"], q["reason"], q["known_digest"], q["new_digest"])
             for q in book.quarantined()])


def test_a_batch_is_taken_in_as_one_delivery_after_another(book: Book, tmp_path: Path) -> None:
    one_by_one = Book(make_engine(f"sqlite:///{tmp_path}/one-by-one.db"))
    expected = [one_by_one.consume(d) for d in mixed_batch()]
    assert book.consume_many(mixed_batch()) == expected
    assert expected == ["imported", "imported", "duplicate", "quarantined", "quarantined",
                        "duplicate", "held", "quarantined", "imported"]
    assert state(book) == state(one_by_one)
    assert book.consume_many(mixed_batch()) == [
        "duplicate", "duplicate", "duplicate", "quarantined", "quarantined", "duplicate",
        "duplicate", "quarantined", "duplicate"]
    assert state(book)[1:] == state(one_by_one)[1:]


def test_a_batch_costs_the_same_few_statements_whatever_its_size(book: Book) -> None:
    def statements_for(n: int, first: int) -> int:
        batch = [Delivery(f"j-{i}", f"in-{i}", f"o{i}", statement(
            (f"2026-01-{1 + i % 28:02d}", f"SHOP {i}", "-1.00"), ("2026-01-02", "FEE", "-2.00"),
            last4=f"{i % 7:04d}")) for i in range(first, first + n)]
        executed = []
        listen = lambda *args: executed.append(args[2])  # noqa: E731
        event.listen(book.engine, "before_cursor_execute", listen)
        try:
            assert set(book.consume_many(batch)) == {"imported"}
        finally:
            event.remove(book.engine, "before_cursor_execute", listen)
        return len(executed)

    assert statements_for(5, 0) == statements_for(60, 100)
    # every shop once, and the fee once per account (seven of them): the batches deduplicate
    assert len(book.records()) == 65 + 7


def test_a_pass_takes_a_batch_in_on_its_own_connection_and_gives_it_back_as_it_was(
        book: Book, tmp_path: Path) -> None:
    pooled = Book(make_engine(f"sqlite:///{tmp_path}/pooled.db"))
    expected = pooled.consume_many(mixed_batch())
    with bulk(book.engine) as c:
        raw = c.connection.dbapi_connection
        assert raw is not None
        cache = raw.execute("PRAGMA cache_size").fetchone()[0] if c.dialect.name == "sqlite" \
            else None
        assert book.consume_many(mixed_batch(), c) == expected
    assert state(book) == state(pooled)
    if cache is not None:  # SQLite: a large page cache for the pass, the default after it
        assert cache == -BULK_CACHE_KIB
        default = sqlite3.connect(":memory:").execute("PRAGMA cache_size").fetchone()[0]
        assert raw.execute("PRAGMA cache_size").fetchone()[0] == default != cache
    broken = {"bank": "northwind", "validation": {"ok": True}}  # no accounts: fails midway
    with pytest.raises(KeyError), bulk(book.engine) as c:  # a failed batch leaves no trace
        book.consume_many([Delivery("j-9", "in-9", "o9", statement(("2026-04-01", "X", "1.00"))),
                           Delivery("j-10", "in-10", "o10", broken)], c)
    assert state(book) == state(pooled)
