"""The figures of one account: its number, balances and summary, and its transactions.

They are read outside the account's tables: by the template's regex, else after one of its
labels or the shared vocabulary's. A figure that is not printed is derived only where the
statement itself pins it (an opening balance from the first running balance, a closing one
from the last), and how it was derived is recorded, never silent; then every check of the
figures against the rows is run (`checks.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from parsers.layout.checks import (
    check_daily_balances,
    check_day_ends,
    check_markers,
    check_money_in_out,
    check_one_account,
    check_totals,
)
from parsers.layout.labelled import (
    amount_reader,
    exact_amount_reader,
    find_labelled,
    label_without_value,
    read_last4,
)
from parsers.layout.ocr_doubts import doubts, weigh_ocr
from parsers.layout.outcome import AccountReading, TemplateMismatch, template_fault
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Field, Template
from parsers.layout.transactions import signed, transaction
from parsers.layout.vocabulary import ACCOUNT, CLOSING, OPENING
from parsers.model import Account, Transaction, mask_account, mask_digits
from parsers.numbers import Amount, currency_agrees, read_amount
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.pdf.lines import Line

T = TypeVar("T")


@dataclass
class Section:
    """The lines of one account's section, and the account number its first line names."""

    lines: list[Line]
    last4: str | None = None


def read_account(t: Template, sec: Section, preamble: list[Line], reading: TableReading,
                 problems: list[str], index: int) -> tuple[Account, AccountReading]:
    """Account `index` (from 1) of the statement; its problems name it, and its rows by
    their number in it, as validation and corrections do."""
    info = AccountReading(rows=len(reading.rows))
    mid_table = {id(m.line) for m in reading.markers
                 if 0 < m.before < len(reading.rows)}
    eligible = [ln for ln in sec.lines
                if reading.roles.get(id(ln)) not in ("row", "continuation", "header", "problem")
                and id(ln) not in mid_table]
    space = eligible + preamble
    last4 = sec.last4 or _find(t, "last4", t.last4, ACCOUNT, read_last4, read_last4, space,
                               info, _last4_value)
    if last4 is None:
        raise TemplateMismatch(f"{t.bank}: account number not found")
    amounts, exact = amount_reader(t.locale), exact_amount_reader(t.locale)
    printed: dict[str, Amount | None] = {}
    opening_labels, closing_labels = (*OPENING, *t.opening.labels), (*CLOSING, *t.closing.labels)
    for name, f, vocabulary, blockers in (("opening", t.opening, OPENING, closing_labels),
                                          ("closing", t.closing, CLOSING, opening_labels)):
        printed[name] = _find(t, name, f, vocabulary, amounts, exact, space, info,
                              _amount_value(t), blockers)
    summary: dict[str, Decimal] = {}
    for name, f in t.summary.items():
        value = _find(t, name, f, (), amounts, exact, space, info, _amount_value(t))
        if value is None:
            raise TemplateMismatch(_not_found(t, name, f.labels, space))
        summary[name] = value.value
    where = f"account {index} ({mask_account(last4)})"
    if "last4" in info.doubtful:  # no arithmetic checks an account's number
        problems.append(f"{where}: OCR read the account number with confidence below "
                        f"{OCR_REVIEW_CONFIDENCE:.0f}, and no arithmetic checks it")
    for name, a in printed.items():
        if a is not None and not currency_agrees(a.currency, t.currency):
            problems.append(f"{where}: {name} balance printed in {a.currency}, "
                            f"the statement is in {t.currency}")
    txs = [transaction(t, r, problems, f"{where} row {n}")
           for n, r in enumerate(reading.rows, start=1)]
    weigh_ocr(reading, sec.lines, where)
    info.doubts = doubts(reading.rows)
    info.balances_printed = sum(tx.balance is not None for tx in txs)
    opening = signed(printed["opening"], t.balance_unsigned) if printed["opening"] else None
    closing = signed(printed["closing"], t.balance_unsigned) if printed["closing"] else None
    info.pinned = opening is not None and closing is not None
    if closing is None:
        if not txs or txs[-1].balance is None:
            raise TemplateMismatch(_not_found(t, "closing", closing_labels, space))
        closing = txs[-1].balance
        info.derived["closing_balance"] = "the last row's running balance"
    if opening is None:
        opening, how = _derive_opening(txs, closing, summary, reading)
        if opening is None:
            raise TemplateMismatch(_not_found(t, "opening", opening_labels, space))
        info.derived["opening_balance"] = how
    problems += check_money_in_out(txs, summary, where)
    problems += check_daily_balances(t, eligible, txs, opening, where, info)
    problems += check_markers(t, reading, txs, opening, where, info)
    problems += check_totals(reading, txs, where)
    problems += check_day_ends(reading.rows, txs, where)
    problems += check_one_account(t, eligible, last4, where)
    acct = Account(last4, t.currency, opening, closing, txs, summary=summary)
    return acct, info


