"""The one renderer of the look-alike layouts: a statement drawn from a `Layout`.

`render(layout, draw)` draws the truth in a fixed order (the period, the account number,
the account, German booking texts, the font, the layout's own `split`), then prints the
page header on every page and the body's blocks in turn. A value a template draws (a
holder's name, a value date, a check number) is drawn when it is printed, so a name in a
page header is drawn afresh on each page, as these banks' statements show.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from corpus.banks import HOLDERS, Printed, drawn_style
from corpus.forms import runs
from corpus.layout import Block, DailyBalances, Ensure, Layout, Line, Row, Skip, Table
from corpus.render import Sheet
from corpus.truth import Draw, account, german_purpose
from parsers.model import Account, Statement, Transaction
from parsers.numbers import format_amount

MONATE = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
          "September", "Oktober", "November", "Dezember"]


@dataclass
class Drawn:
    """A template value drawn when it is printed: afresh each time, or (`once`) the first
    time only."""

    draw: Callable[[], Any]
    once: bool = False
    _value: list[Any] = field(default_factory=list, init=False, repr=False)

    def value(self) -> Any:
        if not self.once:
            return self.draw()
        if not self._value:
            self._value.append(self.draw())
        return self._value[0]


def figure(v: Decimal, spec: str) -> str:
    """A figure by the words of its spec: `de` (German separators), `abs`, `$` (after the
    minus), `signed` (a leading minus), `±` (Postbank's `- 580,06` / `+ 580,06`)."""
    words = spec.split()
    if "abs" in words:
        v = abs(v)
    body = ("$" if "$" in words else "") + format_amount(v, "de" if "de" in words else "en")
    if "±" in words:
        return f"{'-' if v < 0 else '+'} {body}"
    return f"-{body}" if "signed" in words and v < 0 else body


def ordinal(d: date) -> str:
    n = d.day
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} {d:%b}"


class _Fill(string.Formatter):
    def format_field(self, value: Any, spec: str) -> str:
        if isinstance(value, Drawn):
            return self.format_field(value.value(), spec)
        if value is None:
            return ""
        if isinstance(value, Decimal):
            return figure(value, spec)
        if isinstance(value, date):
            if spec == "ordinal":
                return ordinal(value)
            if spec == "long":
                return f"{value:%B} {value.day}, {value.year}"
            if spec == "monat":
                return MONATE[value.month - 1]
            return format(value, spec)
        if isinstance(value, str) and spec == "title":
            return value.title()
        if isinstance(value, str) and spec == "grouped":
            return " ".join(value[i:i + 4] for i in range(0, len(value), 4))
        return format(value, spec)


def fill(template: str, values: Mapping[str, Any]) -> str:
    return _Fill().vformat(template, (), values)


def render(layout: Layout, d: Draw) -> Printed:
    rng = d.rng
    start, end = layout.period(rng)
    number = layout.number_sep.join(f"{rng.randint(p.low, p.high):0{p.width}d}"
                                    for p in layout.number)
    acct = account(d, number[-4:], layout.currency, start, end)
    if not layout.balances:
        acct.transactions = [Transaction(t.date, t.description, t.amount)
                             for t in acct.transactions]
    purposes: dict[int, list[str]] = {}
    if layout.purposes:  # (whose rows print no balance)
        texts = [german_purpose(rng) for _ in acct.transactions]
        acct.transactions = [Transaction(t.date, " ".join(p), t.amount, None)
                             for t, p in zip(acct.transactions, texts, strict=True)]
        purposes = {id(t): p for t, p in zip(acct.transactions, texts, strict=True)}
    font = drawn_style(d)[0]
    groups = {"all": acct.transactions, "in": [t for t in acct.transactions if t.amount > 0],
              "out": [t for t in acct.transactions if t.amount < 0]}
    values: dict[str, Any] = {}
    if layout.split:
        more, values = layout.split(rng, acct)
        groups |= more
    values |= {"start": start, "end": end, "previous": start - timedelta(days=1),
               "number": number, "last4": acct.account_last4,
               "holder": Drawn(lambda: rng.choice(HOLDERS)),
               "opening": acct.opening_balance, "closing": acct.closing_balance}
    for name, rows in groups.items():
        values[f"total_{name}"] = sum((t.amount for t in rows), Decimal(0))
        values[f"count_{name}"] = len(rows)

    def header(s: Sheet, page: int) -> None:
        paged = {**values, "page": page}
        for block in layout.header:
            if block.pages in ("all", "first" if page == 1 else "later"):
                _block(s, block, paged)

    s = Sheet(layout.paper, font, layout.size, header)
    printer = _Printer(s, rng, acct, groups, purposes, values)
    for block in layout.body:
        printer.block(block)
    tables = [b for b in layout.body if isinstance(b, Table)]
    shown = ([t for b in tables for t in printer.printed[id(b)]] if tables
             else acct.transactions)
    truth = Account(acct.account_last4, acct.currency, acct.opening_balance,
                    acct.closing_balance, shown)
    return Printed(s.finish(), Statement(layout.bank, [truth], start, end))


