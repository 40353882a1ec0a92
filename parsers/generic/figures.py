"""The figures printed around an unknown table: its period, its account sections, their
account numbers and balances, the currency, and what the table's header calls each column.

Each is looked for with the shared vocabulary (`parsers/layout/vocabulary.py`); the header only
orders the readings tried (the balance equation decides), so a header in words the
vocabulary does not know costs nothing but a few readings more.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import NamedTuple

from parsers.dates import compile_format, fold
from parsers.generic.found import Marker, Row, Table
from parsers.generic.words import CARD_WORDS, COLUMN_WORDS, SUMMARY_IN, SUMMARY_OUT
from parsers.layout.boxes import Boxed
from parsers.layout.labelled import (
    Found,
    amount_reader,
    exact_amount_reader,
    find_labelled,
    read_last4,
)
from parsers.layout.periods import find_labelled_date, find_period_end, periods
from parsers.layout.vocabulary import (
    ACCOUNT,
    CLOSING,
    OPENING,
    PERIOD_START,
    PERIOD_STOP,
    UNAMBIGUOUS_DATES,
    LabelSet,
    label_in,
    label_set,
)
from parsers.numbers import Amount, read_slipped_amount
from parsers.pdf.lines import Line

_MASKED = re.compile(r"(?<![\w*])[*Xx•]{2,}[\s*Xx•-]*(\d{4})\b")
_CURRENCY = re.compile(r"\b(EUR|USD|GBP|AUD|NZD|CAD|SGD|CHF|HKD)\b|(€)|(£)")


@dataclass
class Section:
    """One account's part of the statement: its lines, rows and markers."""

    lines: list[Line] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    last4: str | None = None


def period_formats(row_format: str) -> tuple[str, ...]:
    """The forms a period may print in beside rows in `row_format` (never swapping day and
    month: a `%m/%d` table's period is `%m/%d/%Y`)."""
    dated = [f for f in UNAMBIGUOUS_DATES if compile_format(f).has_year]
    for day_month, forms in (("%m/%d", ("%m/%d/%Y", "%m/%d/%y")),
                             ("%d/%m", ("%d/%m/%Y", "%d/%m/%y")),
                             ("%m-%d", ("%m-%d-%Y", "%m-%d-%y")),
                             ("%d-%m", ("%d-%m-%Y", "%d-%m-%y"))):
        if day_month in row_format:
            dated += forms
            break
    if compile_format(row_format).has_year:
        dated.insert(0, row_format)
    return tuple(dict.fromkeys((*dated, "%B %Y")))


def find_statement_period(lines: list[Line], row_format: str
                          ) -> tuple[date | None, date, str] | None:
    """(start, end, how): a from-to pair after a period label; else a start and an end
    date, each under its own label; else the first from-to pair anywhere; else a statement
    date."""
    formats = period_formats(row_format)
    labelled, anywhere = periods(lines, formats)
    if labelled:
        return labelled[0], labelled[1], f"printed on page {labelled[2].page}"
    start = find_labelled_date(lines, PERIOD_START, formats, read_below=True)
    stop = find_labelled_date(lines, PERIOD_STOP, formats, read_below=True)
    if start and stop and start.value <= stop.value:
        return start.value, stop.value, f"after {start.label!r} and {stop.label!r}"
    if anywhere:
        return anywhere[0], anywhere[1], f"printed on page {anywhere[2].page}"
    single = find_period_end(lines, formats, read_below=True)
    if single:
        return None, single.value, f"statement date after {single.label!r}"
    return None


def split_sections(lines: list[Line], table: Table) -> list[Section]:
    """A new account section starts at a line naming another account number, once the
    section before it has rows, when a balance is labelled before the next row (a
    repeated page header names the same account; a reference in a description opens none)."""
    rows = {id(r.line): r for r in table.rows}
    markers = {id(m.line): m for m in table.markers}
    opens = _opening_ahead(lines, rows)
    sections = [Section()]
    for i, ln in enumerate(lines):
        sec = sections[-1]
        if id(ln) not in table.used:
            last4 = line_last4(ln)
            if last4 and last4 != sec.last4:
                if not sec.rows:
                    sec.last4 = last4
                elif opens[i]:
                    sec = Section(last4=last4)
                    sections.append(sec)
        sec.lines.append(ln)
        if id(ln) in rows:
            sec.rows.append(rows[id(ln)])
        if id(ln) in markers:
            sec.markers.append(markers[id(ln)])
    if any(not s.rows for s in sections[1:]):
        return []  # an account without transactions beside others: not read, never merged
    return sections


