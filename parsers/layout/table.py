"""Reading a statement's transaction table, line by line: its header, rows and ends.

Rows: a line whose date cell reads starts a row; a line without a date continues the row
above (more description), or, with figures, is a row of the same day when the template says
dates are printed once per day (`carry_date`); a dated line without figures under a row is
that row's value date when the template says so (`value_date_line`). Balance brought/carried
forward lines are markers (checked, never transactions); page furniture and totals are
skipped; headings such as `Deposits` set what an unsigned amount means. Every line gets a
role, so `templates check` can show how it was read.

The columns come from the header (`header.py`, `geometry.py`), a line's words from
`tokens.py`; on a scan, OCR's noise is dropped from the line's cells first
(`ocr_cells.py`), and figures put together unusually or read on another OCR line than their
row are taken only where the running balance pins them (`ocr_doubts.py`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from datetime import date
from typing import NamedTuple

from parsers.layout.geometry import Geometry
from parsers.layout.header import match_header, printing_header_words
from parsers.layout.line_scan import lines_holding
from parsers.layout.ocr_cells import (
    assembled,
    cell_confs,
    desc_confs,
    drop_noise,
    junk,
    merge_confs,
    read_twice,
)
from parsers.layout.row_dates import as_digits, reads_date, row_date
from parsers.layout.table_rows import Marker, Row, TableReading, Total, row_text
from parsers.layout.template import NUMBER_ROLES, Template
from parsers.layout.tokens import Token, tokens
from parsers.layout.vocabulary import (
    BALANCE_ROWS,
    CLOSING,
    TOTALS,
    LabelSet,
    furniture_folded,
    furniture_lines,
    is_heading,
    label_set,
    match_label,
)
from parsers.model import mask_digits
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.pdf.lines import Line, skew

#: a figure's decimal part, in any locale (`5,90`, `4.50`)
_DECIMALS = re.compile(r"\d[.,]\d{2}(?!\d)")


def read_table(t: Template, lines: list[Line], period_end: date,
               period_start: date | None = None) -> TableReading:
    """Every row, marker and problem of the tables in `lines` (one account section)."""
    reader = _Reader(t, lines, period_end, period_start)
    for i, ln in enumerate(lines):
        reader.read_line(i, ln)
    reader.settle()
    _check_large_print(lines, reader.out)
    return reader.out


class _Cells(NamedTuple):
    """A line read in a table's columns: what the steps that read it as a row ask of it."""

    i: int
    ln: Line
    geometry: Geometry
    #: Tokens by column role, and the tokens that stand in no column.
    cells: dict[str, list[Token]]
    strays: list[Token]
    #: Strays dropped as OCR's noise (`ocr_cells.py`).
    noise: list[Token]
    date_text: str
    desc: list[str]
    #: The tokens of each amount column.
    figures: dict[str, list[Token]]


#: Lines of description held for the row of the dated line under them: that line's id, the
#: lines, their cells, and how many rows were read before them.
_Held = tuple[int, list[Line], list[dict[str, list[Token]]], int]


