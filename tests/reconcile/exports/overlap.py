"""Overlapping statements cut from the project's generated statements, and a book of them."""

from __future__ import annotations

import dataclasses
import functools
from decimal import Decimal
from typing import NamedTuple

from corpus import statement
from parsers.model import Account, Statement, Transaction, transaction_ids
from reconcile.book import Book
from reconcile.exports import AccountNames, BookExport

BANKS = ("northwind", "bluebird", "harbor", "alpenbank")
CARD_BANKS = frozenset({"harbor"})


@functools.cache
def generated(bank: str, index: int) -> Statement:
    """A statement of the project's generator (its ground truth), with some transactions.

    Cached: rendering is the slow part, and no test changes what it is given."""
    for i in range(index, index + 50):
        st = statement(bank, index=i, seed=2).truth
        if all(len(a.transactions) >= 6 for a in st.accounts):
            return st
    raise AssertionError(f"no {bank} statement with enough transactions")


def with_twin(st: Statement, index: int) -> Statement:
    """`st` with transaction `index` of each account repeated: two equal rows on one day."""
    accounts = []
    for a in st.accounts:
        rows = [*a.transactions[:index + 1], a.transactions[index], *a.transactions[index + 1:]]
        accounts.append(_rebalanced(a, a.opening_balance, rows))
    return dataclasses.replace(st, accounts=accounts)


def overlapping(st: Statement) -> tuple[Statement, Statement]:
    """Two statements cut from `st` whose periods share the days of its middle third."""
    days = sorted({t.date for a in st.accounts for t in a.transactions})
    cut_in, cut_out = days[len(days) // 3], days[2 * len(days) // 3]
    first, second = [], []
    for a in st.accounts:
        before = [t for t in a.transactions if t.date < cut_in]
        first.append(_rebalanced(a, a.opening_balance,
                                 [t for t in a.transactions if t.date <= cut_out]))
        second.append(_rebalanced(a, a.opening_balance + sum(t.amount for t in before),
                                  [t for t in a.transactions if t.date >= cut_in]))
    return (Statement(st.bank, first, st.period_start, cut_out),
            Statement(st.bank, second, cut_in if st.period_start else None, st.period_end))


def _rebalanced(a: Account, opening: Decimal, rows: list[Transaction]) -> Account:
    balance, out = opening, []
    for t in rows:
        balance += t.amount
        out.append(dataclasses.replace(t, balance=None if t.balance is None else balance))
    return Account(a.account_last4, a.currency, opening, balance, out)


def document(st: Statement, ok: bool = True) -> dict:
    """The `statement.json` a job would write for `st`."""
    return {**st.to_dict(), "validation": {"ok": ok, "problems": [] if ok else ["x"]},
            "period": {"start": st.period_start and st.period_start.isoformat(),
                       "end": st.period_end and st.period_end.isoformat()}}


class Books(NamedTuple):
    book: Book
    #: the statements before they were cut in two: what the book must hold, once each
    originals: list[Statement]

    def export(self, include_unreviewed: bool = False,
               names: AccountNames | None = None) -> BookExport:
        return BookExport(self.book.records(include_unreviewed=include_unreviewed),
                          self.book.balances(include_unreviewed=include_unreviewed),
                          names or AccountNames(card_banks=CARD_BANKS))

    def expected_ids(self) -> set[str]:
        return {i for st in self.originals for a in st.accounts
                for i in transaction_ids(st.bank, a)}
