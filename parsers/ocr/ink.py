"""Where a scanned page has ink left of a word, level with it: the evidence a cell is blank.

A row printed without a date (a bank that prints the date once per day) and a row whose
printed date OCR missed read alike: no date word. Only the page tells them apart, so OCR
keeps, for every word, the stretches of ink left of it on the page, whatever words OCR read
there (a word dropped later cannot make a printed date look blank). A speck of
scanner noise is a pixel or two; a glyph is strokes: a dark pixel counts only with a dark
neighbour, and a stretch only with enough such pixels to be part of a glyph.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PIL import Image

#: A pixel darker than this is ink (8-bit grey, 0 black).
DARK = 128
#: A stretch of ink holds at least this many dark pixels with a dark neighbour, per 100
#: dpi: the smallest printed glyph (`1`, `-`) holds several times as many.
_GLYPH_PIXELS = 6
#: Stretches closer than this (in points) are one: the glyphs of one word.
_JOIN = 3.0


def ink_left(image: Image.Image, boxes: Iterable[tuple[int, int, int]], dpi: int
             ) -> dict[tuple[int, int, int], tuple[tuple[float, float], ...]]:
    """For each word given as (left, top, bottom) in page pixels, the stretches of ink (x0,
    x1 in points) in its band, left of it; the band is the word's middle (its top and
    bottom fifth left out), where a neighbouring line's ink cannot reach on a slightly
    skewed page."""
    solid = _solid(np.asarray(image if image.mode == "L" else image.convert("L")) < DARK)
    to_pt = 72 / dpi
    least = _GLYPH_PIXELS * dpi / 100
    join = _JOIN / to_pt
    out = {}
    for left, top, bottom in boxes:
        cut = (bottom - top) // 5
        band = solid[top + cut:bottom - cut, :max(left - 1, 0)]
        out[(left, top, bottom)] = tuple(
            (x0 * to_pt, x1 * to_pt)
            for x0, x1 in _stretches(np.count_nonzero(band, axis=0), join, least))
    return out


def _stretches(columns: np.ndarray, join: float, least: float) -> list[tuple[int, int]]:
    """(first, past last) column of each run of inked columns, runs closer than `join`
    joined, kept when they hold at least `least` pixels."""
    inked = np.flatnonzero(columns)
    if not inked.size:
        return []
    gaps = np.flatnonzero(np.diff(inked) >= join)
    firsts = np.concatenate(([0], gaps + 1))
    held = np.add.reduceat(columns[inked], firsts).tolist()
    starts = inked[firsts].tolist()
    ends = inked[np.concatenate((gaps, [inked.size - 1]))].tolist()
    return [(a, b + 1) for a, b, n in zip(starts, ends, held, strict=True) if n >= least]


def despeckled(image: Image.Image,
               within: Iterable[tuple[int, int, int, int]] | None = None) -> Image.Image:
    """`image` (8-bit grey) without its specks: ink that holds no dark pixel with a dark
    neighbour, and is not beside one, turns white. A printed glyph, a full stop included,
    is strokes at least two pixels wide; a speck of scanner noise is a pixel, and what OCR
    reads of it (a `.` or `:` beside a word) goes with it. Given boxes (left, top, right,
    bottom, in pixels), only those are cleaned, the rest left as it is: a page's few word
    crops cost a fraction of the whole page."""
    if within is None:
        return Image.fromarray(_despeckle(np.asarray(image.convert("L"))), mode="L")
    out = image.convert("L")  # a copy
    for left, top, right, bottom in within:
        # a pixel's fate depends on the pixels up to two away (`_despeckle`)
        x0, y0 = max(left - _REACH, 0), max(top - _REACH, 0)
        x1, y1 = min(right + _REACH, image.width), min(bottom + _REACH, image.height)
        clean = _despeckle(np.asarray(image.crop((x0, y0, x1, y1)).convert("L")))
        out.paste(Image.fromarray(clean[top - y0:bottom - y0, left - x0:right - x0], mode="L"),
                  (left, top))
    return out


#: How far (in pixels, across and down) the pixels reach that decide whether one is a speck.
_REACH = 2


def _despeckle(grey: np.ndarray) -> np.ndarray:
    """`despeckled` on an array of grey pixels."""
    solid = _solid(grey < DARK)
    near = solid.copy()
    near[1:, :] |= solid[:-1, :]
    near[:-1, :] |= solid[1:, :]
    wide = near.copy()
    wide[:, 1:] |= near[:, :-1]
    wide[:, :-1] |= near[:, 1:]
    return np.where(wide, grey, 255).astype(np.uint8)


def holds_ink(image: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Whether the box (left, top, right, bottom, in pixels) of `image` holds a dark pixel
    with a dark neighbour: a stroke of a printed glyph, not a lone speck of noise."""
    return bool(_solid(np.asarray(image.crop(box).convert("L")) < DARK).any())


