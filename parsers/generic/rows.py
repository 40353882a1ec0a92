"""The rows of a table no template describes, read line by line once its columns are known.

Under a row, a line of words inside the description's span is more description; a line
without a date whose figures stand in those columns is another row of the same day (a date
printed once per day); a balance brought/carried forward line is a marker, checked against
the running total, never a transaction. Page headers and footers repeated on every page,
regulatory footers and watermarks never become rows. Which of these a line is depends on
what was read above it (the last line, the day carried, the heading, the description's left
edge), so the reader keeps that state and asks each line its questions in a fixed order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import Enum, auto

from parsers.generic.columns import column_of, end_figures, trailing
from parsers.generic.found import Marker, Row, Table
from parsers.generic.lookahead import bottom_aligned, opens_next, row_gap, runs_on
from parsers.generic.shapes import (
    date_range,
    day_pairs,
    drop_second_date,
    follows,
    is_header,
    left_of_figures,
    only_dates,
    paid_date,
    shaped_like_a_date,
)
from parsers.generic.words import DAILY_HEADINGS, SIGN_HEADINGS
from parsers.layout.tokens import Token, tokens
from parsers.layout.vocabulary import (
    BALANCE_ROWS,
    TOTALS,
    LabelSet,
    is_heading,
    label_set,
    starts_with_label,
)
from parsers.pdf.lines import Line


def read_rows(lines: list[Line], leads: dict[int, int], table: Table) -> None:
    """Rows, markers and strays of the table; `leads` holds how many of each kept line's
    first words print its date (0: none)."""
    _RowReader(lines, leads, table).read()


@functools.cache
def _label_sets() -> tuple[list[tuple[str, tuple[str, ...], LabelSet]], LabelSet, LabelSet]:
    """(each sign and its headings, with their label set; the daily headings' set; the
    balance rows' set), held: a line that cannot print a set's labels (`printed_in`: most
    lines) is not asked whether it starts with one, nor whether it is one of its headings."""
    signs = [(sign, labels, label_set(labels)) for sign, labels in SIGN_HEADINGS.items()]
    return signs, label_set(DAILY_HEADINGS), label_set(BALANCE_ROWS)


class _Took(Enum):
    """What reading a line made of it."""

    #: a part of the table (a row, a marker, more description): not where figures are
    #: labelled
    PART = auto()
    #: the first line of the row under it, held until that row is read
    HELD = auto()
    #: no part of a row (a header, a footer, a stray)
    NOTHING = auto()


@dataclass
class _Cut:
    """A line of the table cut where its date ends and where its figures start."""

    i: int
    ln: Line
    #: how many of its first words print its date (0: none)
    n: int
    #: whether it stands right under the last line read
    near: bool
    #: whether it may print a balance row's label (most lines print none of them)
    balance: bool
    #: the words after its date (a line without one: all of it) before its figures
    words: list[Token]
    #: the figures that end it, each standing in a column (empty: none, or some outside
    #: the columns, which are words then: a `5,90EUR` fee)
    figures: list[Token]
    #: column index -> the figure in it
    placed: dict[int, Token]

    def date_text(self) -> str:
        return " ".join(w.text for w in self.ln.words[:self.n])


class _RowReader:
    """Reads a table's lines top to bottom into its rows, markers and strays, keeping what
    the lines above tell of the next one."""

    def __init__(self, lines: list[Line], leads: dict[int, int], table: Table) -> None:
        self.lines, self.leads, self.table = lines, leads, table
        self.fmt = table.formats[0]
        self.last: Line | None = None
        self.desc_x0 = 0.0
        self.heading: str | None = None
        self.wrapped = False
        self.doubtful: list[tuple[Line, int]] = []
        self.daily = False
        self.carry: str | None = None  # the date a row without one of its own takes
        self.signs, self.daily_set, self.balance_set = _label_sets()
        #: lines already read as part of a row whose figures stand on its last line
        self.consumed: set[int] = set()
        #: id of a dated line -> the lines above it that begin its description
        self.ahead: dict[int, list[Line]] = {}
        self.row_gap = row_gap(lines, leads)

    def read(self) -> None:
        for i, ln in enumerate(self.lines):
            if id(ln) not in self.consumed:
                self._line(i, ln)
        self._finish()

    def _line(self, i: int, ln: Line) -> None:
        """Read `lines[i]`: first what it is by its place (the top of a page) and its words
        alone (a heading), then by its date and its figures."""
        near = self.last is not None and follows(self.last, ln)
        if not near and (self._opens_page(i, ln) or self._runs_over_page(i, ln)):
            return
        if self._heading(ln) or self._daily_balance(ln):
            return
        if id(ln) not in self.leads:  # a page header over the next page continues no row
            if near and self.last is not None and ln.page == self.last.page \
                    and self.table.rows and ln.words[0].x0 >= self.desc_x0 - 4:
                self.table.strays.append((ln, len(self.table.rows), True))
            return
        cut = self._cut(i, ln, near)
        took = self._figured(cut) if cut.figures else self._unfigured(cut)
        if took is _Took.PART:
            self.table.used.add(id(ln))
        elif took is _Took.NOTHING:
            self._unread(cut)

    def _opens_page(self, i: int, ln: Line) -> bool:
        """At the top of the table or of a page, before a row is read on it: a line of
        words only that the row under it begins on."""
        table = self.table
        if (not table.rows or ln.page > table.rows[-1].line.page) \
                and id(ln) in self.leads and not self.leads[id(ln)] and not is_header(ln) \
                and not end_figures(ln, table.locale) \
                and not starts_with_label(ln.text, (*TOTALS, *BALANCE_ROWS)) \
                and (opens := opens_next(self.lines, i, self.leads, None,
                                         self.row_gap)) is not None:
            self.ahead.setdefault(id(opens), []).append(ln)
            self.last = ln
            return True
        return False

    def _runs_over_page(self, i: int, ln: Line) -> bool:
        """A description that runs on over the page break, under the next page's header:
        more of the last row of the page before."""
        table = self.table
        if table.rows and ln.page > table.rows[-1].line.page \
                and id(ln) in self.leads and not self.leads[id(ln)] \
                and runs_on(self.lines, i, self.leads, table, self.desc_x0):
            _run_on(table.rows[-1].desc, [w.text for w in ln.words])
            table.used.add(id(ln))
            self.last, self.wrapped = ln, True
            return True
        return False

    def _heading(self, ln: Line) -> bool:
        """A heading that says what sign the rows under it take, or that a daily balance
        list follows."""
        sign = next((s for s, labels, found in self.signs
                     if found.printed_in(ln.folded) and is_heading(ln.text, labels)), None)
        if sign is not None:
            self.heading, self.last, self.daily = sign, None, False
            return True
        if self.daily_set.printed_in(ln.folded) and is_heading(ln.text, DAILY_HEADINGS):
            self.heading, self.last, self.daily = None, None, True
            return True
        return False

    def _daily_balance(self, ln: Line) -> bool:
        """Under a daily balance heading: a line of days and balances, or its header; any
        other line ends the list."""
        if self.daily and id(ln) in self.leads:
            pairs = day_pairs(ln, self.fmt, self.table.locale)
            if pairs:
                self.table.days.extend((d, t, ln) for d, t in pairs)
                self.table.used.add(id(ln))
                return True
            if is_header(ln):
                return True
            self.daily = False
        return False

    def _cut(self, i: int, ln: Line, near: bool) -> _Cut:
        """The line cut into its date, its words and its figures in the columns."""
        n = self.leads[id(ln)]
        # (whatever of the line is asked whether it starts with a balance row's label is
        # a run of its words: it prints none where the line prints none)
        balance = self.balance_set.printed_in(ln.folded)
        # (the words after a date as a line of their own; a line without one as it is)
        words, figures = trailing(tokens(Line(ln.page, ln.words[n:]) if n else ln,
                                         self.table.locale))
        at = {column_of(self.table, t, ln): t for t in figures}
        placed = {k: t for k, t in at.items() if k is not None}
        if figures and len(placed) != len(figures):
            words, figures = words + figures, []
        return _Cut(i, ln, n, near, balance, words, figures, placed)

    def _figured(self, c: _Cut) -> _Took:
        """A line whose figures stand in the columns: a row, dated or not, or a marker."""
        table, ln = self.table, c.ln
        if c.n and c.balance and starts_with_label(" ".join(t.text for t in c.words),
                                                   BALANCE_ROWS):
            # a dated balance brought/carried forward: checked, never a transaction
            table.markers.append(Marker(ln, len(table.rows), c.figures[-1]))
            self.last, self.carry = ln, c.date_text()
        elif c.n:
            self._dated_row(c)
        elif (paid := paid_date(c.words, self.fmt)) is not None:
            # a check's row: its number (and a mark), then the date it was paid
            table.rows.append(Row(" ".join(t.text for t in c.words[paid:]),
                                  [t.text for t in c.words[:paid]], c.placed, ln,
                                  heading=self.heading, text_x1=_x1(c.words[:paid])))
            self.last, self.wrapped = ln, False
        elif c.near and self.carry and not starts_with_label(ln.text, TOTALS):
            self._carried_row(c, self.carry)
        elif c.near and c.balance and starts_with_label(ln.text, BALANCE_ROWS):
            table.markers.append(Marker(ln, len(table.rows), c.figures[-1]))
            self.last = ln
        else:
            return _Took.NOTHING
        return _Took.PART

    def _dated_row(self, c: _Cut) -> None:
        """A row printing its own date, its description begun by the lines held for it."""
        ln = c.ln
        date_text = self.carry = c.date_text()
        text = drop_second_date(c.words, self.fmt)
        above = self.ahead.pop(id(ln), [])
        desc: list[str] = []
        for part in [*([w.text for w in a.words] for a in above), [t.text for t in text]]:
            _run_on(desc, part)
        self.table.rows.append(Row(date_text, desc, c.placed, ln, heading=self.heading,
                                   text_x1=_x1(text)))
        self.table.used.update(id(a) for a in above)
        self.desc_x0 = text[0].x0 if text else ln.words[c.n].x0
        self.last, self.wrapped = ln, False

    def _carried_row(self, c: _Cut, carry: str) -> None:
        """A line without a date right under a row: a balance row's marker, or another row
        of the day above."""
        table, ln = self.table, c.ln
        if c.balance and starts_with_label(ln.text, BALANCE_ROWS):
            table.markers.append(Marker(ln, len(table.rows), c.figures[-1]))
        else:
            if self.wrapped:  # the words above may begin this row as well as end the last
                self.doubtful.append((ln, len(table.rows)))
            table.rows.append(Row(carry, [t.text for t in c.words], c.placed, ln,
                                  carried=True, heading=self.heading, text_x1=_x1(c.words),
                                  bad_date=shaped_like_a_date(ln, self.fmt)))
        self.last, self.wrapped = ln, False

    def _unfigured(self, c: _Cut) -> _Took:
        """A line without figures in the columns: a row whose figures stand under it, a
        value date, more description of the row above or the start of the row below."""
        table, ln = self.table, c.ln
        if c.n and not date_range(c.words, self.fmt) \
                and (block := bottom_aligned(self.lines, c.i, self.leads, table)):
            self._bottom_aligned_row(c, block)
            return _Took.PART
        if not c.near:
            return _Took.NOTHING
        if ln.words[0].x0 < self.desc_x0 - 4 and only_dates(ln, self.fmt):
            self.last = ln  # the row's value date, on a line of its own
        elif table.rows and c.n and left_of_figures(ln, table):
            more = drop_second_date(c.words, self.fmt)
            _run_on(table.rows[-1].desc, [t.text for t in more])
            _wraps(table.rows[-1], more[0].x1 - more[0].x0 if more else None)
            self.last, self.wrapped = ln, True  # a value date, then more description
        elif not c.n and ln.words[0].x0 >= self.desc_x0 - 4 and left_of_figures(ln, table) \
                and (opens := opens_next(self.lines, c.i, self.leads, self.last,
                                         self.row_gap)) is not None:
            # closer to the dated line under it than to the row above: the first line of a
            # description its date and figures stand beside the middle of (a table cell
            # centred as a web page's is), not more of the row above
            self.ahead.setdefault(id(opens), []).append(ln)
            self.last = ln
            return _Took.HELD
        elif table.rows and not c.n and ln.words[0].x0 >= self.desc_x0 - 4 \
                and left_of_figures(ln, table):
            _run_on(table.rows[-1].desc, [w.text for w in ln.words])
            _wraps(table.rows[-1], ln.words[0].x1 - ln.words[0].x0)
            self.last, self.wrapped = ln, True
        else:
            return _Took.NOTHING
        return _Took.PART

    def _bottom_aligned_row(self, c: _Cut, block: list[Line]) -> None:
        """A row whose figures stand on its last line, under its description."""
        *between, end = block
        end_words, last_figures = trailing(tokens(end, self.table.locale))
        date_text = self.carry = c.date_text()
        text = drop_second_date(c.words, self.fmt)
        desc = [t.text for t in text] + [w.text for b in between for w in b.words] + [
            t.text for t in end_words]
        self.table.rows.append(Row(date_text, desc, {column_of(self.table, t, end): t
                                                     for t in last_figures}, c.ln,
                                   heading=self.heading, text_x1=_x1(text)))
        self.desc_x0 = text[0].x0 if text else self.desc_x0
        self.table.used.update(id(b) for b in block)
        self.consumed.update(id(b) for b in block)
        self.last, self.wrapped = end, False

    def _unread(self, c: _Cut) -> None:
        """A line no row took: the next page's header, or a stray where it stands in the
        description's span."""
        table, ln = self.table, c.ln
        if self.last is not None and ln.page > self.last.page:
            return  # the next page's header: the table goes on under it
        if table.rows and not c.n and ln.words[0].x0 >= self.desc_x0 - 4 and not is_header(ln) \
                and not starts_with_label(ln.text, (*TOTALS, *BALANCE_ROWS)):
            table.strays.append((ln, len(table.rows), c.near))
        self.last = None

    def _finish(self) -> None:
        """Strays of what the whole table shows: held lines no row came under, doubtful
        splits, and lines on pages without a row."""
        table = self.table
        # lines read as the start of a row under them that did not come (a balance row)
        table.strays += [(a, sum((r.line.page, r.line.top) < (a.page, a.top)
                                 for r in table.rows), True)
                         for held in self.ahead.values() for a in held
                         if id(a) not in table.used]
        _doubt(table, self.doubtful)
        # a page of other text between two pages of the table (terms, a form to fill in) is
        # no part of it: only a line right under a row there may be a lost part of one
        paged = {r.line.page for r in table.rows}
        table.strays = [s for s in table.strays if s[2] or s[0].page in paged]


def _run_on(desc: list[str], words: list[str]) -> None:
    """Add a line's words to a description: a word broken after its hyphen at the line's
    end (`7781-` over `ALPHA`) is one word again."""
    if desc and words and len(desc[-1]) > 1 and desc[-1].endswith("-") \
            and desc[-1][-2].isalnum():
        desc[-1] += words[0]
        words = words[1:]
    desc.extend(words)



def _x1(words: list[Token]) -> float:
    """Where the words end (0 where there are none)."""
    return words[-1].x1 if words else 0.0


def _wraps(row: Row, width: float | None) -> None:
    """Note how wide the first word of the line continuing the row is (the first such)."""
    if row.wrap_width is None:
        row.wrap_width = width


def _doubt(table: Table, doubtful: list[tuple[Line, int]]) -> None:
    """Words between a row and a row without a date of its own belong to the first only
    when they wrapped: when their first word would not have fitted on the row's line (the
    widest description line sets the width). Otherwise the split is unproven: a stray."""
    widest = max((r.text_x1 for r in table.rows), default=0.0)
    for ln, i in doubtful:
        above = table.rows[i - 1]
        if above.wrap_width is None or above.text_x1 + above.wrap_width + 3 <= widest:
            table.strays.append((ln, i, True))
