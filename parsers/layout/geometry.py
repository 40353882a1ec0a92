"""Where a table's columns stand, and which column each of a line's tokens stands in.

The header fixes the columns' places (`header.py` finds it); this is the pure geometry of
one header's columns, worked out once and shared by every page that prints it: a text
column starts a little left of its label (a label may be printed off its column); a figure
belongs to the amount column whose label's left edge, right edge or centre it lines up with
(or the column's `align`, or its explicit `x` range); a column printed without its label is
placed between its neighbours. On a scan, a line's tokens are placed as if the page were
not skewed: the reader shifts them by how far the columns drift sideways down the page.
"""

from __future__ import annotations

import functools
import itertools
import math
from bisect import bisect_right
from dataclasses import dataclass

from parsers.layout.template import NUMBER_ROLES, Column
from parsers.layout.tokens import TEXT_WORDS, Token, text_word, tokens
from parsers.numbers import LOCALES
from parsers.pdf.lines import Line

#: How far left of its label a text column's words may start (a label printed off its column).
_TEXT_SLACK = 12.0
#: `Token`s are made straight from their fields' tuple on the paths every word takes (a
#: named tuple's own constructor is a call more per word).
_new = tuple.__new__
#: Not yet placed (`Geometry._figures_placed`: None is a place, no column's).
_UNPLACED = object()
#: The most places of figures a `Geometry` keeps (a header's figures stand at a few).
_PLACES_KEPT = 256


@dataclass(frozen=True)
class Placed:
    """A column of a header, and where it stands across the page (points)."""

    column: Column
    x0: float
    x1: float

    @functools.cached_property
    def centre(self) -> float:
        """(Kept: every figure under the header is measured against it.)"""
        return (self.x0 + self.x1) / 2


