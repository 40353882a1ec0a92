"""The default text reader: words with positions from PDFium's text page, in bulk.

Same `PageReader` interface as pdfplumber's reader, and the same words: a word is a run of
characters between spaces, split where pdfplumber (`x_tolerance=1.5, y_tolerance=3`) would
split it and joined where it would join it. The page's text comes from PDFium in one call;
boxes are asked for only at the two ends of each run (PDFium's loose boxes: the advance
width across, the font's full height, so words on one printed line share a top), a few C
calls per word instead of two Python calls per character. Characters are looked at one by
one only where pdfplumber's rules could cut a run differently from PDFium's own spacing:
a run drawn from several text objects, set in a font large enough for PDFium to leave a
wide gap without a space, or turned. Characters set at an angle are left out, as the
pdfplumber reader leaves them out. Runs drawn apart that touch on one line are joined in reading
order as pdfplumber joins them (it sorts each line by x; PDFium keeps the drawing order).
Where such a join crosses a word break PDFium's text page sees (a space or line break of its
own between the runs), the word is noted on the page with PDFium's parting of it
(`Page.parted`): a description takes that parting (`breaks.py`), a figure never does.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
import struct
import time
from collections.abc import Mapping
from operator import itemgetter
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, ParseTimeout
from parsers.limits import Limits
from parsers.ocr.layer import scanned_beneath, third_witness
from parsers.pdf.boundary import library_errors
from parsers.pdf.page import (
    TURNED,
    UNDECODABLE,
    UNMAPPED,
    OcrFn,
    Page,
    Word,
    blank_note,
    draws_nothing,
    undecodable_note,
)
from parsers.pdf.pdfium import LOCK, direct
from parsers.pdf.preflight import open_document
from parsers.pdf.textmaps import repair_text_maps

#: pdfplumber's `x_tolerance`: a wider gap between two characters starts a new word.
WORD_GAP = 1.5
#: pdfplumber's `y_tolerance`: characters whose tops differ more are not one word.
WORD_RISE = 3.0
#: Loose boxes taller than this (points) belong to fonts of about 11 pt and more, where a
#: kerning gap over `WORD_GAP` inside one drawing may not make PDFium put in a space (its
#: threshold grows with the font size; a run over several drawings is checked anyway).
TALL = 12.5
_TOKEN = re.compile(r"\S+")
SOFT_HYPHEN = "\ufffe"
_TEXT, _X0, _TOP, _X0_CHAR = itemgetter(0), itemgetter(1), itemgetter(3), itemgetter(0)
_new = tuple.__new__
#: An `FS_RECTF`'s four floats (left, top, right, bottom) in one call, not four lookups.
_unpack_box = struct.Struct("4f").unpack_from
#: A run of characters read as one word so far: (text, x0, x1, top, bottom, its last
#: character's x0 and top, the index after that character).
Run = tuple[str, float, float, float, float, float, float, int]
_load_page = direct(pdfium_c.FPDF_LoadPage, ctypes.c_void_p)
_load_textpage = direct(pdfium_c.FPDFText_LoadPage, ctypes.c_void_p)
_close_textpage = direct(pdfium_c.FPDFText_ClosePage, None)
_close_page = direct(pdfium_c.FPDF_ClosePage, None)
_page_width = direct(pdfium_c.FPDF_GetPageWidthF, ctypes.c_float)
_page_height = direct(pdfium_c.FPDF_GetPageHeightF, ctypes.c_float)
_count_chars = direct(pdfium_c.FPDFText_CountChars)
_rotation = direct(pdfium_c.FPDFPage_GetRotation)
_get_text = direct(pdfium_c.FPDFText_GetText)


def _held(binding: Any, restype: Any = ctypes.c_int) -> Any:
    """`direct`, but called without letting go of the GIL: these calls are made a few
    times per word and each is over in well under a microsecond, less than releasing the
    GIL and taking it back costs (`LOCK` keeps other threads out of PDFium anyway)."""
    return ctypes.PYFUNCTYPE(restype)(ctypes.cast(binding, ctypes.c_void_p).value)


#: (declared void: its result, a success flag, is never read, and for a void function
#: ctypes converts no result; for an int it looks up a converter on every call)
_loose_box = _held(pdfium_c.FPDFText_GetLooseCharBox, None)
_count_rects = _held(pdfium_c.FPDFText_CountRects)
_is_generated = _held(pdfium_c.FPDFText_IsGenerated)
_unicode = _held(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint)
_angle = _held(pdfium_c.FPDFText_GetCharAngle, ctypes.c_float)


class PdfiumReader:
    def __init__(self, ocr: OcrFn | None = None) -> None:
        self._ocr = ocr

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        started = time.monotonic()
        data = repair_text_maps(data)
        with LOCK:
            doc = open_document(data, limits)
        try:
            with library_errors("PDFium"):
                return [self._page(doc, index, limits, started) for index in range(len(doc))]
        finally:
            with LOCK:
                doc.close()

    def _page(self, doc: pdfium.PdfDocument, index: int, limits: Limits,
              started: float) -> Page:
        if time.monotonic() - started > limits.seconds_per_file:
            raise ParseTimeout(f"reading stopped after {limits.seconds_per_file:.0f} s at "
                               f"page {index + 1}")
        with LOCK:
            width, height, words, imaged, parted = _read_page(doc, index)
        out = Page(index + 1, width, height, words, parted=parted)
        if not words:
            self._blank_or_scanned(doc, index, limits, out)
        elif imaged and self._ocr is not None:
            self._scanned_beneath(doc, index, limits, out)
        # (looked for in all the words' text at once: nearly every page has none)
        if UNDECODABLE in "".join(map(_TEXT, out.words)):
            out.problems.append(
                undecodable_note(index, sum(UNDECODABLE in w.text for w in out.words)))
        return out

    def _scanned_beneath(self, doc: pdfium.PdfDocument, index: int, limits: Limits,
                         out: Page) -> None:
        """A page whose text layer transcribes its own image: read by OCR from the image
        alone, the layer a third witness (`layer.py`)."""
        if self._ocr is None:
            raise RuntimeError("a scanned page to read, and no OCR engine configured")
        with LOCK:
            page = doc[index]
        try:
            if scanned_beneath(page, out.words):
                out.words, out.ocr = third_witness(self._ocr(page, index, limits),
                                                   out.words), True
        finally:
            with LOCK:
                page.close()

    def _blank_or_scanned(self, doc: pdfium.PdfDocument, index: int, limits: Limits,
                          out: Page) -> None:
        """A page without words: noted when it draws nothing, else read by OCR if any.
        (pypdfium2's page object, which both take, is made only here, for these pages.)"""
        with LOCK:
            page = doc[index]
        try:
            if draws_nothing(page):
                out.problems.append(blank_note(index))
            elif self._ocr is not None:
                out.words, out.ocr = self._ocr(page, index, limits), True
        finally:
            with LOCK:
                page.close()


def _read_page(doc: pdfium.PdfDocument, index: int
               ) -> tuple[float, float, list[Word], bool, dict[str, str]]:
    """A page's width, height and words, whether an image of its own drawn at its top
    level covers most of it (a scan's page may), and the words joined across a word break
    PDFium's text page sees (`page_words`); the caller holds `LOCK`. The page and its
    text page are loaded and closed through PDFium's own calls: pypdfium2's objects for
    them (a finalizer and a place in their parent's list each) cost more than reading a
    short page's words."""
    page = _load_page(doc.raw, index)
    if not page:  # (pypdfium2's words, as when it loaded the page)
        raise CorruptPdf(f"page {index + 1} cannot be read (Failed to load page.)")
    page = ctypes.c_void_p(page)
    try:
        textpage = _load_textpage(page)
        if not textpage:
            raise CorruptPdf(f"page {index + 1} cannot be read (Failed to load text page.)")
        textpage = ctypes.c_void_p(textpage)
        try:
            width, height = _page_width(page), _page_height(page)
            imaged = _imaged(page, width * height)
            turns = _rotation(page)
            parted: dict[str, str] = {}
            if turns:
                return (width, height, turned_page_words(textpage, turns, width, height),
                        imaged, parted)
            return width, height, page_words(textpage, height, parted), imaged, parted
        finally:
            _close_textpage(textpage)
    finally:
        _close_page(page)


def page_words(textpage: pdfium_c.FPDF_TEXTPAGE | ctypes.c_void_p, height: float,
               parted: dict[str, str] | None = None) -> list[Word]:
    """The words of one text page, with boxes in top-down page coordinates; into `parted`,
    each word joined across a space or line break of PDFium's own, with the words PDFium's
    text parts it into (`_join`)."""
    tp = ctypes.cast(textpage, ctypes.c_void_p)
    count = _count_chars(tp)
    if count <= 0:
        return []
    text = _text(tp, count)
    if UNMAPPED.search(text):
        text = UNMAPPED.sub(UNDECODABLE, text)
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    # (runs are tuples: most are never changed, and a tuple is made faster than a list)
    runs: list[Run] = []
    add = runs.append
    loose_box, count_rects, unpack = _loose_box, _count_rects, _unpack_box
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        loose_box(tp, start, ref)
        left, top, right, bottom = unpack(box)
        top, bottom = height - top, height - bottom
        if end - start == 1:
            if not _turned(tp, start):
                add((m.group(), left, right, top, bottom, left, top, end))
            continue
        if bottom - top > TALL or count_rects(tp, start, end - start) > 1:
            runs += _split(tp, text, start, end, height)
            continue
        loose_box(tp, end - 1, ref)
        last, last_top, right, _ = unpack(box)
        if height - last_top != top:  # the baseline climbs: turned text
            runs += _split(tp, text, start, end, height)
            continue
        add((m.group(), left, right, top, bottom, last, top, end))
    # (the fields written out, not `Word(...)`: a call less per word; a text layer's word
    # has no OCR confidence, line, ink or second reading)
    return [_new(Word, (r[0], r[1], r[2], r[3], r[4], None, None, None, False, None, None))
            for r in _join(tp, text, runs, height, {} if parted is None else parted)]


def turned_page_words(textpage: pdfium_c.FPDF_TEXTPAGE | ctypes.c_void_p, turns: int,
                      width: float, height: float) -> list[Word]:
    """The words of a page the file turns for display (`/Rotate 90`, 180 or 270: `turns`
    quarter turns clockwise; `width` and `height` as displayed), in the page's displayed
    coordinates. Its text is drawn turned the other way in the file's own coordinates, so
    a character is upright as shown when its angle undoes the page's turn; character by
    character, pdfplumber's rule joins them into words (a gap or a jump in height ends
    one). Few pages are turned: this path needs no speed of the common one."""
    tp = ctypes.cast(textpage, ctypes.c_void_p)
    count = _count_chars(tp)
    if count <= 0:
        return []
    text = _text(tp, count)
    if UNMAPPED.search(text):
        text = UNMAPPED.sub(UNDECODABLE, text)
    upright = (2 * math.pi - turns * math.pi / 2) % (2 * math.pi)
    # the file's page: as wide as the displayed one is high, for a quarter turn
    file_w, file_h = (height, width) if turns % 2 else (width, height)
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    runs: list[list] = []
    prev: list | None = None
    for i, ch in enumerate(text):
        angle = _angle(tp, i)
        if ch.isspace() or abs(math.remainder(angle - upright, 2 * math.pi)) > TURNED:
            prev = None
            continue
        _loose_box(tp, i, ref)
        left, right, top, bottom = _shown(box, turns, file_w, file_h)
        if prev and prev[5] <= left <= prev[2] + WORD_GAP and abs(top - prev[6]) <= WORD_RISE:
            prev[0] += ch
            prev[2], prev[3], prev[4] = max(prev[2], right), min(prev[3], top), max(prev[4],
                                                                                  bottom)
            prev[5], prev[6] = left, top
        else:
            prev = [ch, left, right, top, bottom, left, top, i + 1]
            runs.append(prev)
    return [_new(Word, (r[0], r[1], r[2], r[3], r[4], None, None, None, False, None, None))
            for r in runs]


def _shown(box: pdfium_c.FS_RECTF, turns: int, file_w: float, file_h: float
           ) -> tuple[float, float, float, float]:
    """A character's box in the file's coordinates (y up) as (left, right, top, bottom) on
    the page turned `turns` quarter turns clockwise for display (y down)."""
    x0, x1, y0, y1 = box.left, box.right, box.bottom, box.top
    if turns == 1:
        return y0, y1, x0, x1
    if turns == 2:
        return file_w - x1, file_w - x0, y0, y1
    return file_h - y1, file_h - y0, file_w - x1, file_w - x0
#: An image covering this share of a page may be the page's scan (`layer.py`).
_COVER = 0.85


def _imaged(raw: ctypes.c_void_p, area: float) -> bool:
    """Whether an image drawn at the page's top level covers most of its `area`."""
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    page = ctypes.cast(raw, pdfium_c.FPDF_PAGE)
    for i in range(pdfium_c.FPDFPage_CountObjects(page)):
        obj = pdfium_c.FPDFPage_GetObject(page, i)
        if pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_IMAGE and \
                pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top) and \
                (right.value - left.value) * (top.value - bottom.value) >= _COVER * area:
            return True
    return False




