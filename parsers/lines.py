"""Words to lines: the unit every layout reads."""

from __future__ import annotations

from dataclasses import dataclass

from parsers.reader import Page, Word

#: Words whose tops differ by less than this (points) share a line on a text page.
LINE_TOLERANCE = 3.0
_SUFFIXES = {"CR", "DR"}


@dataclass
class Line:
    page: int
    words: list[Word]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)


def page_lines(page: Page) -> list[Line]:
    """Group a page's words into lines, top to bottom, each left to right.

    OCR words keep tesseract's own line grouping, which follows a skewed scan; text-layer
    words are grouped by height.
    """
    groups: list[list[Word]] = []
    if page.words and all(w.line is not None for w in page.words):
        by_id: dict[int, list[Word]] = {}
        for w in page.words:
            by_id.setdefault(w.line or 0, []).append(w)
        groups = list(by_id.values())
    else:
        for w in sorted(page.words, key=lambda w: (w.top, w.x0)):
            if groups and abs(w.top - groups[-1][0].top) <= LINE_TOLERANCE:
                groups[-1].append(w)
            else:
                groups.append([w])
    lines = [Line(page.number, _merge_suffixes(sorted(g, key=lambda w: w.x0))) for g in groups]
    return sorted(lines, key=lambda ln: ln.top)


def _merge_suffixes(words: list[Word]) -> list[Word]:
    """Keep `123.45 CR` one word, so that a sign suffix stays with its amount."""
    out: list[Word] = []
    for w in words:
        if out and w.text.upper().rstrip(".") in _SUFFIXES and w.x0 - out[-1].x1 < 8:
            prev = out.pop()
            w = Word(f"{prev.text} {w.text}", prev.x0, w.x1, min(prev.top, w.top),
                     max(prev.bottom, w.bottom), prev.conf, prev.line)
        out.append(w)
    return out
