"""What reading a table yields: its rows, balance rows and totals, and each line's role.

The reader (`table.py`) makes these; the engine turns the rows into transactions and checks
the balance rows and totals against them, and `templates check` shows every line's role.
They stand apart from the reader so that the engine, the OCR weighing of rows and the
readers' callers share them without reaching into how a table is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from parsers.layout.tokens import Token
from parsers.model import mask_digits
from parsers.pdf.lines import Line


@dataclass
class Row:
    """A transaction row: its date, description words and figures by role, the lines it
    was read from, and what of it OCR read with little confidence or put together."""

    date: date
    desc: list[str]
    figures: dict[str, Token]
    #: The least OCR confidence of each value read on the row, by role (`date`,
    #: `description`, a figure's role); empty on a text page.
    confs: dict[str, float]
    lines: list[Line]
    #: What an unsigned amount means here (set by a heading), or None for the template's.
    sign: str | None
    #: Whether the table this row stands in prints a running balance.
    has_balance: bool
    #: The OCR confidence of each word of `desc` (None on a text page).
    desc_confs: list[float | None] = field(default_factory=list)
    #: Whether the row's date was read on it (not carried from the row above).
    dated: bool = True
    #: Of a row without a date read on it: whether the scanned page holds no ink left of
    #: its first word, level with it, so its date cell is blank, not a date OCR missed
    #: (`ink.py`).
    blank_date: bool = False
    #: Whether every word of the row's date read below the review confidence was read the
    #: same way a second time (`reread.py`).
    date_twice: bool = False
    #: Figures of the row put together from OCR's words in an unusual way, by role, and how
    #: (read on a line apart from the row, beside noise): taken only where the running
    #: balance pins them (`doubts`).
    assembled: dict[str, str] = field(default_factory=dict)


@dataclass
class Marker:
    """A balance brought/carried forward line: a checkpoint, never a transaction."""

    line: Line
    value: Token | None
    #: Rows read before it (in this table reading).
    before: int
    closing: bool


@dataclass
class Total:
    """A line printing a section's total (a template's `totals`): checked, never a row."""

    line: Line
    value: Token | None
    #: The rows it adds up: from `after` (the rows read before the previous total line) to
    #: `before` (the rows read before it).
    after: int
    before: int


@dataclass
class TableReading:
    """Every row, balance row, total and problem of the tables in one account section's
    lines, and how each line was read."""

    rows: list[Row] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    totals: list[Total] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Dates and description words OCR read with little confidence that other evidence
    #: vouches for (see `trust.py`).
    trusted: list[str] = field(default_factory=list)
    #: id(line) -> how the line was read: header, row, continuation, marker, furniture,
    #: heading, total, end, outside.
    roles: dict[int, str] = field(default_factory=dict)
    #: (line, what was read) for `templates check`.
    log: list[tuple[Line, str, str]] = field(default_factory=list)
    #: Table headers read, and lines under them that print a figure (balance rows aside):
    #: a header with no figure under it is an account without transactions.
    headers: int = 0
    figure_lines: int = 0
    #: The statement period the rows were read in (its start None when not known).
    period: tuple[date | None, date] | None = None

    @property
    def empty(self) -> bool:
        """Whether the tables are an account's without transactions: headers, and no figure
        under them."""
        return self.headers > 0 and self.figure_lines == 0 and not self.rows


def row_text(ln: Line) -> str:
    """The line's text as a problem quotes it: digits masked, cut to 70 characters."""
    text = mask_digits(ln.text)
    return text if len(text) <= 70 else text[:67] + "..."