def _text(tp: ctypes.c_void_p, count: int) -> str:
    """The page's characters, one per character index (PDFium's text in one call)."""
    # (a bytearray, not `create_string_buffer`: that makes a ctypes array type for each
    # size, which costs more than reading the page's text)
    buf = bytearray((count + 1) * 2)
    _get_text(tp, 0, count, ctypes.byref(ctypes.c_char.from_buffer(buf)))
    text = buf[: count * 2].decode("utf-16-le", errors="replace")
    if len(text) == count:
        # PDFium marks a hyphen that ends a printed line as U+FFFE; the file draws "-".
        return text.replace(SOFT_HYPHEN, "-") if SOFT_HYPHEN in text else text
    # Characters outside the BMP take two UTF-16 units: fall back to one call per character.
    return "".join(chr(_unicode(tp, i) or 0xFFFD) for i in range(count))


def _split(tp: ctypes.c_void_p, text: str, start: int, end: int, height: float) -> list[Run]:
    """pdfplumber's rule, character by character: a gap or a jump in height ends a word."""
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    runs: list[list] = []
    prev = None
    for i in range(start, end):
        if _turned(tp, i):
            prev = None  # left out, and no word runs across it
            continue
        _loose_box(tp, i, ref)
        left, right, top, bottom = box.left, box.right, height - box.top, height - box.bottom
        if prev and (right <= left or (prev[5] <= left <= prev[2] + WORD_GAP
                                       and abs(top - prev[6]) <= WORD_RISE)):
            prev[0] += text[i]
            if right > left:  # a zero-width mark stays in the word, without moving it
                prev[2], prev[3], prev[4] = max(prev[2], right), min(prev[3], top), \
                    max(prev[4], bottom)
                prev[5], prev[6] = left, top
            prev[7] = i + 1
        else:
            prev = [text[i], left, right, top, bottom, left, top, i + 1]
            runs.append(prev)
    return [tuple(r) for r in runs]


