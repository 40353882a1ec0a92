"""pdfplumber's page reader (pdfminer's text positions): the second reader, tried where
PDFium's reading of a file finds no table, and a choice of the configuration."""

from __future__ import annotations

import ctypes
import io
import time
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, ParseTimeout
from parsers.limits import Limits
from parsers.pdf.boundary import library_errors
from parsers.pdf.pdfium import LOCK
from parsers.pdf.preflight import open_document
from parsers.pdf.textmaps import repair_text_maps

if TYPE_CHECKING:
    import pdfplumber
from parsers.pdf.page import (
    CID,
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


class PdfplumberReader:
    """Text-layer words from pdfplumber (characters set at an angle left out); image-only
    pages go to `ocr`.

    PDFium opens the same file for the checks and for OCR; where pdfminer cannot map a glyph
    (`(cid:N)`), the word is read from PDFium's text page in the same box instead.
    """

    def __init__(self, ocr: OcrFn | None = None) -> None:
        self._ocr = ocr

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        import pdfplumber  # only where this reader is chosen: PDFium's reads without it

        started = time.monotonic()
        data = repair_text_maps(data)
        with LOCK:
            doc = open_document(data, limits)
        try:
            with library_errors("pdfminer"):
                pdf = pdfplumber.open(io.BytesIO(data))
                pages = pdf.pages
            with pdf, library_errors("pdfplumber"):
                if len(pages) != len(doc):
                    raise CorruptPdf(f"pdfminer reads {len(pages)} pages, PDFium {len(doc)}: "
                                     "the page tree is damaged")
                return [self._page(doc, p, index, limits, started)
                        for index, p in enumerate(pages)]
        finally:
            with LOCK:
                doc.close()

    def _page(self, doc: pdfium.PdfDocument, p: pdfplumber.page.Page, index: int,
              limits: Limits, started: float) -> Page:
        if time.monotonic() - started > limits.seconds_per_file:
            raise ParseTimeout(
                f"reading stopped after {limits.seconds_per_file:.0f} s at page {index + 1}")
        with LOCK:
            try:
                page = doc[index]
            except pdfium.PdfiumError as exc:
                raise CorruptPdf(f"page {index + 1} cannot be read ({exc})") from exc
        try:
            with library_errors("pdfminer"):
                found = p.filter(_not_turned).extract_words(x_tolerance=1.5, y_tolerance=3)
                width, height = float(p.width), float(p.height)
                p.close()
            words = [Word(w["text"], float(w["x0"]), float(w["x1"]), float(w["top"]),
                          float(w["bottom"])) for w in found]
            out = Page(index + 1, width, height, words)
            if not words and draws_nothing(page):
                out.problems.append(blank_note(index))
            elif not words and self._ocr is not None:
                out.words, out.ocr = self._ocr(page, index, limits), True
            elif any("(cid:" in w.text for w in words):
                with LOCK:
                    out.words = _from_pdfium(page, words, out.height)
            bad = sum(UNDECODABLE in w.text for w in out.words)
            if bad:
                out.problems.append(undecodable_note(index, bad))
            return out
        finally:
            with LOCK:
                page.close()


def _not_turned(obj: dict) -> bool:
    """Leave out characters set at an angle (watermarks, stamps): never statement content."""
    if obj.get("object_type") != "char":
        return True
    a, b = obj["matrix"][:2]
    return abs(b) <= TURNED * abs(a) and a > 0


def _from_pdfium(page: pdfium.PdfPage, words: list[Word], height: float) -> list[Word]:
    """Words pdfminer read as `(cid:N)`, read again from PDFium's text in the same box."""
    textpage = page.get_textpage()
    try:
        out = []
        for w in words:
            if "(cid:" in w.text:
                text = _bounded_text(textpage.raw, w, height)
                ok = text and " " not in text and not UNMAPPED.search(text)
                w = Word(text if ok else CID.sub(UNDECODABLE, w.text), w.x0, w.x1, w.top,
                         w.bottom)
            out.append(w)
        return out
    finally:
        textpage.close()


def _bounded_text(textpage: pdfium_c.FPDF_TEXTPAGE, w: Word, height: float) -> str:
    # Half a point in from each side: the neighbours' boxes must not count.
    box = (w.x0 + 0.5, height - w.top - 0.5, w.x1 - 0.5, height - w.bottom + 0.5)
    n = pdfium_c.FPDFText_GetBoundedText(textpage, *box, None, 0)
    if n <= 0:
        return ""
    buf = ctypes.create_string_buffer(n * 2)
    pdfium_c.FPDFText_GetBoundedText(textpage, *box,
                                     ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)), n)
    return buf.raw[: n * 2].decode("utf-16-le", errors="replace").rstrip("\x00").strip()