def _opening_ahead(lines: list[Line], rows: dict[int, Row]) -> list[bool]:
    """Per line: whether a balance is labelled after it and before the next row."""
    out, ahead = [False] * len(lines), False
    balances = _labels().balances
    for i in range(len(lines) - 1, -1, -1):
        if id(lines[i]) in rows:
            ahead = False
        elif balances.match(lines[i].folded):
            ahead = True
        out[i] = ahead
    return out


def account_last4(lines: list[Line]) -> str | None:
    """The account number labelled anywhere (its value after or under the label)."""
    for ln in lines:
        m = _MASKED.search(ln.text)
        if m:
            return m.group(1)
    found = find_labelled(lines, ACCOUNT, read_last4, read_below=read_last4)
    return found.value if found else None


def line_last4(ln: Line) -> str | None:
    m = _MASKED.search(ln.text)
    if m:
        return m.group(1)
    if not _labels().account.printed_in(ln.folded):
        return None  # (most lines: no account label, so no number after one)
    found = find_labelled([ln], ACCOUNT, read_last4)
    return found.value if found else None


class _LabelSets(NamedTuple):
    account: LabelSet
    balances: LabelSet


@functools.cache
def _labels() -> _LabelSets:
    """The label sets asked of every line of a statement, held (finding a set anew hashes
    its labels, which costs more than telling that a line prints none of them)."""
    return _LabelSets(label_set(ACCOUNT), label_set((*OPENING, *CLOSING)))


def outside_rows(sec: Section, table: Table) -> list[Line]:
    """The section's lines where its figures are labelled: outside its table (a balance
    brought forward between two of its rows is a page's, not the statement's)."""
    first = next(i for i, ln in enumerate(sec.lines) if ln is sec.rows[0].line)
    end = next(i for i, ln in enumerate(sec.lines) if ln is sec.rows[-1].line)
    return [ln for i, ln in enumerate(sec.lines)
            if id(ln) not in table.used and not first < i < end]


def printed_balances(space: list[Line], boxed: list[Boxed], locale: str
                     ) -> tuple[Found[Amount] | None, Found[Amount] | None, str | None]:
    """The opening and closing balance labelled in a section's lines outside its rows
    (`space`), beside, under or over their figures (`boxed`: `boxed_figures` of them), and
    which of them, if any, was printed with a slipped decimal mark (`2.853.82`): read so
    only when the other is printed as it should be, for the balance equation to confirm."""
    read, below = amount_reader(locale), exact_amount_reader(locale)
    opening = find_labelled(space, OPENING, read, read_below=below, blockers=CLOSING,
                            in_cell=True)
    closing = find_labelled(space, CLOSING, read, read_below=below, blockers=OPENING,
                            in_cell=True)
    if opening is None or closing is None:  # a summary box: the label over its figure
        opening = opening or _boxed(boxed, OPENING, CLOSING)
        closing = closing or _boxed(boxed, CLOSING, OPENING)
    if (opening is None) == (closing is None):
        return opening, closing, None
    slipped = functools.partial(read_slipped_amount, locale=locale)
    if opening is None:
        opening = find_labelled(space, OPENING, slipped, blockers=CLOSING)
        return opening, closing, None if opening is None else "opening_balance"
    closing = find_labelled(space, CLOSING, slipped, blockers=OPENING)
    return opening, closing, None if closing is None else "closing_balance"


def summary_totals(boxed: list[Boxed]) -> dict[str, Decimal]:
    """The money in and money out a section's summary box prints (`in`, `out`), each the
    sum of the cells that name a part of it (`Payments` and `Other Credits`; `Purchases`,
    `Cash Advances` and `Finance Charges`); a cell is named by how its label ends, as a
    label over two lines may have more above it."""
    out: dict[str, Decimal] = {}
    seen: set[tuple[int, float]] = set()
    # the statement's own summary is the box that prints a balance too (an instalment
    # plan's box beside it has an `Interest` of its own)
    summary = {id(b.line) for b in boxed
               if label_in(fold(b.label), (*OPENING, *CLOSING))}
    if summary:
        boxed = [b for b in boxed if id(b.line) in summary]
    for b in boxed:
        words = _PUNCTUATION.sub(" ", fold(b.label)).split()
        key = (id(b.line), b.x0)
        if key in seen:
            continue
        for side, phrases in (("in", SUMMARY_IN), ("out", SUMMARY_OUT)):
            if any(tuple(words[-len(p):]) == p for p in phrases):
                out[side] = out.get(side, Decimal(0)) + abs(b.value.value)
                seen.add(key)
                break
    return out