def _turned(tp: ctypes.c_void_p, i: int) -> bool:
    """A character set at an angle (a watermark, a stamp): page furniture, never a figure;
    its box also differs between PDF libraries (pdfminer spans two corners, PDFium four)."""
    angle = _angle(tp, i)
    return TURNED < angle < 2 * math.pi - TURNED


def _join(tp: ctypes.c_void_p, text: str, runs: list[Run], height: float,
          parted: dict[str, str]) -> list[Run]:
    """Join runs that pdfplumber reads as one word: it sorts each line's characters by x,
    so two runs drawn apart join when they touch on one line and no space drawn in the
    file parts them (PDFium puts a space of its own between separate drawings), and runs
    that overlap are read interleaved, character by character. Into `parted`, each word
    so joined where PDFium's text page parts it (a space or line break of its own after a
    run: PDFium sees a word break there, pdfplumber's 1.5 pt tolerance does not), with
    spaces where PDFium's text breaks it."""
    out: list[Run] = []
    broken: dict[int, list[int]] = {}  # a word of `out` joined across breaks: where they fall
    for line in _lines(runs):
        if len(line) == 1:
            out += line
            continue
        line.sort(key=_X0)
        start = len(out)
        if not _joined(tp, text, line, out, broken):
            del out[start:]
            broken = {k: v for k, v in broken.items() if k < start}
            words, marked = _interleaved(tp, text, line, height)
            _joined(tp, text, words, out, broken, check=False, marked=marked)
    for k, cuts in broken.items():
        word = out[k][0]
        ends = [0, *sorted(set(cuts)), len(word)]
        parted[word] = " ".join(word[a:b] for a, b in itertools.pairwise(ends) if a < b)
    return out


