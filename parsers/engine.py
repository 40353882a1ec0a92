"""Run a template over a statement's lines and return the statement it describes.

The engine knows tables, not banks: a header row (the template's column labels) fixes the
column positions; text columns are left-aligned, amount columns are found by their right
edge; a row starts at a line whose date cell parses and lines without a date continue the
description above. After a page break the table resumes only at a repeated header.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from parsers.lines import Line
from parsers.model import Account, Statement, Transaction
from parsers.numbers import amount_pattern, parse_amount, parse_date
from parsers.reader import Word
from parsers.template import NUMBER_ROLES, Column, Template

#: An OCR row with any word read below this confidence goes to review: arithmetic proves
#: amounts, but only confidence speaks for a description.
OCR_REVIEW_CONFIDENCE = 90.0
_STRAY = " .,;:|_~»«'`\""


class TemplateMismatch(Exception):
    """The template does not describe this document (a required element is missing)."""


@dataclass
class ParseOutput:
    statement: Statement
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Geometry:
    """Where each column of the table header sits on the page."""

    columns: tuple[tuple[Column, float, float], ...]

    def text_column(self, w: Word) -> Column:
        """The left-aligned column whose header starts at or before the word."""
        text = [(c, x0) for c, x0, _ in self.columns if c.role not in NUMBER_ROLES]
        chosen = text[0][0]
        for c, x0 in text:
            if w.x0 + 2 >= x0:
                chosen = c
        return chosen

    def number_column(self, w: Word) -> Column | None:
        """The amount column whose header's right edge the word lines up with, if any."""
        numeric = [(c, x1) for c, _, x1 in self.columns if c.role in NUMBER_ROLES]
        anchors = sorted(x1 for _, x1 in numeric)
        gaps = [b - a for a, b in itertools.pairwise(anchors)]
        tolerance = max(12.0, 0.5 * min(gaps)) if gaps else 40.0
        c, x1 = min(numeric, key=lambda cx: abs(cx[1] - w.x1))
        return c if abs(x1 - w.x1) <= tolerance else None


def run_template(t: Template, lines: list[Line]) -> ParseOutput:
    amount_re = amount_pattern(t.locale)
    period_start, period_end = _period(t, lines)
    problems: list[str] = []
    sections = _split_sections(t, lines)
    accounts = []
    for head, section in sections:
        fields = _fields(t, [head, *section] if head else section, lines, amount_re)
        txs = _rows(t, section, period_end, amount_re, problems)
        accounts.append(
            Account(
                account_last4=fields["last4"],
                currency=t.currency,
                opening_balance=_balance(t, fields["opening"]),
                closing_balance=_balance(t, fields["closing"]),
                transactions=txs,
                summary={k: parse_amount(v, t.locale)[0] for k, v in fields.items()
                         if k in t.summary},
            )
        )
    st = Statement(t.bank, accounts, period_start, period_end)
    return ParseOutput(st, problems)


def _period(t: Template, lines: list[Line]) -> tuple[date | None, date]:
    m = _search(t.period_pattern, lines, "")
    if m is None:
        raise TemplateMismatch(f"{t.bank}: statement period not found")
    groups = m.groupdict()
    end = parse_date(groups["end"], t.period_date_format)
    start = parse_date(groups["start"], t.period_date_format) if groups.get("start") else None
    return start, end


def _split_sections(t: Template, lines: list[Line]) -> list[tuple[Line | None, list[Line]]]:
    if not t.section_start:
        return [(None, lines)]
    pattern = re.compile(t.section_start)
    sections: list[tuple[Line | None, list[Line]]] = []
    for ln in lines:
        if pattern.search(ln.text):
            sections.append((ln, []))
        elif sections:
            sections[-1][1].append(ln)
    if not sections:
        raise TemplateMismatch(f"{t.bank}: no account section found")
    return sections


def _fields(t: Template, section: list[Line], all_lines: list[Line], amount_re: str) -> dict:
    """Each field's first match in the section, else anywhere in the statement."""
    out: dict[str, str] = {}
    for name, pattern in {**t.fields, **t.summary}.items():
        m = _search(pattern, section, amount_re) or _search(pattern, all_lines, amount_re)
        if m is None:
            raise TemplateMismatch(f"{t.bank}: {name!r} not found")
        value = m.group(name if name in m.groupdict() else 1)
        out[name] = value
    digits = re.sub(r"\D", "", out.get("last4", ""))
    if len(digits) < 4:
        raise TemplateMismatch(f"{t.bank}: account number not found")
    out["last4"] = digits[-4:]
    return out


def _search(pattern: str, lines: list[Line], amount_re: str) -> re.Match[str] | None:
    regex = re.compile(pattern.replace("{AMOUNT}", amount_re))
    for ln in lines:
        m = regex.search(ln.text)
        if m:
            return m
    return None


def _balance(t: Template, text: str) -> Decimal:
    return _signed(text, t.locale, t.balance_unsigned)


