"""Reading ahead of a line of a table no template describes: which row it is part of, where
that is only known from the lines under it.

A line of words alone may begin the row under it (a description centred beside its date),
end the row above, or carry the last row of a page over to the next; a dated line without
figures may print them on its last line, under its description. Each question looks down
the page from the line and answers from the lines' places, not their words.
"""

from __future__ import annotations

import itertools

from parsers.generic.columns import column_of, end_figures
from parsers.generic.found import Table
from parsers.generic.shapes import follows, is_header, left_of_figures
from parsers.layout.tokens import tokens
from parsers.pdf.lines import Line


def opens_next(lines: list[Line], i: int, leads: dict[int, int], last: Line | None,
                row_gap: float | None) -> Line | None:
    """The dated line under `lines[i]` (a line of description only) whose row it begins:
    where it starts where that line's description does, and it and the lines between stand
    closer to that line than `lines[i]` stands to `last`, the line above it (at the top of
    a page or the table: than two adjacent rows stand apart, `row_gap`). None where the
    lines are evenly spaced (a wrapped description of the row above)."""
    ln = lines[i]
    if last is not None and last.page == ln.page:
        above = ln.top - last.bottom
    elif row_gap is not None:
        above = row_gap
    else:
        return None
    prev = ln
    for nx in lines[i + 1:]:
        if nx.page != ln.page or id(nx) not in leads or nx.top - prev.bottom > above - 1.0:
            return None
        if leads[id(nx)]:  # and where that line's description starts
            n = leads[id(nx)]
            starts = nx.words[n].x0 if len(nx.words) > n else None
            return nx if starts is not None and abs(ln.words[0].x0 - starts) <= 4 else None
        prev = nx
    return None



def row_gap(lines: list[Line], leads: dict[int, int]) -> float | None:
    """How far apart two dated lines that follow each other on a page stand (the median):
    the space between two rows of one line each."""
    gaps = sorted(b.top - a.bottom for a, b in itertools.pairwise(lines)
                  if a.page == b.page and leads.get(id(a)) and leads.get(id(b)))
    return gaps[len(gaps) // 2] if gaps else None



def bottom_aligned(lines: list[Line], i: int, leads: dict[int, int], table: Table
                   ) -> list[Line]:
    """The lines after the dated `lines[i]`, which prints no figures, down to the one that
    prints its figures: lines of description only, each right under the one before (or at
    the top of the next page), then a line without a date whose figures stand in the
    columns, before any other date. Empty where the figures of the date's row are not so
    printed (a value date, say, under its row)."""
    block: list[Line] = []
    prev = lines[i]
    for ln in lines[i + 1:]:
        if id(ln) not in leads:
            continue  # a page's header or footer, between the row's lines
        if leads[id(ln)] or not follows(prev, ln) or is_header(ln):
            return []
        figures = end_figures(ln, table.locale)
        if figures:
            if all(column_of(table, t, ln) is not None for t in figures):
                return [*block, ln]
            return []
        if not left_of_figures(ln, table):
            return []
        block.append(ln)
        prev = ln
    return []



def runs_on(lines: list[Line], i: int, leads: dict[int, int], table: Table,
             desc_x0: float) -> bool:
    """Whether `lines[i]` and those right under it, up to a dated row, may be more of the
    description of the last row of the page before: words only, starting where descriptions
    start, left of the figures, and the next row right under them."""
    for k in range(i, len(lines)):
        ln = lines[k]
        if k > i and (ln.page != lines[i].page or not follows(lines[k - 1], ln)):
            return False
        if leads.get(id(ln)):
            return k > i
        if is_header(ln) or abs(ln.words[0].x0 - desc_x0) > 4 or not left_of_figures(
                ln, table) or any(t.amount is not None for t in tokens(ln, table.locale)):
            return False
    return False

