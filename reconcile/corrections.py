"""Corrections to a statement document, the check that it then reconciles, and its evidence.

Everything here is a pure function of a normalised statement document (the `statement.json`
a job wrote), so a reviewer's change can be tried, explained and refused without touching
the book. The check is the parsers' own validation (opening + Σ amounts = closing per
account, the running balance row by row where one is printed), run on the document.

A correction is written `TARGET=VALUE` (or `drop ROW`), where rows are numbered from 1 per
account, as validation numbers them in its problems:

    3.amount=-12.50                    row 3 of the first account
    account2.3.balance=100.00          row 3 of the second account
    account1.closing_balance=1342.55   an account's opening_balance or closing_balance
    3.description=COFFEE HOUSE         row fields: date (YYYY-MM-DD), description, amount,
    9.balance=none                     balance (a number, or `none` where none is printed)
    drop 4                             remove row 4 (a line read as a row that is not one)

Row numbers always refer to the statement under review, whatever else the same correction
changes or drops. A description is shown to the reviewer in full but for the statement's own
account numbers (`for_reviewer`: `****1234`); a corrected description may keep such a
`****1234` as shown, and it stands for the number as read. A description cut short (the new
one is the start of the one read, less a word) is refused: it is part of the transaction's id.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from parsers.model import Account, Statement, Transaction, masked_spans, money
from parsers.validate import validate

ROW_FIELDS = ("date", "description", "amount", "balance")
ACCOUNT_FIELDS = ("opening_balance", "closing_balance")
_TARGET = re.compile(
    r"^(?:account(?P<account>\d+)\.)?(?:(?P<row>\d+)(?:\.(?P<row_field>[a-z_]+))?"
    r"|(?P<account_field>[a-z_]+))$")
_ROW_REF = re.compile(r"account (?P<account>\d+) \([^)]*\) row (?P<row>\d+)")
_DATE_REF = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}): ")


class CorrectionError(ValueError):
    """A correction that cannot be read or does not fit the statement it is meant for."""


@dataclass(frozen=True)
class Change:
    """One correction: set `field` of a row or an account to `value`, or drop a row."""

    account: int
    row: int | None
    field: str
    value: str | None

    @property
    def target(self) -> str:
        where = f"account{self.account}"
        if self.row is not None:
            where += f".{self.row}"
        return f"drop {where}" if self.field == "drop" else f"{where}.{self.field}"


@dataclass(frozen=True)
class Applied:
    """A change as made: what the field held before and after (None where there was none)."""

    target: str
    old: str | None
    new: str | None

    def to_dict(self) -> dict[str, str | None]:
        return {"target": self.target, "old": self.old, "new": self.new}


def make_change(account: int, row: int | None, field: str, value: str | None) -> Change:
    """A change given field by field (a form's or the review page's), read as its written form
    is, with the same checks: `row` None (or 0) for an account field, `field` `drop` to drop."""
    where = f"account{account}" + (f".{row}" if row else "")
    if field == "drop":
        return parse_change(f"drop {where}")
    return parse_change(f"{where}.{field}={value or ''}")


def parse_change(text: str) -> Change:
    """Read one correction (`3.amount=-12.50`, `account1.closing_balance=10.00`, `drop 4`)."""
    s = text.strip()
    if s.lower().startswith("drop "):
        change = _target(s[5:].strip(), None)
        if change.row is None or change.field:
            raise CorrectionError(f"{text!r}: drop takes a row, e.g. `drop 4` or "
                                  "`drop account2.4`")
        return Change(change.account, change.row, "drop", None)
    if "=" not in s:
        raise CorrectionError(f"{text!r}: write TARGET=VALUE (e.g. 3.amount=-12.50) or "
                              "drop ROW")
    target, value = s.split("=", 1)
    return _target(target.strip(), value.strip())


def _target(text: str, value: str | None) -> Change:
    m = _TARGET.match(text)
    if m is None:
        raise CorrectionError(f"{text!r} is not a row or account field (e.g. 3.amount, "
                              "account2.3.balance, account1.closing_balance)")
    account = int(m["account"] or 1)
    if m["row"] is not None:
        field = m["row_field"] or ""
        if value is not None and field not in ROW_FIELDS:
            raise CorrectionError(f"{text!r}: a row field is one of {', '.join(ROW_FIELDS)}")
        change = Change(account, int(m["row"]), field, value)
    else:
        if m["account_field"] not in ACCOUNT_FIELDS or value is None:
            raise CorrectionError(f"{text!r}: an account field is one of "
                                  f"{', '.join(ACCOUNT_FIELDS)}")
        change = Change(account, None, m["account_field"], value)
    if change.account < 1 or (change.row is not None and change.row < 1):
        raise CorrectionError(f"{text!r}: accounts and rows are numbered from 1")
    if value is not None:
        _normalise(change.field, value, text)
    return change


def _normalise(field: str, value: str, where: str) -> str | None:
    """The value as the document holds it; amounts exact to the cent, dates ISO."""
    if field == "description":
        if not value:
            raise CorrectionError(f"{where}: a description cannot be empty")
        return value
    if field == "date":
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError as exc:
            raise CorrectionError(f"{where}: {value!r} is not a date (YYYY-MM-DD)") from exc
    if field == "balance" and value.lower() in ("none", ""):
        return None
    try:
        return money(Decimal(value.replace(",", "")))
    except (InvalidOperation, ValueError) as exc:
        raise CorrectionError(f"{where}: {value!r} is not an amount in whole cents "
                              "(e.g. -12.50)") from exc


def apply_changes(doc: dict[str, Any], changes: list[Change]) -> tuple[dict[str, Any],
                                                                        list[Applied]]:
    """A copy of `doc` with `changes` made, and each change with its old and new value."""
    if not changes:
        raise CorrectionError("no correction given")
    out = copy.deepcopy(doc)
    accounts = out["accounts"]
    applied: list[Applied] = []
    dropped: dict[int, set[int]] = {}
    for ch in changes:
        if ch.account > len(accounts):
            raise CorrectionError(f"{ch.target}: the statement has {len(accounts)} "
                                  "account(s)")
        acct = accounts[ch.account - 1]
        if ch.row is None:
            new = _normalise(ch.field, ch.value or "", ch.target)
            applied.append(Applied(ch.target, acct[ch.field], new))
            acct[ch.field] = new
            continue
        rows = acct["transactions"]
        if ch.row > len(rows):
            raise CorrectionError(f"{ch.target}: account {ch.account} has {len(rows)} rows")
        if ch.field == "drop":
            dropped.setdefault(ch.account, set()).add(ch.row)
            applied.append(Applied(ch.target, _row_text(rows[ch.row - 1]), None))
            continue
        new = _normalise(ch.field, ch.value or "", ch.target)
        if ch.field == "description" and new is not None:
            new = _description(rows[ch.row - 1]["description"], new, endings_of(doc), ch.target)
        applied.append(Applied(ch.target, rows[ch.row - 1][ch.field], new))
        rows[ch.row - 1][ch.field] = new
    for index, rows_out in dropped.items():
        acct = accounts[index - 1]
        acct["transactions"] = [t for n, t in enumerate(acct["transactions"], start=1)
                                if n not in rows_out]
    return out, applied


def endings_of(doc: dict[str, Any]) -> set[str]:
    """The last four digits of the statement's own accounts (what `for_reviewer` masks)."""
    return {a["account_last4"] for a in doc["accounts"] if a.get("account_last4")}