def _block(s: Sheet, block: Line | Skip | Ensure, values: Mapping[str, Any]) -> None:
    if isinstance(block, Line):
        s.line(*((x, fill(text, values)) for x, text in block.cells), bold=block.bold)
    elif isinstance(block, Skip):
        s.skip(block.lines)
    else:
        s.ensure(block.lines)


@dataclass
class _Printer:
    """The body's blocks, printed on `s` in turn."""

    s: Sheet
    rng: random.Random
    acct: Account
    groups: dict[str, list[Transaction]]
    purposes: dict[int, list[str]]
    values: dict[str, Any]

    def __post_init__(self) -> None:
        #: the rows each table printed (by the table's id), as the truth lists them
        self.printed: dict[int, list[Transaction]] = {}

    def block(self, block: Block, values: Mapping[str, Any] | None = None) -> None:
        values = self.values if values is None else values
        if isinstance(block, Table):
            self.table(block)
        elif isinstance(block, DailyBalances):
            self.daily(block)
        elif isinstance(block, Row):
            self.s.row([fill(c, values) for c in block.cells])
        else:
            _block(self.s, block, values)

    def table(self, table: Table) -> None:
        s, rng = self.s, self.rng
        rows = self.groups[table.rows]
        self.printed[id(table)] = [] if table.skip_empty and not rows else rows
        if table.skip_empty and not rows:
            return
        total = sum((t.amount for t in rows), Decimal(0))
        around = {**self.values, "total": total, "count": len(rows)}
        if table.ensure is not None:
            s.ensure(table.ensure + (len(rows) if table.whole else 0))
        for block in table.before:
            self.block(block, around)
        s.table_header(list(table.columns))
        for block in table.lead:
            self.block(block, around)
        desc = next(c for c in table.columns if c.width)
        previous = self.values["start"] if any(isinstance(b, Row) for b in table.lead) else None
        balance = self.acct.opening_balance
        for n, t in enumerate(rows):
            balance += t.amount
            text = self.purposes.get(id(t)) or s.wrap(t.description, desc.width)
            row = {**around, "date": t.date, "text": text[0], "amount": t.amount,
                   "debit": t.amount if t.amount < 0 else None,
                   "credit": t.amount if t.amount > 0 else None, "balance": balance,
                   "day": None if table.date_once and t.date == previous else t.date,
                   "dollar": "$" if n == 0 else "",
                   "valuta": Drawn(lambda t=t: t.date + timedelta(days=rng.choice([0, 0, 1])),
                                   once=True),
                   "check": Drawn(lambda: rng.randint(1000, 9999), once=True)}
            previous = t.date
            cells = [fill(c, row) for c in table.cells]
            if not table.under:
                s.row(cells, text[1:])
                continue
            under = [(x, fill(c, row)) for x, c in table.under]
            s.ensure(len(text) + 2)
            s.row(cells)
            s.line(*under, (desc.x, text[1] if len(text) > 1 else ""))
            for rest in text[2:]:
                s.line((desc.x, rest))
        for block in table.tail:
            self.block(block, around)
        s.end_table()
        for block in table.after:
            self.block(block, around)

    def daily(self, block: DailyBalances) -> None:
        s = self.s
        per_line = (block.per_line if isinstance(block.per_line, int)
                    else int(self.values[block.per_line]))
        days: dict[date, Decimal] = {}
        for t, bal in zip(self.acct.transactions, runs(self.acct), strict=True):
            days[t.date] = bal
        if not days:
            return
        pairs = list(days.items())
        s.ensure(3)
        s.line((39, "DAILY ENDING BALANCE"), bold=True)
        s.line(*((35, "DATE"), (212, "AMOUNT"), (371, "DATE"), (508, "AMOUNT"))[:2 * per_line])
        for i in range(0, len(pairs), per_line):
            cells: list[tuple[float, str]] = []
            for (day, bal), (x, right) in zip(pairs[i:i + per_line], ((35, -243), (367, -539)),
                                              strict=False):
                cells += [(x, f"{day:%m/%d}"), (right, figure(bal, "signed"))]
            s.line(*cells)