class _Reader:
    """One reading of the tables in an account section's lines: what the steps reading one
    line after another share (the header the lines stand under, the line and date above,
    lines taken or held for a line below them), and the reading they make."""

    def __init__(self, t: Template, lines: list[Line], period_end: date,
                 period_start: date | None) -> None:
        self.t, self.lines, self.period_end = t, lines, period_end
        self.out = TableReading(period=(period_start, period_end))
        self.end_test, self.skip_test = _searcher(t, t.end), _searcher(t, t.skip)
        self.total_test = _searcher(t, t.totals)
        # (the label sets looked for in every line, found once per table reading)
        self.total_words, self.balance_rows = label_set(TOTALS), label_set(BALANCE_ROWS)
        # (the lines that may print a heading, a total, a balance row or furniture, each found
        # once in all the lines' text, and those that print a header's word: most print none)
        folded = [ln.folded for ln in lines]
        self.heading_lines = set(lines_holding(label_set(tuple(t.headings)).words, folded)) \
            if t.headings else set()
        self.header_lines = set(printing_header_words(t.header_words, folded))
        self.total_lines = set(lines_holding(self.total_words.words, folded))
        self.balance_lines = set(lines_holding(self.balance_rows.words, folded))
        self.furniture_lines = furniture_lines(folded, t.furniture)
        self.geometry: Geometry | None = None
        #: Where the header over `geometry` stands down the page.
        self.top = 0.0
        self.page: int | None = None
        self.last: Line | None = None
        self.sign: str | None = None
        #: The last date printed on a row or balance row: a row without one carries it.
        self.day: date | None = None
        #: id(line) -> (role, detail) of lines already read with a line above them.
        self.taken: dict[int, tuple[str, str]] = {}
        #: page -> its skew (`lines.skew`): how far a column drifts right per point down.
        self.skews: dict[int, float] = {}
        self.pages: dict[int, list[Line]] = {}
        for o in lines:
            self.pages.setdefault(o.page, []).append(o)
        self.held: list[_Held] = []
        #: the header line right above, until a line of the table is read under it
        self.under: Line | None = None
        #: OCR lines right under a row, no date where dates stand and no figure: words of the
        #: row above OCR placed off its column (`CORP` read wider, left into the dates), or
        #: a line outside the table; under a dated row below them, they are inside it
        self.loose: list[Line] = []

    def note(self, ln: Line, role: str, detail: str = "") -> None:
        self.out.roles[id(ln)] = role
        self.out.log.append((ln, role, detail))

    def settle(self) -> None:
        """Held lines begin the row their dated line made, or (it made none) continue the
        row above them after all."""
        out = self.out
        for opener, above, cells, before in self.held:
            made = len(out.rows) > before and id(out.rows[before].lines[0]) == opener
            if not made and before == 0:  # no row above to continue either
                for a in above:
                    self.note(a, "furniture", "no figure where amounts stand")
                continue
            row = out.rows[before] if made else out.rows[before - 1]
            words = [tok.text for c in cells for tok in c.get("description", [])]
            row.desc = [*words, *row.desc] if made else [*row.desc, *words]
            row.desc_confs = ([None] * len(words) + row.desc_confs if made
                              else row.desc_confs + [None] * len(words))
            row.lines = [*above, *row.lines] if made else [*row.lines, *above]
            for a in above:
                self.note(a, "continuation", "the first line of the row under it"
                          if made else "more of the row above")
        self.held.clear()

    def read_line(self, i: int, ln: Line) -> None:
        """Read `lines[i]`: as a line that frames the tables, or as one of a table's."""
        held = self.held
        if held and id(self.lines[i - 1]) == held[-1][0]:  # the row the held lines begin
            self.settle()
        if self.taken and id(ln) in self.taken:  # (mostly none is)
            self.note(ln, *self.taken.pop(id(ln)))
            return
        if ln.page != self.page:
            self.page, self.geometry, self.last = ln.page, None, None
        geometry = self._frame(i, ln)
        if geometry is None:
            return
        lc = self._cells(i, ln, geometry)
        if self._balance_row(lc) or self._no_row(lc):
            return
        one = self._one_figure_each(lc)
        last = self.last
        # (a dated line goes on whatever the gap: the line above's height is not asked)
        if not lc.date_text and last is not None and ln.top - last.bottom > 1.5 * last.height:
            self.geometry = None
            self.note(ln, "end", "a gap wider than a wrapped line, and no date: the table stops")
            return
        if self._dated_line(lc, one) if lc.date_text else self._undated_line(lc, one):
            self.last, self.under = ln, None

    def _frame(self, i: int, ln: Line) -> Geometry | None:
        """The columns `ln` is read in as a line of a table, or None where it is read as a
        line that frames the tables (and noted): a watermark, a heading, a header, a total,
        furniture, a table's end, or a line outside every table."""
        t = self.t
        if ln.large:
            self.note(ln, "furniture", "large print across the page (a watermark)")
            return None
        heading = next((s for lb, s in t.headings.items() if is_heading(ln.text, [lb])),
                       None) if i in self.heading_lines else None
        if heading is not None:
            self.sign = heading
            self.note(ln, "heading", f"unsigned amounts below are {heading}s")
            return None
        header = match_header(self.lines, i, t) if i in self.header_lines else None
        if header is not None:
            self.geometry, self.top, self.last, self.under = (header.geometry, header.top,
                                                              None, ln)
            self.loose.clear()
            self.taken.update({id(o): ("header", "(stacked header line)")
                               for o in self.lines[i + 1:i + header.lines]})
            self.out.headers += 1
            self.note(ln, "header", header.geometry.describe())
            return None
        if self.total_test and self.total_test(ln.text):
            # Checked wherever it stands: a total pushed onto the next page is still one.
            self.geometry = None
            out = self.out
            figures = [tok for tok in tokens(ln, t.locale) if tok.amount is not None]
            after = out.totals[-1].before if out.totals else 0
            out.totals.append(Total(ln, figures[-1] if figures else None, after,
                                    len(out.rows)))
            self.note(ln, "total", f"a section total of rows {after + 1}-{len(out.rows)}: "
                      f"{figures[-1].text if figures else 'no figure'}")
            return None
        geometry = self.geometry
        if geometry is None:
            self.note(ln, "outside")
            return None
        if (self.skip_test and self.skip_test(ln.text)) or (
                i in self.furniture_lines and furniture_folded(ln.folded, t.furniture)):
            self.note(ln, "furniture")
            return None
        if self.end_test and self.end_test(ln.text):
            self.geometry = None
            self.note(ln, "end", "an end pattern: the table stops here")
            return None
        if i in self.total_lines and self.total_words.match(_stripped(ln),
                                                            at_start=True) is not None:
            self.geometry = None
            self.note(ln, "total", "a total line: the table stops here")
            return None
        return geometry

    def _cells(self, i: int, ln: Line, geometry: Geometry) -> _Cells:
        """`lines[i]` read in the columns of `geometry`, placed as if its page were not
        skewed, without OCR's noise."""
        if ln.page not in self.skews:
            self.skews[ln.page] = skew(self.pages[ln.page])
        cells, strays = geometry.line_cells(ln, self.t.locale,
                                            self.skews[ln.page] * (ln.top - self.top))
        noise: list[Token] = []
        if ln.ocr:  # noise and specks are OCR's only
            strays, noise = drop_noise(cells, strays)
        dated = cells.get("date")
        described = cells.get("description")
        return _Cells(i, ln, geometry, cells, strays, noise,
                      " ".join([tok.text for tok in dated]) if dated else "",
                      [tok.text for tok in described] if described else [],
                      {r: cells[r] for r in NUMBER_ROLES if r in cells})

    def _balance_row(self, lc: _Cells) -> bool:
        """Whether the line is a balance brought/carried forward row: a marker, with its
        figure read on it or on the line under it."""
        if lc.i not in self.balance_lines:
            return False
        ln, t = lc.ln, self.t
        marker = _marker_label(ln, " ".join(lc.desc), self.balance_rows)
        if marker is None:
            return False
        value = (lc.figures.get("balance") or next(iter(lc.figures.values()), None))
        below = None if value else _figure_below(self.lines, lc.i, t.locale)
        if not (value or below or lc.date_text or lc.strays) and self.out.rows \
                and self.last is not None and len(ln.text.strip(" :")) > len(marker):
            # A label word that starts a line of a wrapped description (`Übertrag auf
            # Sparcard`), with more words after it and no figure anywhere: text of the
            # row above, not a balance row.
            return False
        if lc.date_text:
            with contextlib.suppress(ValueError):
                self.day = row_date(lc.date_text, t.row_date_formats, self.period_end)
        figure = value[-1] if value else (below[1] if below else None)
        if below is not None:
            self.taken[id(below[0])] = ("marker", "the figure of the balance row above")
        self.out.markers.append(Marker(ln, figure, len(self.out.rows),
                                       match_label(marker, CLOSING, at_start=True) is not None))
        self.note(ln, "marker", f"balance row {marker!r}: "
                  f"{figure.text if figure else 'no figure'}")
        self.last = None
        return True

    def _no_row(self, lc: _Cells) -> bool:
        """Whether the line is read as no line of a row (and noted): furniture, or the
        first line of a description held for the row under it."""
        # a text line that prints no figure can change no number: unless it is a row's date
        # or more of its description, it is furniture (a legal paragraph in the table's area,
        # with its phone number and postcode, `Seite 1 von 20`), never a problem, and it ends
        # no table (a word with a digit where figures stand may be one, and OCR's words may be
        # misread ones: neither is furniture)
        # (on a line without a row's date, such a word must also have a figure's decimals:
        # `5,90EUR` may be an amount misprinted, `19850,` of an address is none)
        ln, t, last, date_text = lc.ln, self.t, self.last, lc.date_text
        dated_row = bool(date_text) and reads_date(date_text, t.row_date_formats,
                                                    self.period_end)
        figured = ln.ocr or bool(lc.figures) or any(
            tok.amount is not None or (any(map(str.isdigit, tok.text))
                                       and lc.geometry.where_figures_stand(tok)
                                       and (dated_row or _DECIMALS.search(tok.text)))
            for tok in lc.strays)
        near = last is not None and ln.top - last.bottom <= 1.5 * last.height
        if not figured and not date_text and last is None and self.under is not None \
                and not ln.ocr and (opener := _opens_row(self.lines, lc.i, self.under,
                                                         lc.geometry, t, self.period_end,
                                                         lc.cells)):
            # right under the header, closer to the dated line under it: the first line of
            # the first row's description (a web page's centred cell), no furniture
            self.held.append((id(opener), [ln], [lc.cells], len(self.out.rows)))
            self.last = ln
            return True
        if not figured and (lc.strays or (date_text and not dated_row)
                            or (not date_text and not near)):
            self.note(ln, "furniture", "no figure where amounts stand")
            return True
        return False

    def _one_figure_each(self, lc: _Cells) -> dict[str, Token]:
        """The figure of each amount column of a line of a row (the first where it prints
        two), the line's strays and second figures noted as problems."""
        out, ln = self.out, lc.ln
        if lc.figures or lc.strays:
            out.figure_lines += 1
        if lc.strays:
            out.problems.append(f"page {ln.page}: "
                                f"{', '.join(repr(s.text) for s in lc.strays)} "
                                f"stands in no column: {row_text(ln)!r}")
        one = {}
        for role, toks in lc.figures.items():
            if len(toks) > 1:
                out.problems.append(f"page {ln.page}: two figures in the {role} column: "
                                    f"{row_text(ln)!r}")
            one[role] = toks[0]
        return one

    def _dated_line(self, lc: _Cells, one: dict[str, Token]) -> bool:
        """Read a line with a date cell: the value date of the row above, or a row of its
        own. Whether the line joined a row (the next line is measured from it)."""
        t, out, ln, desc = self.t, self.out, lc.ln, lc.desc
        if t.value_date_line and not one and not lc.strays and self.last is not None \
                and out.rows and out.rows[-1].figures:
            self._extend(out.rows[-1], lc)
            self.note(ln, "continuation", f"the value date {lc.date_text!r} of the row above"
                      + (f" and {' '.join(desc)!r}" if desc else ""))
            return True
        looked = False  # the date read with its digits' look-alike letters as digits
        when: date | None
        try:
            when = row_date(lc.date_text, t.row_date_formats, self.period_end)
        except ValueError:
            when = as_digits(lc.date_text, t.row_date_formats, self.period_end) \
                if ln.ocr and one else None
            looked = when is not None
        if when is None:
            last = self.last
            if not one and not lc.strays and not (desc and last is not None
                                                  and junk(lc.cells["date"])):
                if ln.ocr and out.rows and last is not None \
                        and ln.top - last.bottom <= 1.5 * last.height:
                    self.loose.append(ln)  # a problem if a row follows it (below)
                self.note(ln, "outside", f"{lc.date_text!r} is no date and there are no "
                          "figures: not a row")
                return False
            out.problems.append(f"page {ln.page}: unreadable date {lc.date_text!r} in a "
                                f"table row: {row_text(ln)!r}")
            self.note(ln, "problem", f"unreadable date {lc.date_text!r}")
            self.last = ln
            return False
        has_balance, cells = lc.geometry.has_balance, lc.cells
        if ln.ocr:
            row = Row(when, desc, one, cell_confs(cells), [ln], self.sign, has_balance,
                      desc_confs(cells), date_twice=read_twice(cells.get("date", [])),
                      assembled=assembled(ln, one, lc.noise))
            if looked:  # only the dates around it can vouch for it (`_weigh_dates`)
                row.confs["date"] = min(row.confs.get("date", 100.0),
                                        OCR_REVIEW_CONFIDENCE - 1)
                row.date_twice = False
        else:  # a text line's words carry no confidence: none is doubted
            row = Row(when, desc, one, {}, [ln], self.sign, has_balance,
                      [None] * len(desc), date_twice=True)
        out.problems += [f"page {o.page}: a line between two rows prints words where dates "
                         f"stand that are no date, and no row took them: {row_text(o)!r}"
                         for o in self.loose if o.page == ln.page]
        self.loose.clear()
        out.rows.append(row)
        self.day = when
        self.note(ln, "row", _reading(out.rows[-1]))
        return True

    def _undated_line(self, lc: _Cells, one: dict[str, Token]) -> bool:
        """Read a line without a date: the figures of the row above, a row of the day above,
        more of a row's description, or none of a row's. Whether the line joined a row."""
        t, out, ln, last, held = self.t, self.out, lc.ln, self.last, self.held
        cells, desc = lc.cells, lc.desc
        if one and out.rows and not out.rows[-1].figures and last is not None:
            row = out.rows[-1]
            row.figures = one
            row.assembled = {role: "on the line under its row's date" for role, tok
                             in one.items() if tok.conf is not None}
            self._extend(row, lc)
            self.note(ln, "row", "figures of the row above: " + _reading(row))
        elif one and self.day is not None and t.carry_date:
            out.rows.append(Row(self.day, desc, one, cell_confs(cells) if ln.ocr else {}, [ln],
                                self.sign, lc.geometry.has_balance, desc_confs(cells),
                                dated=False, blank_date=ln.words[0].ink == (),
                                assembled=assembled(ln, one, lc.noise)))
            self.note(ln, "row", "date of the row above: " + _reading(out.rows[-1]))
        elif one:
            out.problems.append(f"page {ln.page}: a table row without a date: "
                                f"{row_text(ln)!r}")
            self.note(ln, "problem", "figures without a date")
        elif desc and held and last is held[-1][1][-1]:
            held[-1][1].append(ln)  # the next line of a description held for the row under
            held[-1][2].append(cells)
            self.last = ln
            return False
        elif desc and out.rows and last is not None and not ln.ocr and (
                opener := _opens_row(self.lines, lc.i, last, lc.geometry, t,
                                     self.period_end, cells)):
            # closer to the dated line under it than to the row above: the first line of a
            # description whose date and figures stand by its middle (a web page's
            # centred table cell), not more of the row above
            held.append((id(opener), [ln], [cells], len(out.rows)))
            self.last = ln
            return False
        elif desc and out.rows and last is not None:
            self._extend(out.rows[-1], lc)
            self.note(ln, "continuation", " ".join(desc))
        else:
            self.note(ln, "outside", "text in the table area that belongs to no row")
            return False
        return True

    @staticmethod
    def _extend(row: Row, lc: _Cells) -> None:
        """Another line of `row`: its description words, and (OCR's) its confidences."""
        _add_words(row, lc.cells)
        row.lines.append(lc.ln)
        if lc.ln.ocr:  # (a text line's cells carry no confidence)
            merge_confs(row.confs, cell_confs(lc.cells))


