"""The default text reader: words with positions from PDFium's text page, in bulk.

Same `PageReader` interface as pdfplumber's reader, and the same words: a word is a run of
characters between spaces, split where pdfplumber (`x_tolerance=1.5, y_tolerance=3`) would
split it and joined where it would join it. The page's text comes from PDFium in one call;
boxes are asked for only at the ends of each word (PDFium's loose boxes: the advance width
across, the font's full height, so words on one printed line share a top), so a page costs
a few Python calls per word instead of two per character. Every character is looked at one
by one only where pdfplumber's rules could split a run differently from PDFium's spacing:
a word drawn from several text objects, or set in a large font. Each page is loaded once;
the file's checks (`preflight`) run on the same document and pages.
"""

from __future__ import annotations

import ctypes
import re
import time

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, ParseTimeout
from parsers.limits import Limits
from parsers.pdfium import LOCK
from parsers.preflight import check_page, open_document
from parsers.reader import UNDECODABLE, UNMAPPED, OcrFn, Page, Word, undecodable_note

#: pdfplumber's `x_tolerance`: a wider gap between two characters starts a new word.
WORD_GAP = 1.5
#: pdfplumber's `y_tolerance`: characters whose tops differ more are not one word.
WORD_RISE = 3.0
#: Loose boxes taller than this (points) belong to fonts large enough (about 11 pt) that
#: PDFium may leave a gap over `WORD_GAP` inside a run without a space: check each character.
TALL = 12.5
_TOKEN = re.compile(r"\S+")


class PdfiumReader:
    def __init__(self, ocr: OcrFn | None = None) -> None:
        self._ocr = ocr

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        started = time.monotonic()
        with LOCK:
            doc = open_document(data, limits)
        try:
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
            except pdfium.PdfiumError as exc:
                raise CorruptPdf(f"page {index + 1} cannot be read ({exc})") from exc
        try:
            with LOCK:
                check_page(page, index, limits)
                width, height = page.get_size()
                try:
                    textpage = page.get_textpage()
                except pdfium.PdfiumError as exc:
                    raise CorruptPdf(f"page {index + 1} has no readable text layer ({exc})") \
                        from exc
                try:
                    words = page_words(textpage.raw, height)
                finally:
                    textpage.close()
            page_out = Page(index + 1, width, height, words)
            if not words and self._ocr is not None:
                page_out.words, page_out.ocr = self._ocr(page, index, limits), True
            bad = sum(UNDECODABLE in w.text for w in page_out.words)
            if bad:
                page_out.problems.append(undecodable_note(index, bad))
            return page_out
        finally:
            with LOCK:
                page.close()


def page_words(textpage: pdfium_c.FPDF_TEXTPAGE, height: float) -> list[Word]:
    """The words of one text page, with boxes in top-down page coordinates."""
    count = pdfium_c.FPDFText_CountChars(textpage)
    if count <= 0:
        return []
    text = UNMAPPED.sub(UNDECODABLE, _text(textpage, count))
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    loose, rects = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_CountRects
    runs: list[list] = []  # [start, end, left, right, top, bottom] of each run of characters
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        loose(textpage, start, ref)
        left, top, bottom = box.left, box.top, box.bottom
        if end - start > 1:
            loose(textpage, end - 1, ref)
        run = [start, end, left, box.right, height - top, height - bottom]
        if end - start > 1 and (top - bottom > TALL or rects(textpage, start, end - start) > 1):
            runs += _split(textpage, start, end, height)
        elif runs and _joins(textpage, runs[-1], run):
            prev = runs[-1]
            prev[1], prev[3] = end, max(prev[3], run[3])
            prev[4], prev[5] = min(prev[4], run[4]), max(prev[5], run[5])
        else:
            runs.append(run)
    return [Word(text[s:e], x0, x1, top, bottom) for s, e, x0, x1, top, bottom in runs]


def _text(textpage: pdfium_c.FPDF_TEXTPAGE, count: int) -> str:
    """The page's characters, one per character index (PDFium's text in one call)."""
    buf = ctypes.create_string_buffer((count + 1) * 2)
    pdfium_c.FPDFText_GetText(textpage, 0, count, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)))
    text = buf.raw[: count * 2].decode("utf-16-le", errors="replace")
    if len(text) == count:
        return text
    # Characters outside the BMP take two UTF-16 units: fall back to one call per character.
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i) or 0xFFFD)
                   for i in range(count))


def _joins(textpage: pdfium_c.FPDF_TEXTPAGE, prev: list, run: list) -> bool:
    """True when only spaces PDFium made up separate two runs that pdfplumber reads as one."""
    gap = run[2] - prev[3]
    if not -WORD_GAP <= gap <= WORD_GAP or abs(run[4] - prev[4]) > WORD_RISE:
        return False
    return all(pdfium_c.FPDFText_IsGenerated(textpage, i) == 1 for i in range(prev[1], run[0]))


def _split(textpage: pdfium_c.FPDF_TEXTPAGE, start: int, end: int, height: float) -> list[list]:
    """pdfplumber's rule, character by character: a gap or a jump in height ends a word."""
    box = pdfium_c.FS_RECTF()
    runs: list[list] = []
    for i in range(start, end):
        pdfium_c.FPDFText_GetLooseCharBox(textpage, i, ctypes.byref(box))
        left, right, top, bottom = box.left, box.right, height - box.top, height - box.bottom
        if right <= left:
            continue  # a zero-width mark stays in the text of the word around it
        prev = runs[-1] if runs else None
        if prev and left >= prev[6] and left <= prev[3] + WORD_GAP \
                and abs(top - prev[7]) <= WORD_RISE:
            prev[1], prev[3] = i + 1, max(prev[3], right)
            prev[4], prev[5], prev[6], prev[7] = min(prev[4], top), max(prev[5], bottom), left, top
        else:
            runs.append([i, i + 1, left, right, top, bottom, left, top])
    return [r[:6] for r in runs]