@dataclass
class Geometry:
    """Where each column of one header sits, and how words are assigned to columns. One is
    made for each header printed alike (`header.py`), not for each page that prints it:
    what it works out is shared by every page's rows."""

    layout: tuple[Column, ...]
    placed: list[Placed]
    #: Columns the header printed without a label, placed between their neighbours.
    unlabelled: list[Column]

    def __post_init__(self) -> None:
        #: The amount columns placed, in the order of `placed` (a tie goes to the first).
        self._figures = [p for p in self.placed if p.column.role in NUMBER_ROLES]
        numeric = sorted(p.centre for p in self._figures)
        gaps = [b - a for a, b in itertools.pairwise(numeric)]
        self.tolerance = max(12.0, 0.45 * min(gaps)) if gaps else 40.0
        self.has_balance = any(c.role == "balance" for c in self.layout)
        #: What `_figure_column` measures of each amount column, in the order of `_figures`.
        self._edges = [(p.column.role, p.column.x, p.column.align, p.x0, p.x1, p.centre)
                       for p in self._figures]
        ordered = sorted(self.placed, key=lambda p: p.x0)
        #: Each text column: where its words may start, its role, and the least right edge
        #: of an amount column's header between it and a word (`_text_column`).
        self._starts: list[tuple[float, str, float]] = []
        previous: Placed | None = None
        for p in ordered:
            if p.column.role not in NUMBER_ROLES:
                start = p.x0 - _TEXT_SLACK
                if previous is not None:
                    start = max(previous.x0 + 1, start)
                start = start if p.column.x is None else p.x0
                beyond = [f.x1 for f in self._figures if f.x0 > start and f.x1 > p.x1]
                self._starts.append((start, p.column.role, min(beyond, default=math.inf)))
            previous = p
        #: `_text_column`'s look-up, by `bisect`: the distinct starts in order, and the text
        #: column (role, edge) a word takes when it starts before the first of them (the
        #: first column; none when there are no text columns), or at or after each (the
        #: last column in `_starts` that starts there or left of it).
        self._start_xs = sorted({start for start, _, _ in self._starts})
        self._start_columns: list[tuple[str | None, float]] = [
            (role, edge) for _, role, edge in self._starts[:1]] or [(None, math.inf)]
        self._start_columns += [
            next((role, edge) for start, role, edge in reversed(self._starts) if start <= x)
            for x in self._start_xs]
        #: `_figure_role` of each place a figure of a text line was seen at: a column's
        #: figures mostly print as wide as each other, so they stand at a few places only
        #: (emptied when it holds `_PLACES_KEPT`).
        self._figures_placed: dict[tuple[float, float], str | None] = {}
        self._description: str | None = None

    def describe(self) -> str:
        """The columns' places, as `templates check` shows a header line (worked out once:
        every page's header line shows it)."""
        if self._description is None:
            spans = [f"{p.column.role}={p.column.label or '(x)'}@{p.x0:.0f}-{p.x1:.0f}"
                     for p in sorted(self.placed, key=lambda p: p.x0)]
            spans += [f"{c.role}=(no label, between neighbours)" for c in self.unlabelled]
            self._description = ", ".join(spans)
        return self._description

    def cells(self, toks: list[Token], shift: float = 0.0
              ) -> tuple[dict[str, list[Token]], list[Token]]:
        """Tokens by column role, and the tokens that stand in no column (strays); each
        token is placed `shift` points to the right of where it stands (a skewed scan's
        columns drift sideways down the page)."""
        cells: dict[str, list[Token]] = {}
        strays: list[Token] = []
        for tok in toks:
            x0, x1 = (tok.x0 + shift, tok.x1 + shift) if shift else (tok.x0, tok.x1)
            role = self._figure_column(x0, x1) if tok.amount is not None else None
            if role is None:
                role = self._text_column(x0, x1)
                if role is None:
                    strays.append(tok)
                    continue
            cells.setdefault(role, []).append(tok)
        return cells, strays

    def line_cells(self, ln: Line, locale: str, shift: float = 0.0
                   ) -> tuple[dict[str, list[Token]], list[Token]]:
        """`cells(tokens(ln, locale), shift)`. The common text line (`tokens`' first path:
        each word a token of its own) is placed word by word as it is read, with no token
        list between: this runs for every line of every table."""
        if shift or ln.ocr or " " in LOCALES[locale].group_char:
            return self.cells(tokens(ln, locale), shift)
        cells: dict[str, list[Token]] = {}
        strays: list[Token] = []
        placed, known = self._figures_placed, TEXT_WORDS[locale]
        starts, columns, reach = self._start_xs, self._start_columns, self.tolerance
        # (a `Word`'s fields unpacked at once: its named fields are slower to ask one by one)
        for text, x0, x1, _top, _bottom, _conf, _line, _ink, twice, _second, _pair in ln.words:
            marked, amount = known.get(text) or text_word(text, locale)
            if marked:  # a sign or mark to join to its figure: `tokens` reads the line
                return self.cells(tokens(ln, locale), shift)
            if amount is None:
                tok = _new(Token, (text, x0, x1, None, None, False, twice))
                # (`_text_column`, written out here, not called: it runs for every word)
                role, beyond = columns[bisect_right(starts, x0)]
                if beyond <= x1 + reach:
                    role = None
            else:
                tok = _new(Token, (text, x0, x1, amount, None, False, False))
                role = placed.get((x0, x1), _UNPLACED)
                if role is _UNPLACED:
                    if len(placed) >= _PLACES_KEPT:
                        placed.clear()
                    role = placed[x0, x1] = self._figure_role(x0, x1)
            if role is None:
                strays.append(tok)
            elif role in cells:
                cells[role].append(tok)
            else:
                cells[role] = [tok]
        return cells, strays

    def where_figures_stand(self, tok: Token) -> bool:
        """Whether `tok` stands where an amount column's figures do (a phone number or a
        postcode in a legal paragraph's line stands elsewhere)."""
        return self._figure_column(tok.x0, tok.x1) is not None

    def _figure_role(self, x0: float, x1: float) -> str | None:
        """The column a figure standing from `x0` to `x1` is placed in: an amount column
        (`_figure_column`), else a text column (`_text_column`), else none."""
        role = self._figure_column(x0, x1)
        return self._text_column(x0, x1) if role is None else role

    def _figure_column(self, x0: float, x1: float) -> str | None:
        """The amount column a figure standing from `x0` to `x1` stands nearest (a tie goes
        to the first), within the tolerance, else the one unlabelled amount column it stands
        between."""
        centre = (x0 + x1) / 2
        nearest, best = math.inf, None
        # (how far it stands from each, on the edge the column aligns on: written out here,
        # not called, as this runs for every figure and column)
        for role, span, align, left, right, middle in self._edges:
            if span is not None:
                d = 0.0 if span[0] <= centre <= span[1] else math.inf
            elif align == "left":
                d = abs(x0 - left)
            elif align == "right":
                d = abs(x1 - right)
            elif align == "center":
                d = abs(centre - middle)
            else:  # the nearest of the three (`min`'s arithmetic, without its call)
                d = abs(x0 - left)
                e = abs(x1 - right)
                if e < d:
                    d = e
                e = abs(centre - middle)
                if e < d:
                    d = e
            if d < nearest:
                nearest, best = d, role
        if best is not None and nearest <= self.tolerance:
            return best
        fits = [c for c in self.unlabelled if c.role in NUMBER_ROLES and self._between(x1, c)]
        return fits[0].role if len(fits) == 1 else None

    def _between(self, x1: float, c: Column) -> bool:
        """Whether a figure ending at `x1` stands where the unlabelled column `c` must be:
        right of the placed column before it in the layout and left of the placed one
        after it."""
        placed = {id(p.column): p for p in self.placed}
        index = self.layout.index(c)
        left = next((placed[id(o)] for o in reversed(self.layout[:index]) if id(o) in placed),
                    None)
        right = next((placed[id(o)] for o in self.layout[index + 1:] if id(o) in placed), None)
        return ((left is None or x1 > left.x1 + self.tolerance)
                and (right is None or x1 < right.x0))

    def _text_column(self, x0: float, x1: float) -> str | None:
        """The text column a word standing from `x0` to `x1` starts in, or None when an
        amount column's header stands between that column and the word (a word where only
        figures belong)."""
        role, beyond = self._start_columns[bisect_right(self._start_xs, x0)]
        # (an amount column's header stands between: its right edge is within the word's reach)
        return None if beyond <= x1 + self.tolerance else role
