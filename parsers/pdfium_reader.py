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
"""

from __future__ import annotations

import ctypes
import math
import re
import time
from operator import itemgetter

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.boundary import library_errors
from parsers.errors import CorruptPdf, ParseTimeout
from parsers.limits import Limits
from parsers.pdfium import LOCK, direct
from parsers.preflight import open_document
from parsers.reader import (
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
from parsers.textmaps import repair_text_maps

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
_X0, _TOP, _X0_CHAR = itemgetter(1), itemgetter(3), itemgetter(0)
#: A text-layer word's fields after its box (no OCR confidence, line, ink or second
#: reading): words are made straight from their fields' tuple, a call less per word.
_TEXT_WORD = Word("", 0.0, 0.0, 0.0, 0.0)[5:]
_new = tuple.__new__
_count_chars = direct(pdfium_c.FPDFText_CountChars)
_get_text = direct(pdfium_c.FPDFText_GetText)
_loose_box = direct(pdfium_c.FPDFText_GetLooseCharBox)
_count_rects = direct(pdfium_c.FPDFText_CountRects)
_is_generated = direct(pdfium_c.FPDFText_IsGenerated)
_unicode = direct(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint)
_angle = direct(pdfium_c.FPDFText_GetCharAngle, ctypes.c_float)


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
            try:
                page = doc[index]
                textpage = page.get_textpage()
            except pdfium.PdfiumError as exc:
                raise CorruptPdf(f"page {index + 1} cannot be read ({exc})") from exc
        try:
            with LOCK:
                width, height = page.get_size()
                words = page_words(textpage.raw, height)
                textpage.close()
            out = Page(index + 1, width, height, words)
            if not words and draws_nothing(page):
                out.problems.append(blank_note(index))
            elif not words and self._ocr is not None:
                out.words, out.ocr = self._ocr(page, index, limits), True
            if any(UNDECODABLE in w.text for w in out.words):
                out.problems.append(
                    undecodable_note(index, sum(UNDECODABLE in w.text for w in out.words)))
            return out
        finally:
            with LOCK:
                page.close()


def page_words(textpage: pdfium_c.FPDF_TEXTPAGE, height: float) -> list[Word]:
    """The words of one text page, with boxes in top-down page coordinates."""
    tp = ctypes.cast(textpage, ctypes.c_void_p)
    count = _count_chars(tp)
    if count <= 0:
        return []
    text = _text(tp, count)
    if UNMAPPED.search(text):
        text = UNMAPPED.sub(UNDECODABLE, text)
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    # A run: [text, x0, x1, top, bottom, last character's x0, its top, index after it]
    runs: list[list] = []
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        _loose_box(tp, start, ref)
        left, top, bottom = box.left, height - box.top, height - box.bottom
        if end - start == 1:
            if not _turned(tp, start):
                runs.append([m.group(), left, box.right, top, bottom, left, top, end])
            continue
        if bottom - top > TALL or _count_rects(tp, start, end - start) > 1:
            runs += _split(tp, text, start, end, height)
            continue
        _loose_box(tp, end - 1, ref)
        if height - box.top != top:  # the baseline climbs: turned text
            runs += _split(tp, text, start, end, height)
            continue
        runs.append([m.group(), left, box.right, top, bottom, box.left, top, end])
    return [_new(Word, (r[0], r[1], r[2], r[3], r[4], *_TEXT_WORD)) for r in
            _join(tp, text, runs, height)]


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


def _split(tp: ctypes.c_void_p, text: str, start: int, end: int, height: float) -> list[list]:
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
    return runs


def _turned(tp: ctypes.c_void_p, i: int) -> bool:
    """A character set at an angle (a watermark, a stamp): page furniture, never a figure;
    its box also differs between PDF libraries (pdfminer spans two corners, PDFium four)."""
    angle = _angle(tp, i)
    return TURNED < angle < 2 * math.pi - TURNED


def _join(tp: ctypes.c_void_p, text: str, runs: list[list], height: float) -> list[list]:
    """Join runs that pdfplumber reads as one word: it sorts each line's characters by x,
    so two runs drawn apart join when they touch on one line and no space drawn in the
    file parts them (PDFium puts a space of its own between separate drawings), and runs
    that overlap are read interleaved, character by character."""
    out: list[list] = []
    for line in _lines(runs):
        line.sort(key=_X0)
        if _overlapping(line):
            line = _interleaved(tp, text, line, height)
        prev = None
        for r in line:
            if prev is not None and prev[5] <= r[1] <= prev[2] + WORD_GAP \
                    and abs(r[3] - prev[6]) <= WORD_RISE and not _space_after(tp, text, prev):
                prev[0] += r[0]
                prev[2], prev[3], prev[4] = max(prev[2], r[2]), min(prev[3], r[3]), \
                    max(prev[4], r[4])
                prev[5], prev[6], prev[7] = r[5], r[6], r[7]
                continue
            out.append(r)
            prev = r
    return out


def _overlapping(line: list[list]) -> bool:
    """Whether a run (of a line sorted by x) starts before an earlier run's last character."""
    reach = float("-inf")
    for r in line:
        if r[1] < reach:
            return True
        reach = max(reach, r[5])
    return False


def _interleaved(tp: ctypes.c_void_p, text: str, line: list[list],
                 height: float) -> list[list]:
    """A line whose runs overlap, cut into words as pdfplumber cuts its characters sorted
    by x (a space the file draws after a run still ends the word there)."""
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    chars = []
    for r in line:
        for i in range(r[7] - len(r[0]), r[7]):
            _loose_box(tp, i, ref)
            chars.append((box.left, box.right, height - box.top, height - box.bottom, i))
        if _space_after(tp, text, r):
            chars.append((r[2], r[2], r[3], r[4], -1))
    chars.sort(key=_X0_CHAR)
    words: list[list] = []
    prev = None
    for left, right, top, bottom, i in chars:
        if i < 0:
            prev = None
            continue
        if prev is not None and prev[5] <= left <= prev[2] + WORD_GAP \
                and abs(top - prev[6]) <= WORD_RISE:
            prev[0] += text[i]
            prev[2], prev[3], prev[4] = max(prev[2], right), min(prev[3], top), \
                max(prev[4], bottom)
            prev[5], prev[6], prev[7] = left, top, i + 1
        else:
            prev = [text[i], left, right, top, bottom, left, top, i + 1]
            words.append(prev)
    return words


def _lines(runs: list[list]) -> list[list[list]]:
    """pdfplumber's line clusters: runs whose tops chain within `WORD_RISE` of each other."""
    lines: list[list[list]] = []
    last = None
    for r in sorted(runs, key=_TOP):
        if last is None or r[3] - last > WORD_RISE:
            lines.append([])
        lines[-1].append(r)
        last = r[3]
    return lines


def _space_after(tp: ctypes.c_void_p, text: str, run: list) -> bool:
    """Whether the file itself draws a space right after the run (PDFium adds its own)."""
    i = run[7]
    return i < len(text) and text[i] == " " and _is_generated(tp, i) == 0
