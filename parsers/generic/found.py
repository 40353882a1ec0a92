"""What the generic reader finds on the pages: rows, balance rows, and the table they make."""

from __future__ import annotations

from dataclasses import dataclass, field

from parsers.layout.tokens import Token
from parsers.pdf.lines import Line


@dataclass
class Row:
    date_text: str
    desc: list[str]
    #: column index -> the figure printed in it
    figures: dict[int, Token]
    line: Line
    #: True when the row prints no date of its own (the day's date is printed once).
    carried: bool = False
    #: What a carried row prints where a date stands that is shaped like one but is no day
    #: (`44/06/2025`): a damaged date, never to be taken for the day above.
    bad_date: str = ""
    #: What the heading above the row (`Deposits`, `Purchases`) says its unsigned amount is.
    heading: str | None = None
    #: Where the description ends on the row's own line, and how wide the first word of the
    #: line continuing it is: whether that word would have fitted (no wrap, then).
    text_x1: float = 0.0
    wrap_width: float | None = None


@dataclass
class Marker:
    """A balance brought/carried forward line: the running total after `before` rows."""

    line: Line
    before: int
    value: Token


@dataclass
class Table:
    locale: str
    #: the date forms that read every row start (two when day and month could swap)
    formats: tuple[str, ...]
    #: the columns' right edges, left to right
    columns: list[float]
    rows: list[Row] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    #: lines that are rows, continuations or markers (ids): not where figures are labelled
    used: set[int] = field(default_factory=set)
    #: how each column's figures align, `right`, `left` or `centre`, and where
    #: (empty: every column right-aligned on `columns`)
    anchors: list[tuple[str, float]] = field(default_factory=list)
    #: (date, balance, line) of a daily balance list: the balance at the end of that day
    days: list[tuple[str, Token, Line]] = field(default_factory=list)
    #: lines in the description's span that no row took, each with the rows above it and
    #: whether it follows a table line closely: one between two rows of a section, or
    #: right under its last, may be a lost part of a description
    strays: list[tuple[Line, int, bool]] = field(default_factory=list)
