"""What the journal formats share: where the books open and where balances are asserted."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from reconcile.book_records import AccountKey, BookTransaction, StatementBalance
from reconcile.exports import BookExport

KEY = AccountKey("northwind", "1234")


def balance(job: str, start: date | None, end: date | None, opening: str, closing: str,
            verified: bool = True) -> StatementBalance:
    return StatementBalance(job, KEY.bank, KEY.last4, "USD", start, end, Decimal(opening),
                            Decimal(closing), verified)


def txn(day: date, amount: str) -> BookTransaction:
    return BookTransaction("t" + day.isoformat() + amount, KEY.bank, KEY.last4, "USD", day,
                           "X", Decimal(amount), None, "j-1", True)


def test_books_open_with_the_earliest_statements_opening_balance() -> None:
    export = BookExport([txn(date(2026, 1, 5), "-1.00")], [
        balance("j-2", date(2026, 2, 1), date(2026, 2, 28), "99.00", "99.00"),
        balance("j-1", date(2026, 1, 1), date(2026, 1, 31), "100.00", "99.00")])
    opening = export.opening(KEY)
    assert (opening.date, opening.amount, opening.decision_id) == (
        date(2026, 1, 1), Decimal("100.00"), "j-1")


def test_assertions_fall_on_the_day_after_each_verified_statement_once() -> None:
    export = BookExport([], [
        balance("j-1", date(2026, 1, 1), date(2026, 1, 31), "100.00", "99.00"),
        balance("j-1b", date(2026, 1, 1), date(2026, 1, 31), "100.00", "99.00"),
        balance("j-2", date(2026, 2, 1), date(2026, 2, 28), "99.00", "50.00", verified=False)])
    [a] = export.assertions(KEY)
    assert (a.date, a.amount) == (date(2026, 1, 31) + timedelta(days=1), Decimal("99.00"))


def test_latest_balance_prefers_verified_statements() -> None:
    export = BookExport([], [
        balance("j-1", date(2026, 1, 1), date(2026, 1, 31), "100.00", "99.00"),
        balance("j-2", date(2026, 2, 1), date(2026, 2, 28), "99.00", "50.00", verified=False)])
    assert export.latest_balance(KEY).decision_id == "j-1"
