"""The figure columns of a table no template describes: the figures that end a line, and
which column each stands in.

Figures are right-aligned as a rule, but not always (a `CR` set after a figure, a column
aligned on its left edge or centred), so a column is found from how its figures line up
over every dated line, and a figure is placed by the edge its column aligns on.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

from parsers.generic.found import Table
from parsers.layout.tokens import Token, figures_at_end, tail_tokens
from parsers.pdf.lines import Line

#: A `CR` or `DR` word.
_SIDE = re.compile(r"(?i:cr|dr)\.?")
#: Right edges closer than this (points) are one column.
COLUMN_SLACK = 6.0


def trailing(toks: list[Token]) -> tuple[list[Token], list[Token]]:
    """(the words, the figures that end the line); a `CR`/`DR` set in a column of its own
    after a figure (`11,000.00   DR   3,328.63   CR`) is that figure's."""
    i, figures = len(toks), []
    while i > 0:
        t = toks[i - 1]
        if t.amount is not None:
            figures.append(t)
            i -= 1
        elif i > 1 and _SIDE.fullmatch(t.text) and (f := toks[i - 2]).amount is not None \
                and not f.amount.suffix:
            side = t.text.upper().rstrip(".")
            figures.append(f._replace(amount=replace(f.amount, suffix=side)))
            i -= 2
        else:
            break
    return toks[:i], figures[::-1]


def end_figures(ln: Line, locale: str) -> list[Token]:
    """`figures_at_end`, a `CR`/`DR` set apart after each figure taken as `trailing` takes
    it (read from the line's `tail_tokens`: a `CR`/`DR` is a mark, so it stands in them)."""
    figures = figures_at_end(ln, locale)
    if figures or not ln.words or not _SIDE.fullmatch(ln.words[-1].text):
        return figures
    return trailing(tail_tokens(ln, locale))[1]



def find_columns(figures: list[tuple[Token, Line]], rows: int
             ) -> tuple[list[float], list[tuple[str, float]]]:
    """(each column's right edge, and how its figures align: `right`, `left` or `centre`,
    and where), left to right. Figures are clustered by their right edges (a figure printed
    with a `CR`/`DR` word after it by either end: `23,902.00 Cr` may align on its digits or
    on its `Cr`), their left ones and their middles; the cluster holding the most figures
    not yet placed, and of as many the tighter, is a column, until the clusters left hold a
    stray figure or two (a dated note)."""
    least = 2 if rows >= 10 else 1
    right = [(k, x) for k, (t, ln) in enumerate(figures) for x in {t.x1, digits_x1(t, ln)}]
    left = [(k, t.x0) for k, (t, _) in enumerate(figures)]
    centre = [(k, (t.x0 + t.x1) / 2) for k, (t, _) in enumerate(figures)]
    clusters = [(side, group) for side, edges in (("right", right), ("left", left),
                                                  ("centre", centre))
                for group in _clustered(edges)]
    placed: set[int] = set()
    found: list[tuple[float, str, float]] = []
    while True:
        free = [(len(members), -(max(xs) - min(xs)), side, members, xs)
                for side, group in clusters
                if (members := {k for k, _ in group if k not in placed})
                and (xs := [x for k, x in group if k not in placed])]
        best = max(free, key=lambda c: c[:2], default=None)
        if best is None or best[0] < least:
            break
        _, _, side, members, xs = best
        placed.update(members)
        found.append((statistics.median(figures[k][0].x1 for k in members), side,
                      statistics.median(xs)))
    found.sort()
    return [x1 for x1, _, _ in found], [(side, x) for _, side, x in found]


def _clustered(edges: list[tuple[int, float]]) -> list[list[tuple[int, float]]]:
    """(figure, edge) pairs grouped where the edges stand within `COLUMN_SLACK` of the one
    before."""
    groups: list[list[tuple[int, float]]] = []
    last = 0.0
    for k, x in sorted(edges, key=lambda e: e[1]):
        if groups and x - last <= COLUMN_SLACK:
            groups[-1].append((k, x))
        else:
            groups.append([(k, x)])
        last = x
    return groups


def digits_x1(tok: Token, ln: Line) -> float:
    """Where a figure's digits end: the right edge of its last word with a digit (a `CR`
    or a currency code may follow them as a word of its own)."""
    if " " not in tok.text:
        return tok.x1
    return max((w.x1 for w in ln.words if tok.x0 <= w.x0 and w.x1 <= tok.x1
                and any(map(str.isdigit, w.text))), default=tok.x1)


def column_of(table: Table, tok: Token, ln: Line) -> int | None:
    """The column (index) the figure `tok` of line `ln` stands in, by the edge the column
    aligns on; None where it stands in none."""
    anchors = table.anchors or [("right", x) for x in table.columns]
    for i, (side, x) in enumerate(anchors):
        if side == "left":
            if abs(tok.x0 - x) <= COLUMN_SLACK:
                return i
        elif side == "centre":
            if abs((tok.x0 + tok.x1) / 2 - x) <= COLUMN_SLACK:
                return i
        elif abs(tok.x1 - x) <= COLUMN_SLACK or abs(digits_x1(tok, ln) - x) <= COLUMN_SLACK:
            return i
    return None

