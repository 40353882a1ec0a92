"""What the book hands out: frozen records of its transactions and statement balances.

Rows become records at the book's edge, so exports read attributes with real types
(`Decimal` money, `date` dates) and never a database row or a float.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True, order=True)
class AccountKey:
    """A bank account as the book knows it: the bank and the account's last four digits."""

    bank: str
    last4: str

    def __str__(self) -> str:
        return f"{self.bank}:{self.last4}"


@dataclass(frozen=True)
class BookTransaction:
    txn_id: str
    bank: str
    account_last4: str
    currency: str
    date: date
    description: str
    amount: Decimal
    balance: Decimal | None
    #: the job whose statement brought the transaction into the book
    decision_id: str
    #: False while the statement it came from awaits a person's review
    verified: bool

    @property
    def account(self) -> AccountKey:
        return AccountKey(self.bank, self.account_last4)


@dataclass(frozen=True)
class StatementBalance:
    """One account section of an imported statement: its period and printed balances.

    `period_start`/`period_end` are the printed period, or the span of the section's
    transactions where the statement prints none (a card prints only its closing date).
    """

    decision_id: str
    bank: str
    account_last4: str
    currency: str
    period_start: date | None
    period_end: date | None
    opening_balance: Decimal
    closing_balance: Decimal
    verified: bool

    @property
    def account(self) -> AccountKey:
        return AccountKey(self.bank, self.account_last4)
