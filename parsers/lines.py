"""Words to lines: the unit every layout reads."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from parsers.reader import Page, Word

#: Words whose tops differ by less than this (points) share a line on a text page.
LINE_TOLERANCE = 3.0
#: Words this many times taller than the page's usual word are a watermark or a title
#: stamped across the page: they get lines of their own and never join a table row.
LARGE = 2.5


@dataclass
class Line:
    page: int
    words: list[Word]
    #: Words far larger than the page's text (a watermark across the page).
    large: bool = False

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def height(self) -> float:
        return statistics.median(w.bottom - w.top for w in self.words)


def page_lines(page: Page) -> list[Line]:
    """Group a page's words into lines, top to bottom, each left to right.

    OCR words keep tesseract's own line grouping, which follows a skewed scan. Text-layer
    words share a line when their tops are close or when they overlap vertically by at
    least half the smaller height (a word set in a larger font on the same baseline).
    """
    if not page.words:
        return []
    if all(w.line is not None for w in page.words):
        by_id: dict[int, list[Word]] = {}
        for w in page.words:
            by_id.setdefault(w.line or 0, []).append(w)
        lines = [Line(page.number, sorted(g, key=lambda w: w.x0)) for g in by_id.values()]
        return sorted(lines, key=lambda ln: ln.top)
    usual = statistics.median(w.bottom - w.top for w in page.words)
    normal = [w for w in page.words if w.bottom - w.top <= LARGE * usual]
    large = [w for w in page.words if w.bottom - w.top > LARGE * usual]
    lines = [Line(page.number, g) for g in _group(normal)]
    lines += [Line(page.number, g, large=True) for g in _group(large)]
    return sorted(lines, key=lambda ln: ln.top)


def _group(words: list[Word]) -> list[list[Word]]:
    groups: list[list[Word]] = []
    bands: list[tuple[float, float]] = []
    for w in sorted(words, key=lambda w: (w.top, w.x0)):
        if groups and _same_line(w, bands[-1]):
            groups[-1].append(w)
        else:
            groups.append([w])
            bands.append((w.top, w.bottom))
    return [sorted(g, key=lambda w: w.x0) for g in groups]


def _same_line(w: Word, band: tuple[float, float]) -> bool:
    top, bottom = band
    if abs(w.top - top) <= LINE_TOLERANCE:
        return True
    overlap = min(bottom, w.bottom) - max(top, w.top)
    return overlap >= 0.5 * min(bottom - top, w.bottom - w.top)