def for_reviewer(text: str, endings: set[str]) -> str:
    """`text` as a reviewer sees it: whole, but for the statement's own account numbers (a
    chain of five digits or more ending in one of `endings`), shown as `****1234`."""
    out, at = [], 0
    for start, end in masked_spans(text):
        digits = re.sub(r"\D", "", text[start:end])
        if digits[-4:] in endings:
            out += [text[at:start], "****" + digits[-4:]]
            at = end
    return "".join(out) + text[at:]


def _description(old: str, new: str, endings: set[str], where: str) -> str:
    """The corrected description: a `****1234` the reviewer kept as shown is the number as
    read; one that is only the start of the description as read is refused, saying why."""
    for start, end in masked_spans(old):
        shown = for_reviewer(old[start:end], endings)
        if shown != old[start:end]:
            new = new.replace(shown, old[start:end])
    folded_old, folded_new = " ".join(old.split()), " ".join(new.split())
    left_out = folded_old[len(folded_new):]
    if (len(folded_new) < len(folded_old) and folded_old.upper().startswith(folded_new.upper())
            and re.search(r"\w", left_out)):
        raise CorrectionError(
            f"{where}: {for_reviewer(folded_new, endings)!r} is the description as read cut "
            f"short (it leaves out {for_reviewer(left_out.strip(), endings)!r}); a "
            "description identifies its transaction: give it whole, as printed")
    return new


