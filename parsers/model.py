"""The normalised statement: what every parser returns and what ground truth holds.

Money is `Decimal` and dates are `datetime.date` from reading to writing; the JSON form
(`to_dict`: what `statement.json` and `stmtflow parse --json` hold) uses strings so that no
float ever touches an amount.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

#: The recipe of `transaction_id`; a change of recipe is a new prefix, never a silent change.
TXN_ID_RECIPE = "txn-v1"


@dataclass(frozen=True)
class Transaction:
    date: date
    description: str
    amount: Decimal
    balance: Decimal | None = None
    #: The bank's own id of the row, where an export carries one (OFX FITID, CAMT
    #: end-to-end id or servicer reference, MT940 bank reference): kept, never identifying.
    reference: str | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "date": self.date.isoformat(),
            "description": self.description,
            "amount": money(self.amount),
            "balance": None if self.balance is None else money(self.balance),
        }
        if self.reference is not None:
            out["reference"] = self.reference
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Transaction:
        balance = d.get("balance")
        return cls(date.fromisoformat(d["date"]), d["description"], Decimal(d["amount"]),
                   None if balance is None else Decimal(balance), d.get("reference"))


@dataclass
class Account:
    account_last4: str
    currency: str
    opening_balance: Decimal
    closing_balance: Decimal
    transactions: list[Transaction] = field(default_factory=list)
    #: Layout-specific figures used by validation (e.g. a card's summary); not output.
    summary: dict[str, Decimal] = field(default_factory=dict, compare=False)
    #: This account's own statement period, when a file holds several statements; not
    #: output (validation falls back to the statement's period).
    period_start: date | None = field(default=None, compare=False)
    period_end: date | None = field(default=None, compare=False)
    #: False for an export that carries no balance at all: its opening and closing are the
    #: rows' sum from zero, which the book asserts nothing from.
    balances_printed: bool = field(default=True, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "account_last4": self.account_last4,
            "currency": self.currency,
            "opening_balance": money(self.opening_balance),
            "closing_balance": money(self.closing_balance),
            "transactions": [t.to_dict() for t in self.transactions],
        }
        if not self.balances_printed:
            out["balances_printed"] = False
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Account:
        return cls(d["account_last4"], d["currency"], Decimal(d["opening_balance"]),
                   Decimal(d["closing_balance"]),
                   [Transaction.from_dict(t) for t in d["transactions"]],
                   balances_printed=d.get("balances_printed", True))


@dataclass
class Statement:
    bank: str
    accounts: list[Account]
    period_start: date | None = field(default=None, compare=False)
    period_end: date | None = field(default=None, compare=False)
    #: What a bank export was read as and by (`{"format": "ofx", "reader": "ofxtools
    #: 1.1.1"}`); None for a PDF.
    source: dict[str, str] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bank": self.bank,
                               "accounts": [a.to_dict() for a in self.accounts]}
        if self.source is not None:
            out["source"] = dict(self.source)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Statement:
        """The statement of a normalised document (`statement.json` or ground truth)."""
        period = d.get("period") or {}
        return cls(d["bank"], [Account.from_dict(a) for a in d["accounts"]],
                   _date_or_none(period.get("start")), _date_or_none(period.get("end")),
                   d.get("source"))

    @property
    def transaction_count(self) -> int:
        return sum(len(a.transactions) for a in self.accounts)


def _date_or_none(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def occurrences(transactions: Sequence[Transaction]) -> list[int]:
    """Which occurrence of its (date, description, amount) each transaction is, from 1.

    Two equal coffees on one day are two transactions (occurrences 1 and 2), and the same
    coffee read again from an overlapping statement is occurrence 1 again.
    """
    return _numbered([(t.date.isoformat(), _plain(t.description), money(t.amount))
                      for t in transactions])


def transaction_id(bank: str, account_last4: str, currency: str, t: Transaction,
                   occurrence: int) -> str:
    """A transaction's stable id: a digest of what identifies it, never of where it was read.

    Bank, account, currency, date, description (whitespace folded), amount and occurrence
    within the day: the same transaction read from two overlapping statements, or imported
    twice, has the same id. The running balance and the job are left out on purpose.
    """
    return _digest(bank, account_last4, currency,
                   (t.date.isoformat(), _plain(t.description), money(t.amount)), occurrence)


def transaction_ids(bank: str, account: Account) -> list[str]:
    """The ids of an account section's transactions, in their order."""
    keys = [(t.date.isoformat(), _plain(t.description), money(t.amount))
            for t in account.transactions]
    return [_digest(bank, account.account_last4, account.currency, k, n)
            for k, n in zip(keys, _numbered(keys), strict=True)]


