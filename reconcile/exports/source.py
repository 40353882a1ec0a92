"""What every export reads: the book's transactions and statement balances, and names.

Also the two facts the journal formats share: each account's opening balance (the earliest
statement's, so the books start where the bank did) and the balance assertions (each
verified statement's closing balance, on the day after its period: Beancount asserts at the
start of a day, and the journals here do the same).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from reconcile.book_records import AccountKey, BookTransaction, StatementBalance
from reconcile.exports.accounts import AccountNames


@dataclass(frozen=True)
class Opening:
    account: AccountKey
    date: date
    amount: Decimal
    currency: str
    decision_id: str
    verified: bool


@dataclass(frozen=True)
class Assertion:
    account: AccountKey
    #: the day after the statement's period: the balance at the start of this day
    date: date
    amount: Decimal
    currency: str
    decision_id: str


@dataclass(frozen=True)
class BookExport:
    transactions: list[BookTransaction]
    balances: list[StatementBalance]
    names: AccountNames = field(default_factory=AccountNames)

    def accounts(self) -> list[AccountKey]:
        return sorted(self._transactions_by_account.keys() | self._balances_by_account.keys())

    def transactions_of(self, key: AccountKey) -> list[BookTransaction]:
        return self._transactions_by_account.get(key, [])

    def balances_of(self, key: AccountKey) -> list[StatementBalance]:
        return self._balances_by_account.get(key, [])

    @functools.cached_property
    def _transactions_by_account(self) -> dict[AccountKey, list[BookTransaction]]:
        grouped: dict[AccountKey, list[BookTransaction]] = defaultdict(list)
        for t in self.transactions:
            grouped[t.account].append(t)
        return dict(grouped)

    @functools.cached_property
    def _balances_by_account(self) -> dict[AccountKey, list[StatementBalance]]:
        grouped: dict[AccountKey, list[StatementBalance]] = defaultdict(list)
        for b in self.balances:
            grouped[b.account].append(b)
        return dict(grouped)

    def currency(self, key: AccountKey) -> str:
        for item in (*self.transactions_of(key), *self.balances_of(key)):
            return item.currency
        raise KeyError(str(key))

    def opening(self, key: AccountKey) -> Opening | None:
        """The earliest statement's opening balance, dated no later than any transaction."""
        dated = [(b.period_start, b.decision_id, b) for b in self.balances_of(key)
                 if b.period_start is not None]
        if not dated:
            return None
        start, _, first = min(dated, key=lambda d: d[:2])
        when = min([start, *(t.date for t in self.transactions_of(key))])
        return Opening(key, when, first.opening_balance, first.currency, first.decision_id,
                       first.verified)

    def assertions(self, key: AccountKey) -> list[Assertion]:
        """One per verified statement with a known end; a balance printed twice, once."""
        seen: dict[tuple[date, Decimal], Assertion] = {}
        for b in self.balances_of(key):
            if b.verified and b.period_end is not None:
                a = Assertion(key, b.period_end + timedelta(days=1), b.closing_balance,
                              b.currency, b.decision_id)
                seen.setdefault((a.date, a.amount), a)
        return sorted(seen.values(), key=lambda a: a.date)

    def latest_balance(self, key: AccountKey) -> StatementBalance | None:
        """The closing balance of the statement that ends last (verified ones first)."""
        ended = [b for b in self.balances_of(key) if b.period_end is not None]
        return max(ended, key=lambda b: (b.verified, b.period_end), default=None)

    def span(self, key: AccountKey) -> tuple[date, date] | None:
        """First and last day the account's statements and transactions cover."""
        days = [t.date for t in self.transactions_of(key)]
        for b in self.balances_of(key):
            days += [d for d in (b.period_start, b.period_end) if d is not None]
        return (min(days), max(days)) if days else None