#: A mark whose ink is less than this share of a stroke's square (the stroke width of the
#: letters beside it, squared) is a speck: every printed stop, comma and colon of the scan
#: corpus held at least 0.44 of it, specks at most 0.25.
_SPECK_SHARE = 0.35
#: A glyph of the word is ink at least this share of the word's height tall.
_GLYPH_HEIGHT = 0.4


def speck_mark(image: Image.Image, box: tuple[int, int, int, int], right: bool) -> bool:
    """Whether the mark OCR read at the right (or left) edge of the word in `box` (left,
    top, right, bottom, in pixels) is a speck: ink apart from the word's glyphs, beyond
    the last of them, and smaller than a printed stop (a dot about a stroke wide) could
    be. False where the page does not show it apart (a mark touching a glyph)."""
    left, top, right_x, bottom = box
    pad = max(2, (bottom - top) // 4)
    dark = np.asarray(image.crop(
        (max(left - pad, 0), max(top - pad, 0), right_x + pad, bottom + pad)).convert("L")) < DARK
    dark = dark if right else dark[:, ::-1]
    parts = _components(dark)
    glyphs = [p for p in parts if p[3] - p[2] >= _GLYPH_HEIGHT * (bottom - top)]
    if not glyphs:
        return False
    edge = max(p[1] for p in glyphs)
    beyond = [p[4] for p in parts if p[0] > edge]
    _, starts, ends = _runs(dark[:, :edge + 1])
    return bool(beyond and starts.size) and \
        max(beyond) < _SPECK_SHARE * float(np.median(ends - starts)) ** 2


#: Ink beside a word at least this share of its height tall is a glyph (a digit or a
#: capital; a stop, a comma or a hyphen is shorter).
_LEFT_OUT_HEIGHT = 0.6


def unread_glyph(image: Image.Image, box: tuple[int, int, int, int],
                 reach: tuple[int, int]) -> bool:
    """Whether glyph-tall ink stands beside the word in `box` (left, top, right, bottom, in
    pixels), apart from its glyphs and within `reach` (left, right) of it: a glyph OCR left
    out of the word, whichever engine read it (`22` of a printed `221`)."""
    left, top, right, bottom = box
    start = max(left - reach[0], 0)
    dark = np.asarray(image.crop((start, top, right + reach[1], bottom)).convert("L")) < DARK
    inside = (left - start, right - start)
    return any(y1 - y0 + 1 >= _LEFT_OUT_HEIGHT * (bottom - top)
               and (x0 > inside[1] or x1 < inside[0])
               for x0, x1, y0, y1, _ in _components(dark))


def _runs(dark: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, first column, past last column) of each run of dark pixels along the rows,
    in reading order."""
    edges = np.diff(np.pad(dark, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)
    return rows, starts, ends


def _components(dark: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """(x0, x1, y0, y1, pixels) of each group of touching dark pixels (diagonals touch),
    in the order of their first pixel: the runs of each row joined to the runs of the row
    above they touch (a page's word holds a few hundred runs, thousands of pixels)."""
    rows, starts, ends = (a.tolist() for a in _runs(dark))
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    above = 0  # the first run of the row above the current run's
    for i, (y, x0, x1) in enumerate(zip(rows, starts, ends, strict=True)):
        while rows[above] < y - 1:
            above += 1
        for j in range(above, i):
            if rows[j] == y or starts[j] > x1:
                break
            if ends[j] >= x0:  # past-last columns: touching diagonally counts
                parent[root(j)] = root(i)
    out: dict[int, list[int]] = {}
    for i, (y, x0, x1) in enumerate(zip(rows, starts, ends, strict=True)):
        got = out.setdefault(root(i), [x0, x1 - 1, y, y, 0])
        got[0], got[1] = min(got[0], x0), max(got[1], x1 - 1)
        got[3] = y
        got[4] += x1 - x0
    return [(a, b, c, d, n) for a, b, c, d, n in out.values()]


def _solid(pixels: np.ndarray) -> np.ndarray:
    """The dark pixels with a dark neighbour right, left, above or below."""
    solid = np.zeros_like(pixels)
    pair = pixels[:, 1:] & pixels[:, :-1]
    solid[:, 1:] |= pair
    solid[:, :-1] |= pair
    pair = pixels[1:, :] & pixels[:-1, :]
    solid[1:, :] |= pair
    solid[:-1, :] |= pair
    return solid
