"""Finding a table's header among its lines, and the columns it places.

A header is the line (or two or three stacked lines: `Money` over `out`) that prints the
labels of one of the template's layouts; which layout it prints, and where each label
stands, make its `Geometry`. A statement prints its header on page after page, so what a
header's words make is kept, and only the few lines that print a label word are tried.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from typing import NamedTuple

from parsers.layout.geometry import Geometry, Placed
from parsers.layout.line_scan import lines_holding
from parsers.layout.template import (
    NUMBER_ROLES,
    Column,
    Template,
    folded_header_words,
    header_words,
    unmarked,
)
from parsers.pdf.lines import Line


@functools.lru_cache(maxsize=4096)
def _norm(text: str) -> tuple[str, ...]:
    """`header_words(text)`, kept: a statement prints its header's words on every page."""
    return tuple(header_words(text))


def _header_tokens(group: list[Line], known: frozenset[str] = frozenset()
                   ) -> tuple[tuple[str, float, float], ...]:
    """(word, x0, x1) of a header printed on `group`'s lines; words stacked over each other
    (`Money` over `out`) become one cell spanning both, and two labels printed so close that
    they read as one word (`BUCHUNGSTAGVALUTA`) are split again where `known` words meet."""
    if len(group) == 1:
        return tuple(part for w in group[0].words for t in _norm(w.text)
                     for part in _split_glued(t, w.x0, w.x1, known))
    words = sorted((w for ln in group for w in ln.words), key=lambda w: w.x0)
    stacks: list[list] = []
    for w in words:
        for s in stacks:
            if w.x0 < max(o.x1 for o in s) and w.x1 > min(o.x0 for o in s) and \
                    all(abs(o.top - w.top) > 2 for o in s):
                s.append(w)
                break
        else:
            stacks.append([w])
    out = []
    for s in sorted(stacks, key=lambda s: min(o.x0 for o in s)):
        x0, x1 = min(o.x0 for o in s), max(o.x1 for o in s)
        for w in sorted(s, key=lambda o: o.top):
            out += [(t, x0, x1) for t in _norm(w.text)]
    return tuple(out)


def _split_glued(token: str, x0: float, x1: float, known: frozenset[str]
                 ) -> list[tuple[str, float, float]]:
    """`token` as the known label words it is made of (spans shared out by letters), or as
    itself when it is one word or not made of known words."""
    if token in known or len(token) < 6:
        return [(token, x0, x1)]
    for cut in range(3, len(token) - 2):
        head, tail = token[:cut], token[cut:]
        if head in known:
            rest = _split_glued(tail, x0 + (x1 - x0) * cut / len(token), x1, known)
            if all(t in known for t, _, _ in rest):
                return [(head, x0, x0 + (x1 - x0) * cut / len(token)), *rest]
    return [(token, x0, x1)]


@functools.lru_cache(maxsize=1024)
def _match_layout(layout: tuple[Column, ...], toks: tuple[tuple[str, float, float], ...]
                  ) -> Geometry | None:
    """The geometry of the columns of `layout` placed by the header words `toks` (those
    missing placed between their neighbours), or None when they make no header of it;
    kept, as a statement prints its header, and the lines that print a label word without
    being one, on page after page."""
    used: set[int] = set()
    found: dict[int, Placed] = {}
    # where each word stands: a label can start only where its first word does
    at: dict[str, list[int]] = {}
    for k, (word, _, _) in enumerate(toks):
        at.setdefault(word, []).append(k)
    for i, parts in _label_parts(layout):
        if i in found:
            continue
        # (a label of punctuation only has no first word: it is tried everywhere)
        starts = at.get(parts[0], []) if parts else range(len(toks) + 1)
        for start in (k for k in starts if k <= len(toks) - len(parts)):
            span = range(start, start + len(parts))
            if used.isdisjoint(span) and tuple(toks[k][0] for k in span) == parts:
                used.update(span)
                c = layout[i]
                found[i] = (Placed(c, *c.x) if c.x is not None else
                            Placed(c, toks[start][1], toks[start + len(parts) - 1][2]))
                break
    for i, c in enumerate(layout):
        if i not in found and c.x is not None:
            found[i] = Placed(c, c.x[0], c.x[1])
    labelled = [i for i in found if layout[i].labels]
    missing = [c for i, c in enumerate(layout) if i not in found]
    if any(not c.optional for c in missing) or len(labelled) < min(3, len(layout)):
        return None
    if not any(layout[i].role in NUMBER_ROLES and layout[i].role != "balance"
               for i in labelled):
        return None
    return Geometry(layout, [found[i] for i in sorted(found)], missing)


@functools.cache
def _label_parts(layout: tuple[Column, ...]) -> list[tuple[int, tuple[str, ...]]]:
    """(column index, header words) of every label of `layout`, in the order a header is
    matched: the labels of most words first (worked out once per layout, not per line)."""
    ordered = sorted(((len(_norm(lb)), i, lb) for i, c in enumerate(layout)
                      for lb in c.labels), reverse=True)
    return [(i, _norm(label)) for _, i, label in ordered]


class Header(NamedTuple):
    """A header printed in a table: its columns, how many lines it takes, and where it
    stands down the page (points)."""

    geometry: Geometry
    lines: int
    top: float


def match_header(lines: list[Line], i: int, t: Template) -> Header | None:
    """The header printed at `lines[i]` (on up to three stacked lines)."""
    first = lines[i]
    words = folded_header_words(first.folded)
    if _label_words(t).isdisjoint(words):
        return None
    for depth in (1, 2, 3):
        group = lines[i:i + depth]
        if len(group) < depth or any(b.page != first.page or b.top - a.bottom > a.height
                                     for a, b in itertools.pairwise(group)):
            return None
        if depth > 1 and (any(ch.isdigit() for ln in group for ch in ln.text)
                          or not set(words) & _label_words(t)
                          or _single(group[-1], t)):
            return None
        toks = _header_tokens(group, _label_words(t))
        best: Geometry | None = None
        for layout in t.layouts:
            m = _match_layout(layout, toks)
            if m is not None and (best is None or len(m.placed) > len(best.placed)):
                best = m
        if best is not None:
            return Header(best, depth, first.top)
    return None


def printing_header_words(words: frozenset[str], folded: list[str]) -> Iterator[int]:
    """The index of each of the lines (their `folded` texts) that prints one of the header
    words `words`. Their texts are stripped as header words are (`unmarked`) in one pass,
    and only the few lines that hold such a word somewhere (`lines_holding`) are split
    into words: most lines of a table print none."""
    bare = unmarked("\n".join(folded)).split("\n")
    if len(bare) != len(folded):  # a text holding a line break itself (no printed line's)
        bare = [unmarked(text) for text in folded]
    return (i for i in lines_holding(words, bare) if not words.isdisjoint(bare[i].split()))


def _single(ln: Line, t: Template) -> bool:
    """Whether `ln` is a header on its own (so it is not the lower half of a stacked one)."""
    toks = _header_tokens([ln], _label_words(t))
    return any(_match_layout(layout, toks) for layout in t.layouts)


def _label_words(t: Template) -> frozenset[str]:
    return t.header_words