def _joined(tp: ctypes.c_void_p, text: str, line: list[Run], out: list[Run],
            broken: dict[int, list[int]], check: bool = True,
            marked: Mapping[int, list[int]] | None = None) -> bool:
    """Add a line's runs (sorted by x) to `out`, those that touch joined (the index in
    `out` of a word joined where PDFium's text breaks, or holding a run `marked` with the
    breaks in it, into `broken` with where in the word the breaks fall); with `check`,
    False, part way, when a run starts before an
    earlier run's last character (the line must be read interleaved): looked for in the
    same pass, which saves a pass per line."""
    # (NaN: no run ever starts before it, and no run's last character moves it)
    reach = float("-inf") if check else math.nan
    prev = None
    for j, r in enumerate(line):
        x0 = r[1]
        if x0 < reach:
            return False
        if r[5] > reach:
            reach = r[5]
        if prev is not None and prev[5] <= x0 <= prev[2] + WORD_GAP \
                and abs(r[3] - prev[6]) <= WORD_RISE and not _space_after(tp, text, prev):
            at = len(prev[0])
            cuts = [at + c for c in (marked or {}).get(j, ())]
            if _breaks_after(text, prev[7]):
                cuts.append(at)
            if cuts:
                broken.setdefault(len(out) - 1, []).extend(cuts)
            # (`max` and `min` of two written out: each keeps its first argument on a tie)
            prev = out[-1] = (prev[0] + r[0], prev[1],
                              r[2] if r[2] > prev[2] else prev[2],
                              r[3] if r[3] < prev[3] else prev[3],
                              r[4] if r[4] > prev[4] else prev[4], r[5], r[6], r[7])
            continue
        out.append(r)
        if marked and j in marked:
            broken.setdefault(len(out) - 1, []).extend(marked[j])
        prev = r
    return True


