"""Words to lines: the unit every layout reads."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, itemgetter, le, sub
from typing import Any, Generic, TypeVar

from parsers.dates import fold
from parsers.pdf.page import Page, Word

#: Words whose tops differ by less than this (points) share a line on a text page.
LINE_TOLERANCE = 3.0
#: Words this many times taller than the page's usual word are a watermark or a title
#: stamped across the page: they get lines of their own and never join a table row.
LARGE = 2.5
#: OCR lines spanning at least this width (points) tell the page's skew.
_SPAN = 100.0
#: A word's fields by position, not by name: a named tuple's field read by name goes
#: through a descriptor, several times slower, and these are read for every word.
_I_TEXT, _I_X0, _I_TOP, _I_BOTTOM, _I_CONF = map(
    Word._fields.index, ("text", "x0", "top", "bottom", "conf"))
_TOP_X0, _X0 = itemgetter(_I_TOP, _I_X0), itemgetter(_I_X0)
_TOP, _BOTTOM, _CONF = itemgetter(_I_TOP), itemgetter(_I_BOTTOM), itemgetter(_I_CONF)
_TEXT = itemgetter(_I_TEXT)
_LINE_TOP = attrgetter("top")
_T = TypeVar("_T")


class _kept(Generic[_T]):
    """`functools.cached_property` without its lock: Python 3.11's takes one on each
    first use, which costs more than most of a line's measures. The value is kept in the
    instance's dict, which is looked in before this descriptor from then on."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func, self.name, self.__doc__ = func, func.__name__, func.__doc__

    def __get__(self, obj: Any, owner: type | None = None) -> _T:
        if obj is None:
            return self  # type: ignore[return-value]
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@dataclass
class Line:
    """One line of a page. Its words are fixed once it is made: its text and extent are
    worked out when it is made, as nearly every line's are asked for; its other measures
    on first use, and kept."""

    page: int
    words: list[Word]
    #: Words far larger than the page's text (a watermark across the page).
    large: bool = False
    text: str = field(init=False, repr=False, compare=False)
    top: float = field(init=False, repr=False, compare=False)
    bottom: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.text = " ".join(map(_TEXT, self.words))
        self.top = min(map(_TOP, self.words))
        self.bottom = max(map(_BOTTOM, self.words))

    @_kept
    def folded(self) -> str:
        """`fold(text)`: labels are looked for in every line many times over."""
        return fold(self.text)

    @_kept
    def ocr(self) -> bool:
        """Whether OCR read a word of the line (a text layer's words carry no confidence)."""
        return any(w.conf is not None for w in self.words)

    @_kept
    def has_digit(self) -> bool:
        """Whether a word holds a digit: a line without one prints no amount and no date."""
        return any(map(str.isdigit, self.text))

    @_kept
    def height(self) -> float:
        """The median of its words' heights (`statistics.median`'s arithmetic, without its
        generic checks: asked of every line a table reads)."""
        heights = sorted([w.bottom - w.top for w in self.words])
        half = len(heights) // 2
        return heights[half] if len(heights) % 2 else (heights[half - 1] + heights[half]) / 2

    @property
    def joined(self) -> bool:
        """Whether OCR read this line as several lines, joined again here (`page_lines`)."""
        return self.ocr and len({w.line for w in self.words if w.conf is not None}) > 1


def page_lines(page: Page) -> list[Line]:
    """Group a page's words into lines, top to bottom, each left to right.

    OCR words keep tesseract's own line grouping, which follows a skewed scan; the lines it
    read apart that stand level once the page's skew is taken out are joined (`_rejoin`).
    Text-layer words share a line when their tops are close or when they overlap vertically
    by at least half the smaller height (a word set in a larger font on the same baseline).
    """
    if not page.words:
        return []
    if all(w.line is not None for w in page.words):
        by_id: dict[int, list[Word]] = {}
        for w in page.words:
            by_id.setdefault(w.line or 0, []).append(w)
        return _rejoin(page.number, list(by_id.values()))
    heights = list(map(sub, map(_BOTTOM, page.words), map(_TOP, page.words)))
    limit = LARGE * _median(heights)
    if all(map(le, heights, repeat(limit))):  # (as on nearly every page: no word is large)
        normal, large = page.words, []
    else:
        normal = [w for w, h in zip(page.words, heights, strict=True) if h <= limit]
        large = [w for w, h in zip(page.words, heights, strict=True) if h > limit]
    lines = [Line(page.number, g) for g in _group(normal)]
    lines += [Line(page.number, g, large=True) for g in _group(large)]
    if set(map(_CONF, page.words)) == {None}:
        for ln in lines:  # a text layer's words: no line was read by OCR
            ln.ocr = False
    return sorted(lines, key=_LINE_TOP)