def document_transaction_ids(bank: str, account: dict[str, Any]) -> list[tuple[int, str]]:
    """(occurrence, id) of each transaction of a document's account section (the JSON form
    `Account.to_dict` writes), the same as `occurrences` and `transaction_ids` of the parsed
    section, without building it: what the book computes for every statement it takes in."""
    keys = [(date.fromisoformat(t["date"]).isoformat(), _plain(t["description"]),
             money(Decimal(t["amount"]))) for t in account["transactions"]]
    numbers = _numbered(keys)
    return [(n, _digest(bank, account["account_last4"], account["currency"], k, n))
            for k, n in zip(keys, numbers, strict=True)]


#: The recipe of `match_keys`; a change of recipe is a new prefix, as for `TXN_ID_RECIPE`.
MATCH_RECIPE = "match-v1"


def match_keys(bank: str, account: dict[str, Any]) -> list[str]:
    """The key of each transaction of a document's account section that finds the same
    transaction read from another source (a PDF and a bank export of the same month): bank,
    account, currency, date, amount, and which occurrence of that amount on that day it is
    in its statement. The description is left out on purpose: a PDF and an export word the
    same payment differently."""
    keys = [(date.fromisoformat(t["date"]).isoformat(), money(Decimal(t["amount"])))
            for t in account["transactions"]]
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for key in keys:
        seen[key] += 1
        identity = [MATCH_RECIPE, bank, account["account_last4"], account["currency"], *key,
                    str(seen[key])]
        out.append(hashlib.sha256("\x1f".join(identity).encode()).hexdigest()[:32])
    return out


def source_of(statement: dict[str, Any]) -> str:
    """What a statement document was read from: `pdf`, or its export's format family
    (`ofx`, `camt`, `mt940`, `csv`)."""
    fmt = (statement.get("source") or {}).get("format", "pdf")
    return fmt.split(":")[0].split(".")[0]


def _numbered(keys: list[tuple[str, str, str]]) -> list[int]:
    """Each key's occurrence among the equal keys before it, from 1."""
    seen: Counter[tuple[str, str, str]] = Counter()
    numbers = []
    for key in keys:
        seen[key] += 1
        numbers.append(seen[key])
    return numbers


def _digest(bank: str, account_last4: str, currency: str, key: tuple[str, str, str],
            occurrence: int) -> str:
    """The recipe: (ISO date, folded description, `money` amount) of `key`, hashed with the
    bank, account, currency and occurrence."""
    identity = [TXN_ID_RECIPE, bank, account_last4, currency, *key, str(occurrence)]
    return hashlib.sha256("\x1f".join(identity).encode()).hexdigest()[:32]


def _plain(description: str) -> str:
    return " ".join(description.split())


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


#: a digit run, or digit groups of three or more joined by single spaces or dashes (a card
#: number `4111 1111 1111 1111`, an account `123-456-789`); a date's `-12-` breaks the chain;
#: a number followed by a unit (`52428800 bytes`, `600 pages`) is a quantity, no account
_DIGIT_GROUPS = re.compile(
    r"(?:(?<!\d)\d{3,}(?:[ -]\d{3,})*(?!\d)|\d{5,})"
    r"(?!\d|\s*(?:bytes?|[KMG]i?B|pages?|pixels?|objects?|seconds?|s)\b)")


def mask_digits(text: str) -> str:
    """Mask every run of five or more digits, and every chain of digit groups holding five
    or more, to its last four (an account number in a file name, say); not a quantity, a
    number with its unit after it."""
    def mask(m: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", m.group(0))
        return "****" + digits[-4:] if len(digits) >= 5 else m.group(0)

    return _DIGIT_GROUPS.sub(mask, text)


def masked_spans(text: str) -> list[tuple[int, int]]:
    """Where in `text` `mask_digits` masks (start, end): what a picture of it must hide."""
    return [m.span() for m in _DIGIT_GROUPS.finditer(text)
            if sum(c.isdigit() for c in m.group(0)) >= 5]
