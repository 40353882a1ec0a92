"""The words a look-alike statement layout is described in (`corpus/layouts/<bank>.py`).

A layout is data: the page header's lines, the body's blocks (lines, tables, a daily
balance table) and a few knobs for the truth it is drawn from (the period, the account
number's digits, the currency, German booking texts, whether rows print a balance).
`corpus/described.py` is the one renderer that reads every description.

Texts are `str.format` templates: `{start}`/`{end}` (dates), `{number}`, `{holder}` (a name
drawn each time it is printed), `{opening}`/`{closing}`, `{total_<group>}`/`{count_<group>}`
and `{page}` in a header; a table's row cells also know `{date}`, `{text}` (the
description's first line), `{amount}`, `{debit}`/`{credit}` (blank unless the amount goes
out / comes in), `{balance}` (the running balance), `{day}` (the date, blank on a day's
later rows when `date_once`), `{dollar}` (`$` on a table's first row), `{valuta}` (the
booking day or the next) and `{check}` (a check number); the lines after a table know its
`{total}` and `{count}`. Groups are `all`, `in`, `out` and what a layout's `split` adds.
Format specs (see `described.fill`): figures `{x:de signed}`, `{x:signed $}`, `{x:de ±}`,
`{x:abs}` (unsigned by default); dates strftime, `ordinal` (`5th Jan`), `long`
(`January 5, 2025`), `monat` (`Januar`); strings `title`, `grouped` (by fours).
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from corpus.render import Col
from corpus.truth import period_for
from parsers.model import Account, Transaction

#: (x, template): negative x means right-aligned at -x, as `Sheet.line` has it
Cell = tuple[float, str]
Period = Callable[[random.Random], tuple[date, date]]
#: A layout's own way of sorting an account's rows into groups (and of drawing the few
#: other things that go with it): the groups and any further template values.
Split = Callable[[random.Random, Account],
                 tuple[dict[str, list[Transaction]], dict[str, object]]]


@dataclass(frozen=True)
class Line:
    """One printed line; in a page header, printed on the `pages` "first", "later" or
    "all"."""

    cells: tuple[Cell, ...]
    bold: bool = False
    pages: str = "all"


@dataclass(frozen=True)
class Skip:
    """Blank space of `lines` lines."""

    lines: float = 1.0
    pages: str = "all"


@dataclass(frozen=True)
class Ensure:
    """A new page unless `lines` more lines fit on this one."""

    lines: int


@dataclass(frozen=True)
class Row:
    """A table row of fixed cells, one per column (a balance brought forward, say)."""

    cells: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """A table of one group's rows, with what stands around it.

    `ensure` lines are kept free (with `whole`, as well as one per row) before `before`
    is printed; then the column headers, `lead`, the rows, `tail`, and after the table
    `after`. `under` cells stand on a row's second line beside the description's second
    line (ING's value date). With `date_once`, `{day}` is blank on a day's later rows (a
    `Row` in `lead` counts as the period's first day's)."""

    columns: tuple[Col, ...]
    cells: tuple[str, ...]
    rows: str = "all"
    under: tuple[Cell, ...] = ()
    date_once: bool = False
    ensure: int | None = None
    whole: bool = False
    skip_empty: bool = False
    before: tuple[Block, ...] = ()
    lead: tuple[Block, ...] = ()
    tail: tuple[Block, ...] = ()
    after: tuple[Block, ...] = ()


@dataclass(frozen=True)
class DailyBalances:
    """The DAILY ENDING BALANCE table: each day's last balance, `per_line` days to a line
    (or as many as the template value of that name says)."""

    per_line: int | str = 2


Block = Line | Skip | Ensure | Row | Table | DailyBalances


@dataclass(frozen=True)
class Digits:
    """Part of an account number: `randint(low, high)`, zero-padded to `width`."""

    low: int
    high: int
    width: int = 0


@dataclass(frozen=True)
class Layout:
    """A bank's statement layout: its truth's knobs, its page header and its body."""

    bank: str
    paper: str  # "a4" or "letter"
    currency: str
    period: Period
    number: tuple[Digits, ...]
    header: tuple[Line | Skip, ...]
    body: tuple[Block, ...]
    number_sep: str = ""
    #: German SEPA booking texts of several lines stand for the descriptions
    purposes: bool = False
    #: rows print a running balance (and the truth holds it)
    balances: bool = True
    #: These banks print small: 8 pt keeps their columns apart in every font.
    size: float = 8.0
    split: Split | None = None


def month(rng: random.Random) -> tuple[date, date]:
    """A statement month starting on the first."""
    return period_for(rng, False)


def any_period(rng: random.Random) -> tuple[date, date]:
    """A month, or (three in ten) one across a year's end."""
    return period_for(rng, rng.random() < 0.3)


def calendar_month(*years: int) -> Period:
    """A calendar month of one of `years`."""
    def draw(rng: random.Random) -> tuple[date, date]:
        year, number = rng.choice(years), rng.randint(1, 12)
        return date(year, number, 1), date(year, number, calendar.monthrange(year, number)[1])
    return draw


def spanning(*days: int) -> Period:
    """A period from a month's first of one of `days` days."""
    def draw(rng: random.Random) -> tuple[date, date]:
        start = period_for(rng, False)[0]
        return start, start + timedelta(days=rng.choice(days))
    return draw