def _opens_row(lines: list[Line], i: int, last: Line, geometry: Geometry, t: Template,
               period_end: date, cells: dict[str, list[Token]]) -> Line | None:
    """The row's line under `lines[i]` (description only) whose row it begins: where its
    description starts where that line's does, and it (and any line between) stands closer
    to that line than to `last`, the line above. None where the lines are evenly spaced
    (more of the row above)."""
    ln = lines[i]
    if last.page != ln.page or not cells.get("description"):
        return None
    above, prev = ln.top - last.bottom, ln
    for nx in lines[i + 1:i + 4]:
        if nx.page != ln.page or nx.top - prev.bottom > above - 1.0:
            return None
        below, _ = geometry.line_cells(nx, t.locale)
        dated = below.get("date")
        # a row's line: dated, or (dates printed once per day) its figures without one
        row = (reads_date(" ".join(tok.text for tok in dated), t.row_date_formats,
                           period_end) if dated else
               t.carry_date and any(role in below for role in NUMBER_ROLES))
        if row:
            starts = below.get("description")
            first = cells["description"][0]
            return nx if starts and abs(starts[0].x0 - first.x0) <= 4 else None
        if any(role in below for role in ("date", *NUMBER_ROLES)):
            return None
        prev = nx
    return None


def _searcher(t: Template, patterns: tuple[str, ...]) -> Callable[[str], object] | None:
    """A test of whether a text holds a match of one of the template's `patterns` (true when
    it does), or None when there are none: the one pattern's own `search` where there is
    one, as there mostly is (it is asked of every line)."""
    compiled = [re.compile(t.expand(p), re.IGNORECASE) for p in patterns]
    if len(compiled) > 1:
        return lambda text: any(p.search(text) for p in compiled)
    return compiled[0].search if compiled else None