def _signed(text: str, locale: str, unsigned: str) -> Decimal:
    """Apply a layout's sign convention: `CR` is money in, `DR` money out, else as printed."""
    value, suffix = parse_amount(text, locale)
    if suffix == "CR":
        return abs(value)
    if suffix == "DR":
        return -abs(value)
    return -value if unsigned == "debit" else value


def _rows(t: Template, lines: list[Line], period_end: date, amount_re: str,
          problems: list[str]) -> list[Transaction]:
    labels = [c.label for c in t.columns]
    end = [re.compile(p) for p in t.end]
    skip = [re.compile(p) for p in t.skip]
    number = re.compile(amount_re)
    geometry: _Geometry | None = None
    page = None
    rows: list[dict] = []
    last: Line | None = None
    for ln in lines:
        if ln.page != page:
            page, geometry, last = ln.page, None, None
        header = _header(ln, labels, t.columns)
        if header is not None:
            geometry, last = header, None
            continue
        if geometry is None or any(p.search(ln.text) for p in skip):
            continue
        if any(p.search(ln.text) for p in end):
            geometry = None
            continue
        cells = _cells(ln, geometry, number)
        date_text = " ".join(cells.get("date", []))
        if date_text:
            try:
                when = _row_date(date_text, t.row_date_format, period_end)
            except ValueError:
                problems.append(f"page {ln.page}: unreadable date {date_text!r} in a table row")
                last = ln
                continue
            rows.append({"date": when, "desc": cells.get("description", []), "cells": cells,
                         "conf": _min_conf(ln)})
        elif cells.get("description") and not _has_numbers(cells) and rows and last is not None:
            if ln.top - last.bottom > 1.5 * (last.bottom - last.top):
                geometry = None  # a gap this wide is not a wrapped description: table over
                continue
            rows[-1]["desc"] = rows[-1]["desc"] + cells["description"]
            rows[-1]["conf"] = min(rows[-1]["conf"], _min_conf(ln))
        elif _has_numbers(cells):
            problems.append(f"page {ln.page}: a table row without a date: {len(ln.words)} words")
        last = ln
    for r in rows:
        if r["conf"] < OCR_REVIEW_CONFIDENCE:
            problems.append(f"{r['date']}: OCR read a word of this row with confidence "
                            f"{r['conf']:.0f} (below {OCR_REVIEW_CONFIDENCE:.0f})")
    return [_transaction(t, r, problems) for r in rows]


def _min_conf(ln: Line) -> float:
    """The least OCR confidence on the line; 100 for a text layer, which is read, not guessed."""
    return min((w.conf for w in ln.words if w.conf is not None), default=100.0)


def _row_date(text: str, fmt: str, period_end: date) -> date:
    """The row's date; stray punctuation a scan leaves at either end is forgiven."""
    try:
        return parse_date(text, fmt, period_end)
    except ValueError:
        return parse_date(text.strip(_STRAY), fmt, period_end)


def _has_numbers(cells: dict[str, list[str]]) -> bool:
    return any(cells.get(role) for role in NUMBER_ROLES)


def _header(ln: Line, labels: list[str], columns: tuple[Column, ...]) -> _Geometry | None:
    """Column positions if `ln` is the table header (all labels, in order), else None."""
    words = ln.words
    found = []
    i = 0
    for label, column in zip(labels, columns, strict=True):
        parts = label.lower().split()
        while i <= len(words) - len(parts):
            if [_label(w.text) for w in words[i:i + len(parts)]] == parts:
                found.append((column, words[i].x0, words[i + len(parts) - 1].x1))
                i += len(parts)
                break
            i += 1
        else:
            return None
    return _Geometry(tuple(found))


def _label(text: str) -> str:
    """A header word as a label: case and a scan's stray trailing punctuation do not count."""
    return text.lower().rstrip(".,:;")


def _cells(ln: Line, g: _Geometry, number: re.Pattern[str]) -> dict[str, list[str]]:
    cells: dict[str, list[str]] = {}
    for w in ln.words:
        column = (g.number_column(w) if number.fullmatch(w.text) else None) or g.text_column(w)
        cells.setdefault(column.role, []).append(w.text)
    return cells


def _transaction(t: Template, row: dict, problems: list[str]) -> Transaction:
    cells = row["cells"]

    def value(role: str, unsigned: str) -> Decimal | None:
        text = " ".join(cells.get(role, []))
        return _signed(text, t.locale, unsigned) if text else None

    if any(c.role == "amount" for c in t.columns):
        amount = value("amount", t.amount_unsigned)
    else:
        debit, credit = value("debit", "credit"), value("credit", "credit")
        amount = None if debit is None and credit is None else (
            (credit or Decimal(0)) - abs(debit or Decimal(0)))
    if amount is None:
        problems.append(f"{row['date']}: a transaction row without an amount")
        amount = Decimal(0)
    balance = value("balance", t.balance_unsigned)
    if balance is None and t.has_running_balance:
        problems.append(f"{row['date']}: a transaction row without its running balance")
    return Transaction(row["date"], " ".join(row["desc"]), amount, balance)
