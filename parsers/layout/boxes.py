"""Figures printed in boxes: a row of values with a label over each (a card's summary,
`Opening Balance | Payment/Credits | Purchase/Debits | Total Dues`), read by geometry.

A summary box sets its labels in cells over a row of figures, a label often over two lines
(`Opening` over `Balance`), sometimes with the operators of its sum between the cells (`+`,
`-`, `=`), and boxes of different heights side by side. So each value's cell is bounded by
the words beside it on its own line (halfway to each), and its label is the words above it
whose middle stands in the cell, line by line up the page, until a line prints a figure
there or the words stop. Where the words above a row of values make as many labels as there
are values, split at gaps and operators (`Previous Balance - Payments - Credits + ...`), and
each stands near its value, they are paired in order: labels set flush left over figures
set flush right drift across the cells' middles. What a label means is the vocabulary's to
say; this module only pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parsers.layout.tokens import Token, tokens
from parsers.numbers import Amount
from parsers.pdf.lines import Line

#: Words that join the figures of a box's sum, or mark its currency: never a label.
_OPERATORS = frozenset({"+", "-", "=", "−", "–", "|", "/", "rs", "rs.", "inr", "r", "₹"})
#: A sign standing alone: in a box, the operator of its sum.
_SIGNS = frozenset({"+", "-", "=", "−", "–"})
#: A label's first line stands at most this many of the value line's heights above it, each
#: line of a label at most this many of its own heights above the one under it, and a label
#: is at most this many lines.
_FIRST, _NEXT, _LINES = 2.5, 1.0, 3
#: Words of one label stand closer than this many heights apart (a space; labels of
#: cells side by side stand further apart).
_GAP = 0.5


@dataclass(frozen=True)
class Boxed:
    """A value and the label over it."""

    label: str
    value: Amount
    #: The line printing the value, and the value's extent on it.
    line: Line
    x0: float
    x1: float


def boxed_figures(lines: Sequence[Line], locale: str) -> list[Boxed]:
    """Every value of `lines` that has a label over it, page by page, top to bottom."""
    out: list[Boxed] = []
    for i, ln in enumerate(lines):
        if not ln.has_digit:
            continue
        toks = _box_tokens(ln, locale)
        height = ln.bottom - ln.top
        # (a figure with a word right before it is labelled on its line: `Saldo inicial: $`)
        values = [k for k, t in enumerate(toks) if t.amount is not None and not (
            k and toks[k - 1].amount is None and toks[k - 1].text.lower() not in _OPERATORS
            and t.x0 - toks[k - 1].x1 < 2 * height)]
        if not values:
            continue
        cells = [_cell(toks, k) for k in values]
        labels = _labels_above(lines, i, cells, locale)
        for k, label in zip(values, labels, strict=True):
            if label:
                t = toks[k]
                out.append(Boxed(label, t.amount, ln, t.x0, t.x1))  # type: ignore[arg-type]
    return out


def _box_tokens(ln: Line, locale: str) -> list[Token]:
    """The line's tokens, an operator standing alone between figures (`40,803.31 - 40,804.00
    + 56,857.18`) kept apart: in a box it joins two figures, it signs neither."""
    out: list[Token] = []
    run: list = []
    for w in [*ln.words, None]:
        if w is None or w.text in _SIGNS:
            if run:
                out += tokens(Line(ln.page, run), locale)
                run = []
            if w is not None:
                out.append(Token(w.text, w.x0, w.x1))
        else:
            run.append(w)
    return out


def _cell(toks: list[Token], k: int) -> tuple[float, float]:
    """The span of the value `toks[k]`'s cell: halfway to the tokens beside it on its line,
    or as wide again as the value where nothing stands beside it."""
    t = toks[k]
    width = t.x1 - t.x0
    left = (toks[k - 1].x1 + t.x0) / 2 if k > 0 else t.x0 - width
    right = (t.x1 + toks[k + 1].x0) / 2 if k + 1 < len(toks) else t.x1 + width
    return left, right


def _labels_above(lines: Sequence[Line], i: int, cells: list[tuple[float, float]],
                  locale: str) -> list[str]:
    """The label over each cell of `lines[i]`: each cell's words from the lines above,
    top to bottom."""
    ln = lines[i]
    height = max(ln.bottom - ln.top, 1.0)
    parts: list[list[str]] = [[] for _ in cells]
    #: per cell: the top of its label's highest line so far (the value line's, at first)
    below: list[float] = [ln.top for _ in cells]
    closed = [False for _ in cells]
    for above in reversed(lines[:i]):
        if above.page != ln.page or ln.top - above.bottom > _FIRST * height + _NEXT * (
                above.bottom - above.top) * _LINES:
            break
        groups = _groups(above, cells, locale)
        for c, words in _pair(groups, cells).items():
            if closed[c]:
                continue
            first = below[c] == ln.top
            gap = below[c] - above.bottom
            if any(w.amount is not None for w in words) or len(parts[c]) == _LINES or gap > (
                    _FIRST * height if first else _NEXT * (above.bottom - above.top)):
                closed[c] = True  # a figure above, or no more of this label
                continue
            parts[c].insert(0, " ".join(w.text for w in words))
            below[c] = above.top
        if all(closed):
            break
    return [" ".join(p) for p in parts]


def _groups(ln: Line, cells: list[tuple[float, float]], locale: str) -> list[list[Token]]:
    """The line's words over the cells' span, in groups split at gaps and operators."""
    start, end = cells[0][0], cells[-1][1]
    height = max(ln.bottom - ln.top, 1.0)
    groups: list[list[Token]] = []
    for w in tokens(ln, locale):
        middle = (w.x0 + w.x1) / 2
        if not start <= middle <= end:
            continue
        text = w.text.lstrip("=+-")
        if not text or text.lower() in _OPERATORS:
            groups.append([])
            continue
        if groups and groups[-1] and text == w.text and w.x0 - groups[-1][-1].x1 <= _GAP * height:
            groups[-1].append(w._replace(text=text))
        else:
            groups.append([w._replace(text=text)])
    return [g for g in groups if g]


def _pair(groups: list[list[Token]], cells: list[tuple[float, float]]
          ) -> dict[int, list[Token]]:
    """Cell index -> the words set over it: the groups in order where there are as many as
    cells and each stands over or beside its own; else each word to the cell its middle
    stands in (two labels printed close together make one group)."""
    def middle(words: list[Token]) -> float:
        return (words[0].x0 + words[-1].x1) / 2

    if len(groups) == len(cells) and all(
            abs(middle(g) - (left + right) / 2) <= right - left
            for g, (left, right) in zip(groups, cells, strict=True)):
        return dict(enumerate(groups))
    out: dict[int, list[Token]] = {}
    for w in (w for g in groups for w in g):
        for c, (left, right) in enumerate(cells):
            if left <= middle([w]) <= right:
                out.setdefault(c, []).append(w)
                break
    return out