def _add_words(row: Row, cells: dict[str, list[Token]]) -> None:
    """The description words of another line of `row`, with their confidences: a word
    broken after its hyphen at the line's end (`7781-` over `ALPHA`) is one word again."""
    words, confs = [tok.text for tok in cells.get("description", [])], desc_confs(cells)
    if row.desc and words and len(row.desc[-1]) > 1 and row.desc[-1].endswith("-") \
            and row.desc[-1][-2].isalnum():
        row.desc[-1] += words.pop(0)
        first = confs.pop(0)
        if first is not None and row.desc_confs[-1] is not None:
            row.desc_confs[-1] = min(row.desc_confs[-1], first)
    row.desc += words
    row.desc_confs += confs


def _figure_below(lines: list[Line], i: int, locale: str) -> tuple[Line, Token] | None:
    """The figure of a balance row printed on the line under its label: the next line,
    close below on the same page, when it is exactly one amount starting under the label."""
    ln = lines[i]
    nxt = next((o for o in lines[i + 1:] if not o.large), None)
    if nxt is None or nxt.page != ln.page or nxt.top - ln.bottom > 1.2 * ln.height:
        return None
    toks = tokens(nxt, locale)
    if len(toks) != 1 or toks[0].amount is None or not (
            ln.words[0].x0 - 2 <= toks[0].x0 < ln.words[-1].x1):
        return None
    return nxt, toks[0]


