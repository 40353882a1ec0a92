"""The normalised statement: what every parser returns and what ground truth holds.

Money is `Decimal` and dates are `datetime.date` from reading to writing; the JSON form
(layouts.md, "Normalised output") uses strings so that no float ever touches an amount.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class Transaction:
    date: date
    description: str
    amount: Decimal
    balance: Decimal | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat(),
            "description": self.description,
            "amount": money(self.amount),
            "balance": None if self.balance is None else money(self.balance),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Transaction:
        bal = d.get("balance")
        return cls(
            date=date.fromisoformat(d["date"]),
            description=d["description"],
            amount=Decimal(d["amount"]),
            balance=None if bal is None else Decimal(bal),
        )


@dataclass
class Account:
    account_last4: str
    currency: str
    opening_balance: Decimal
    closing_balance: Decimal
    transactions: list[Transaction] = field(default_factory=list)
    #: Layout-specific figures used by validation (e.g. a card's summary); not output.
    summary: dict[str, Decimal] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "account_last4": self.account_last4,
            "currency": self.currency,
            "opening_balance": money(self.opening_balance),
            "closing_balance": money(self.closing_balance),
            "transactions": [t.to_dict() for t in self.transactions],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Account:
        return cls(
            account_last4=d["account_last4"],
            currency=d["currency"],
            opening_balance=Decimal(d["opening_balance"]),
            closing_balance=Decimal(d["closing_balance"]),
            transactions=[Transaction.from_dict(t) for t in d["transactions"]],
        )


@dataclass
class Statement:
    bank: str
    accounts: list[Account]
    period_start: date | None = field(default=None, compare=False)
    period_end: date | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"bank": self.bank, "accounts": [a.to_dict() for a in self.accounts]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Statement:
        return cls(bank=d["bank"], accounts=[Account.from_dict(a) for a in d["accounts"]])

    @property
    def transaction_count(self) -> int:
        return sum(len(a.transactions) for a in self.accounts)


def money(value: Decimal) -> str:
    """Dot decimal, two places, no thousands separator, `-0.00` folded to `0.00`."""
    q = value.quantize(Decimal("0.01"))
    return format(q + Decimal("0.00"), "f") if q != 0 else "0.00"


def mask_account(last4: str | None) -> str:
    """What logs, artifacts and reports may show of an account number."""
    return f"****{last4}" if last4 else "****"