def _find(t: Template, name: str, f: Field, vocabulary: Sequence[str],
          read: Callable[[str], T | None], read_below: Callable[[str], T | None],
          lines: list[Line], info: AccountReading,
          convert: Callable[[Template, str, str, Line], T],
          blockers: Sequence[str] = ()) -> T | None:
    """A figure by the template's regex, else after one of its labels or the vocabulary's."""
    if f.pattern:
        regex = re.compile(t.expand(f.pattern), re.IGNORECASE)
        for ln in lines:
            m = regex.search(ln.text)
            if m:
                text = m.group(name) if name in m.re.groupindex else m.group(1)
                info.found[name] = f"regex on page {ln.page}"
                info.pages.add(ln.page)
                return convert(t, name, text or "", ln)
        return None
    found = find_labelled(lines, (*vocabulary, *f.labels), read, read_below=read_below,
                          blockers=blockers)
    if found is None:
        return None
    info.found[name] = f"after {found.label!r} on page {found.line.page}" + (
        " (on the line under it)" if found.below else "")
    info.pages.add(found.line.page)
    # (a text layer's words carry no confidence: the value's words are looked for on OCR's)
    words = found.account_words() if name == "last4" else found.words(t.locale)
    if found.line.ocr and any(w.conf is not None and w.conf < OCR_REVIEW_CONFIDENCE
                              for w in words):
        info.doubtful.add(name)
    return found.value


def _not_found(t: Template, name: str, labels: Sequence[str], lines: list[Line]) -> str:
    hint = label_without_value(lines, labels) if labels else None
    return f"{t.bank}: {name!r} not found" + (f" ({mask_digits(hint)})" if hint else "")


def _amount_value(t: Template) -> Callable[[Template, str, str, Line], Amount]:
    def convert(t: Template, name: str, text: str, ln: Line) -> Amount:
        try:
            return read_amount(text, t.locale)
        except ValueError as exc:
            raise template_fault(t, name, ln, f"captured {text!r}, which is not an amount "
                                 f"in locale {t.locale!r}") from exc
    return convert


def _last4_value(t: Template, name: str, text: str, ln: Line) -> str:
    digits = re.sub(r"\D", "", text)
    if len(digits) < 4:
        raise template_fault(t, name, ln, f"captured {text!r}, which has no four digits")
    return digits[-4:]


def _derive_opening(txs: list[Transaction], closing: Decimal, summary: dict[str, Decimal],
                    reading: TableReading) -> tuple[Decimal | None, str]:
    """The opening balance a statement pins without printing it, and how."""
    total = Decimal(0)
    for tx in txs:
        total += tx.amount
        if tx.balance is not None:
            return tx.balance - total, ("the first printed running balance less the amounts "
                                        "up to it")
    if {"money_in", "money_out"} <= summary.keys():
        return (closing - abs(summary["money_in"]) + abs(summary["money_out"]),
                "the closing balance less the summary's money in, plus its money out")
    if reading.empty:
        return closing, "the closing balance: the account's table lists no transaction"
    return None, ""
