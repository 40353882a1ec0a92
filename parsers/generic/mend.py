"""Lines as a table means them: a column of serial numbers set aside, a row that its
cells' vertical centring split over two lines joined again.

Some tables number their rows (`Sl. No. | Date | Description ...`): the number stands
before the date, where the reader looks for a row's date. Some centre each cell in a row
whose description wraps, so the date sits half a line below the figures and the two read
as separate lines. Both are put right before the table is looked for, on new `Line`s that
replace the old ones for the whole reading.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from parsers.pdf.lines import Line

#: A figure with two decimals, in any grouping (`1,234.56`, `1.234,56`, `2 795.35`).
_FIGURE = re.compile(r"\d[.,]\d\d(?!\d)")
#: A `CR` or `DR` word.
_SIDE = re.compile(r"(?i:cr|dr)\.?")
#: Serial numbers stand this close to one another's left edge (points).
_SLACK = 6.0
#: The fewest numbered rows that make a column of serial numbers.
_FEWEST = 3


def mend(lines: list[Line], dated: Callable[[Line], bool]) -> list[Line]:
    """`lines` with serial numbers before the rows' dates dropped and split rows joined;
    `dated(line)` tells whether a line starts with a date."""
    return _join_split_rows(_drop_serials(lines, dated), dated)


def lift_suffixes(lines: list[Line]) -> list[Line]:
    """A `CR` or `DR` printed alone at the end of a line (no figure of its own before it),
    under a figure, right where the figure ends, is that figure's (`40,804.00` over `Card
    Number XXXX-01007 CR`): moved up to the figure's line, so that every reader sees the
    figure signed as printed."""
    out: list[Line] = []
    for ln in lines:
        above = out[-1] if out else None
        w = ln.words[-1]
        own = len(ln.words) > 1 and _FIGURE.search(ln.words[-2].text) is not None
        if above is not None and above.page == ln.page and _SIDE.fullmatch(w.text) and not own \
                and ln.top - above.bottom <= above.bottom - above.top \
                and _FIGURE.search(above.words[-1].text) \
                and above.words[-1].x0 < w.x0 <= above.words[-1].x1 + 2:
            figure = above.words[-1]
            moved = w._replace(top=figure.top, bottom=figure.bottom, x0=figure.x1 + 1,
                               x1=figure.x1 + 1 + w.x1 - w.x0)
            out[-1] = Line(above.page, [*above.words, moved], large=above.large)
            if len(ln.words) == 1:
                continue
            ln = Line(ln.page, ln.words[:-1], large=ln.large)
        out.append(ln)
    return out


def _serial(ln: Line) -> tuple[int, int] | None:
    """(how many words, the number) of a serial number that starts the line: one or two
    words of digits set touching (`1` `0` for 10), up to four digits."""
    words = ln.words
    if not words or not words[0].text.isdigit():
        return None
    n, text = 1, words[0].text
    if len(words) > 2 and words[1].text.isdigit() and words[1].x0 - words[0].x1 < 1.0:
        n, text = 2, text + words[1].text
    return (n, int(text)) if len(text) <= 4 and len(words) > n else None


def _drop_serials(lines: list[Line], dated: Callable[[Line], bool]) -> list[Line]:
    """Lines whose serial number, then a date, start them lose the number: where at least
    `_FEWEST` do, at one left edge, numbered one after the other."""
    found = []
    for i, ln in enumerate(lines):
        serial = _serial(ln)
        if serial is not None and dated(Line(ln.page, ln.words[serial[0]:])):
            found.append((i, serial))
    if len(found) < _FEWEST:
        return lines
    edge = sorted(lines[i].words[0].x0 for i, _ in found)[len(found) // 2]
    found = [(i, s) for i, s in found if abs(lines[i].words[0].x0 - edge) <= _SLACK]
    numbers = [s[1] for _, s in found]
    steps = sum(abs(b - a) == 1 for a, b in itertools.pairwise(numbers))
    if len(found) < _FEWEST or steps < 0.8 * (len(numbers) - 1):
        return lines
    out = list(lines)
    for i, (n, _) in found:
        out[i] = Line(lines[i].page, lines[i].words[n:], large=lines[i].large)
    return out


def _has_figure(ln: Line) -> bool:
    return any(_FIGURE.search(w.text) for w in ln.words)


def _join_split_rows(lines: list[Line], dated: Callable[[Line], bool]) -> list[Line]:
    """A line with figures and no date and the next one with a date and no figures are
    one row when they overlap on the page (their cells centred on the row) and share no
    width: joined, left to right."""
    out: list[Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        if prev is not None and prev.page == ln.page and ln.top < prev.bottom \
                and not _overlap(prev, ln) and _halves(prev, ln, dated):
            out[-1] = Line(ln.page, sorted(prev.words + ln.words, key=lambda w: w.x0))
            continue
        out.append(ln)
    return out


def _halves(a: Line, b: Line, dated: Callable[[Line], bool]) -> bool:
    """Whether one of the lines is a row's date alone and the other its figures alone."""
    return any(dated(d) and not _has_figure(d) and _has_figure(f) and not dated(f)
               for d, f in ((a, b), (b, a)))


def _overlap(a: Line, b: Line) -> bool:
    return any(u.x0 < v.x1 and v.x0 < u.x1 for u in a.words for v in b.words)