def _median(values: list[float]) -> float:
    """`statistics.median`'s arithmetic, without its generic checks."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def _group(words: list[Word]) -> list[list[Word]]:
    """Words in lines: a word joins the line of the word above it when their tops are
    close or they overlap vertically by half the smaller height (the test is written out
    here, not called: it runs for every word of every page)."""
    groups: list[list[Word]] = []
    group: list[Word] = []
    top = bottom = 0.0  # the band of the last line's first word
    for w in sorted(words, key=_TOP_X0):
        # (`min` and `max` of two written out: each keeps its first argument on a tie)
        w_top, w_bottom = w[_I_TOP], w[_I_BOTTOM]
        if group and (-LINE_TOLERANCE <= w_top - top <= LINE_TOLERANCE or (
                (w_bottom if w_bottom < bottom else bottom) - (w_top if w_top > top else top)
                >= 0.5 * (w_bottom - w_top if w_bottom - w_top < bottom - top
                          else bottom - top))):
            group.append(w)
        else:
            group = [w]
            groups.append(group)
            top, bottom = w_top, w_bottom
    for g in groups:
        g.sort(key=_X0)
    return groups


def _rejoin(page: int, groups: list[list[Word]]) -> list[Line]:
    """OCR's lines, with those it read apart joined again: a table row whose description and
    figures stand far apart is often read as two lines, and on a skewed page the part on the
    right may come before the row above it. Lines are joined when they share no width and,
    measured square to the skew where they stand, their tops are level within half a word's
    height (rows and wrapped lines stand a whole line apart). Lines come top to bottom in
    that measure too. The skew is the page's near each line (`_local_skews`): a page
    photographed or copied off the square is skewed more at one end than at the other."""
    slopes = _local_skews(groups)
    usual = statistics.median(w.bottom - w.top for g in groups for w in g)
    keyed = sorted(((statistics.median(w.top - slope * (w.x0 + w.x1) / 2 for w in g), g)
                    for g, slope in zip(groups, slopes, strict=True)), key=lambda kg: kg[0])
    joined: list[tuple[float, list[Word]]] = []
    for key, g in keyed:
        for k, (other, words) in enumerate(joined):
            if abs(other - key) <= usual / 2 and not _overlap(words, g):
                joined[k] = (other, words + g)
                break
        else:
            joined.append((key, list(g)))
    return [Line(page, sorted(g, key=lambda w: w.x0)) for _, g in joined]


#: Lines whose tops stand within this many points of a line tell the skew where it stands,
#: where at least `_NEAR_LINES` of them span `_SPAN`; else the page's skew does.
_NEAR = 80.0
_NEAR_LINES = 3


def _local_skews(groups: list[list[Word]]) -> list[float]:
    """The skew where each of OCR's lines stands: the median slope of the lines spanning
    some width whose tops are within `_NEAR` points of its top, or the page's (`_skew`)
    where too few are. On a page scanned square every slope is the page's, within OCR's
    jitter; on one copied or photographed in perspective they change down the page."""
    page = _skew(groups)
    spans = [(g[0].top, s) for g in groups if (s := _slope(g)) is not None]
    out = []
    for g in groups:
        near = [s for top, s in spans if abs(top - g[0].top) <= _NEAR]
        out.append(statistics.median(near) if len(near) >= _NEAR_LINES else page)
    return out


def skew(lines: list[Line]) -> float:
    """The skew of the page `lines` stand on (`_skew`; 0 on a text page): a column drifts
    this many points right per point down the page, its lines' tops as many points down per
    point right."""
    return _skew([ln.words for ln in lines if ln.ocr])


def _skew(groups: list[list[Word]]) -> float:
    """The page's skew, as the slope of its lines' tops (points down per point right): the
    median over OCR's lines that span some width, from their first word to their last."""
    slopes = [s for g in groups if (s := _slope(g)) is not None]
    return statistics.median(slopes) if slopes else 0.0


def _slope(g: list[Word]) -> float | None:
    """The slope of a line's tops from its first word to its last, where it spans `_SPAN`."""
    first, last = min(g, key=lambda w: w.x0), max(g, key=lambda w: w.x1)
    span = (last.x0 + last.x1 - first.x0 - first.x1) / 2
    return (last.top - first.top) / span if span >= _SPAN else None


def _overlap(a: list[Word], b: list[Word]) -> bool:
    """Whether any word of `a` shares width with a word of `b`."""
    return any(u.x0 < v.x1 and v.x0 < u.x1 for u in a for v in b)