def _row_text(t: dict[str, Any]) -> str:
    return f"{t['date']} {t['description']} {t['amount']} {t['balance'] or ''}".strip()


def problems(doc: dict[str, Any]) -> list[str]:
    """What keeps `doc` from reconciling: the parsers' validation run on the document."""
    return validate(to_statement(doc)).problems


def to_statement(doc: dict[str, Any]) -> Statement:
    """The document's accounts as the parsers' model (money as `Decimal`, dates as dates)."""
    return Statement(doc.get("bank", ""), [
        Account(a["account_last4"], a["currency"], Decimal(a["opening_balance"]),
                Decimal(a["closing_balance"]), [
                    Transaction(date.fromisoformat(t["date"]), t["description"],
                                Decimal(t["amount"]),
                                None if t["balance"] is None else Decimal(t["balance"]))
                    for t in a["transactions"]])
        for a in doc["accounts"]])


# -- evidence ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AccountEvidence:
    """An account's printed opening and closing balance against what its rows add up to."""

    account: int
    last4: str
    opening: str
    total: str
    computed_closing: str
    printed_closing: str

    @property
    def reconciles(self) -> bool:
        return self.computed_closing == self.printed_closing


@dataclass(frozen=True)
class RowEvidence:
    """A row a problem points at: as read, with its printed and computed running balance."""

    account: int
    row: int
    date: str
    description: str
    amount: str
    printed_balance: str | None
    computed_balance: str
    notes: tuple[str, ...]


def row_ref(account: int, row: int) -> str:
    """A row as a correction names it: `3` in the first account, `account2.3` after it."""
    return str(row) if account == 1 else f"account{account}.{row}"


def evidence(doc: dict[str, Any], found: list[str]) -> tuple[list[AccountEvidence],
                                                             list[RowEvidence]]:
    """Per account its sums; per row a problem names (or whose balance disagrees) its figures.

    Rows are found by number (`account 1 (…) row 3`), by date for problems that name only a
    date (a low OCR confidence), and by arithmetic: wherever the printed running balance is
    not the previous balance plus the amount (noted when no problem names the row already).
    """
    accounts, rows = every_row(doc, found)
    return accounts, [r for r in rows if r.notes]


def every_row(doc: dict[str, Any], found: list[str]) -> tuple[list[AccountEvidence],
                                                              list[RowEvidence]]:
    """Per account its sums, and every row with its figures and notes (as `evidence`)."""
    accounts, rows = [], []
    for index, acct in enumerate(doc["accounts"], start=1):
        opening = Decimal(acct["opening_balance"])
        total = sum((Decimal(t["amount"]) for t in acct["transactions"]), Decimal(0))
        accounts.append(AccountEvidence(index, acct["account_last4"], money(opening),
                                        money(total), money(opening + total),
                                        acct["closing_balance"]))
        running = opening
        for n, t in enumerate(acct["transactions"], start=1):
            running += Decimal(t["amount"])
            notes = [p for p in found if _names_row(p, index, n, t["date"])]
            printed = t["balance"]
            if printed is not None and Decimal(printed) != running and not notes:
                notes.append(f"printed balance {printed}, computed {money(running)}")
            rows.append(RowEvidence(index, n, t["date"], t["description"], t["amount"],
                                    printed, money(running), tuple(dict.fromkeys(notes))))
            if printed is not None:
                running = Decimal(printed)
    return accounts, rows


def _names_row(problem: str, account: int, row: int, when: str) -> bool:
    m = _ROW_REF.search(problem)
    if m:
        return int(m["account"]) == account and int(m["row"]) == row
    d = _DATE_REF.match(problem)
    return d is not None and d["date"] == when
