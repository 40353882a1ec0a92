"""The normalised statement: what every parser returns and what ground truth holds.

Money is `Decimal` and dates are `datetime.date` from reading to writing; the JSON form
(`to_dict`: what `statement.json` and `stmtflow parse --json` hold) uses strings so that no
float ever touches an amount.
"""

from __future__ import annotations

import re
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


@dataclass
class Statement:
    bank: str
    accounts: list[Account]
    period_start: date | None = field(default=None, compare=False)
    period_end: date | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"bank": self.bank, "accounts": [a.to_dict() for a in self.accounts]}

    @property
    def transaction_count(self) -> int:
        return sum(len(a.transactions) for a in self.accounts)


def money(value: Decimal) -> str:
    """Dot decimal, two places, no thousands separator, `-0.00` folded to `0.00`.

    A value with fractions of a cent is refused: rounding here would hide a wrong number.
    """
    q = value.quantize(Decimal("0.01"))
    if q != value:
        raise ValueError(f"{value} is not a whole number of cents")
    return format(q, "f") if q != 0 else "0.00"


def mask_account(last4: str | None) -> str:
    """What logs, artifacts and reports may show of an account number."""
    return f"****{last4}" if last4 else "****"


def mask_accounts(joined: str | None) -> str:
    """A job's comma-joined account endings, each masked."""
    return ", ".join(mask_account(a) for a in (joined or "").split(",") if a)


def mask_digits(text: str) -> str:
    """Mask every run of six or more digits (an account number in a file name, say)."""
    return re.sub(r"\d{2,}(\d{4})(?=\D|$)", lambda m: "****" + m.group(1)
                  if len(m.group(0)) >= 6 else m.group(0), text)