_PUNCTUATION = re.compile(r"[^\w]+")


def _boxed(boxed: list[Boxed], labels: tuple[str, ...], others: tuple[str, ...]
           ) -> Found[Amount] | None:
    """The first boxed figure whose label prints one of `labels` and none of `others`."""
    for b in boxed:
        folded = fold(b.label)
        if label_in(folded, labels) and not label_in(folded, others):
            return Found(b.value, b.line, b.label, below=True)
    return None


def currency(lines: list[Line], locale: str) -> str:
    """The currency the statement names most, else the locale's usual one."""
    seen: Counter[str] = Counter()
    # (one search of all the lines, a line apart: a name never runs over into the next)
    for m in _CURRENCY.finditer("\n".join([ln.text for ln in lines])):
        seen[m.group(1) or ("EUR" if m.group(2) else "GBP")] += 1
    if seen:
        return seen.most_common(1)[0][0]
    return "EUR" if locale in ("de", "fr") else "USD"


def is_card(lines: list[Line]) -> bool:
    return label_in(fold("\n".join(ln.text for ln in lines)), CARD_WORDS)


def header_roles(lines: list[Line], table: Table) -> dict[int, str]:
    """Column index -> the role the header above the first row names, where one does."""
    first = table.rows[0].line
    i = next(k for k, ln in enumerate(lines) if ln is first)
    roles: dict[int, str] = {}
    for ln in lines[max(0, i - 3):i]:
        for w in ln.words:
            word = fold(w.text).strip(":$€£()*").split("/")[0]
            role = COLUMN_WORDS.get(word)
            if role is None:
                continue
            near = [(abs((w.x0 + w.x1) / 2 - x), c) for c, x in enumerate(table.columns)
                    if w.x0 - 60 <= x <= w.x1 + 60]
            if near:
                column = min(near)[1]
                if roles.get(column, "amount") == "amount":
                    # (`Bedrag af (debet)`: the word that says which way wins over `amount`)
                    roles[column] = role
    return roles


def header_labels(lines: list[Line], table: Table, roles: tuple[str, ...]
                  ) -> list[dict[str, str]]:
    """The header printed right above the first row, as (label, role) left to right: the
    labels over the date, the description and each figure column; any other label between
    them is a column to ignore (a value date). Empty without such a header."""
    first = table.rows[0].line
    i = next(k for k, ln in enumerate(lines) if ln is first)
    words = [w for w in (lines[i - 1].words if i else [])]
    if not words or any(ch.isdigit() for w in words for ch in w.text):
        return []
    groups: list[list] = [[words[0]]]
    for w in words[1:]:
        prev = groups[-1][-1]
        if w.x0 - prev.x1 <= 0.6 * (w.bottom - w.top):
            groups[-1].append(w)
        else:
            groups.append([w])
    spans = [(" ".join(w.text for w in g), g[0].x0, g[-1].x1) for g in groups]
    role_of: dict[int, str] = {}
    for role, x in (("date", first.words[0].x0), ("description", _desc_x0(table))):
        k = min(range(len(spans)), key=lambda k: abs(spans[k][1] - x))
        role_of.setdefault(k, role)
    for c, x in enumerate(table.columns):
        k = min(range(len(spans)), key=lambda k: abs(spans[k][2] - x))
        role_of.setdefault(k, roles[c])
    return [{"label": label, "role": role_of.get(k, "ignore")}
            for k, (label, _, _) in enumerate(spans)]


def _desc_x0(table: Table) -> float:
    row = table.rows[0]
    rest = [w for w in row.line.words if w.text == row.desc[0]] if row.desc else []
    return rest[0].x0 if rest else row.line.words[-1].x0