def _interleaved(tp: ctypes.c_void_p, text: str, line: list[Run], height: float
                 ) -> tuple[list[Run], dict[int, list[int]]]:
    """A line whose runs overlap, cut into words as pdfplumber cuts its characters sorted
    by x (a space the file draws after a run still ends the word there), and, for the
    words that go on past a run's last character where PDFium's text breaks, where in the
    word those breaks fall."""
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    chars = []
    ends = set()  # the runs' last characters that PDFium's text parts from what follows
    for r in line:
        for i in range(r[7] - len(r[0]), r[7]):
            _loose_box(tp, i, ref)
            chars.append((box.left, box.right, height - box.top, height - box.bottom, i))
        if _space_after(tp, text, r):
            chars.append((r[2], r[2], r[3], r[4], -1))
        elif _breaks_after(text, r[7]):
            ends.add(r[7] - 1)
    chars.sort(key=_X0_CHAR)
    words: list[list] = []
    marked: dict[int, list[int]] = {}
    prev = None
    for left, right, top, bottom, i in chars:
        if i < 0:
            prev = None
            continue
        if prev is not None and prev[5] <= left <= prev[2] + WORD_GAP \
                and abs(top - prev[6]) <= WORD_RISE:
            if prev[7] - 1 in ends:
                marked.setdefault(len(words) - 1, []).append(len(prev[0]))
            prev[0] += text[i]
            prev[2], prev[3], prev[4] = max(prev[2], right), min(prev[3], top), \
                max(prev[4], bottom)
            prev[5], prev[6], prev[7] = left, top, i + 1
        else:
            prev = [text[i], left, right, top, bottom, left, top, i + 1]
            words.append(prev)
    return [tuple(w) for w in words], marked


def _lines(runs: list[Run]) -> list[list[Run]]:
    """pdfplumber's line clusters: runs whose tops chain within `WORD_RISE` of each other."""
    lines: list[list[Run]] = []
    line: list[Run] = []
    last = 0.0
    for r in sorted(runs, key=_TOP):
        top = r[3]
        if not line or top - last > WORD_RISE:
            line = [r]
            lines.append(line)
        else:
            line.append(r)
        last = top
    return lines


def _breaks_after(text: str, i: int) -> bool:
    """Whether PDFium's text parts the character at `i` from the one before it (a space or
    a line break, of the file's or its own: the file's spaces end a word before this is
    asked)."""
    return i < len(text) and text[i].isspace()


def _space_after(tp: ctypes.c_void_p, text: str, run: Run) -> bool:
    """Whether the file itself draws a space right after the run (PDFium adds its own)."""
    i = run[7]
    return i < len(text) and text[i] == " " and _is_generated(tp, i) == 0