def _check_large_print(lines: list[Line], out: TableReading) -> None:
    """A large word of more than one letter over the table's lines is a problem: a watermark
    printed across the page comes as one letter per word, so more letters may be a
    watermark letter the page reader joined with words of the text under it, which are then
    missing from their row. (A title above the table or a code up the margin hides nothing.)"""
    large = [ln for ln in lines if ln.large]
    if not large:
        return
    table = [ln for ln in lines if out.roles.get(id(ln)) in
             ("header", "row", "continuation", "marker", "problem")]
    for ln in large:
        merged = [w.text for w in ln.words if len(w.text) > 1 and any(
            o.page == ln.page and o.top < w.bottom and o.bottom > w.top
            and o.words[0].x0 < w.x1 and o.words[-1].x1 > w.x0 for o in table)]
        if merged:
            out.problems.append(f"page {ln.page}: large print merged with the text (a "
                                f"watermark over the table?): words of this page cannot be "
                                f"trusted: {mask_digits(' '.join(merged))!r}")
            out.roles[id(ln)] = "problem"
            out.log = [(o, "problem" if o is ln else role, "large print merged with small "
                        "print" if o is ln else detail) for o, role, detail in out.log]


def _marker_label(ln: Line, desc: str, balance_rows: LabelSet) -> str | None:
    """The balance-row label a line starts with (the whole line or its description cell);
    `balance_rows` is `label_set(BALANCE_ROWS)`."""
    if not balance_rows.printed_in(ln.folded):
        return None  # (nor does its description cell, which prints some of its words)
    m = balance_rows.match(_stripped(ln), at_start=True)
    if m is not None:
        return ln.text.strip()[:m.end()].strip(" :")
    m = match_label(desc.strip(), BALANCE_ROWS, at_start=True) if desc else None
    return None if m is None else desc.strip()[:m.end()].strip(" :")


def _stripped(ln: Line) -> str:
    """`fold(ln.text.strip())`, cut from the line's `folded` (folding keeps every character
    where it stands)."""
    text = ln.text
    lead = len(text) - len(text.lstrip())
    return ln.folded[lead:len(text.rstrip())]


def _reading(r: Row) -> str:
    """A row as `templates check` shows it: its date, description and figures."""
    figures = ", ".join([f"{role} {tok.text}" for role, tok in sorted(r.figures.items())])
    return f"{r.date} {' '.join(r.desc)!r} {figures or 'no figures'}"
