"""Page reading: positioned words per page, from the text layer or from OCR.

Layouts only ever see `Page` and `Word`; `PageReader` is the seam where a text reader can
be swapped without touching a layout (PDFium's, `pdfium_reader.py`, by default; pdfplumber's
here). A reader runs the file's checks (`preflight`) on the document it opens, sends pages
without a text layer to OCR (see `ocr.py`), whose words carry confidences, and notes on the
page what it could not read faithfully, so that such a statement never validates.
"""

from __future__ import annotations

import ctypes
import io
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.boundary import library_errors
from parsers.errors import CorruptPdf, ParseTimeout
from parsers.limits import Limits
from parsers.pdfium import LOCK
from parsers.preflight import open_document
from parsers.textmaps import repair_text_maps

if TYPE_CHECKING:
    import pdfplumber

#: Characters turned further than this (radians, about the horizontal) are left out.
TURNED = 0.01
#: What a glyph without a known character reads as, wherever it comes from.
UNDECODABLE = "\ufffd"
#: Characters a text layer yields for glyphs it cannot map (PDFium gives the raw code).
UNMAPPED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
#: What pdfminer writes for a glyph it cannot map to a character.
CID = re.compile(r"\(cid:\d+\)")


class Word(NamedTuple):
    """One positioned word (a named tuple: readers make hundreds per page, cheaply)."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    #: OCR confidence 0-100; None for words from a text layer.
    conf: float | None = None
    #: OCR's own line number: skewed scans are grouped by it, not by height.
    line: int | None = None
    #: OCR: the stretches of ink (x0, x1) on the page left of the word, level with it
    #: (`ink.py`); None for words from a text layer.
    ink: tuple[tuple[float, float], ...] | None = None
    #: OCR: whether a second, independent reading of the word agreed (`reread.py`,
    #: `witness.py`).
    twice: bool = False
    #: OCR: the second engine's reading of the word, where it read it (`witness.py`).
    second: str | None = None


@dataclass
class Page:
    number: int
    width: float
    height: float
    words: list[Word]
    ocr: bool = False
    #: What the reader could not read faithfully here; any note sends the statement to review.
    problems: list[str] = field(default_factory=list)


class PageReader(Protocol):
    def read(self, data: bytes, limits: Limits) -> list[Page]: ...


#: OCR of one loaded page: (page, its index, limits) -> words in page points.
OcrFn = Callable[[pdfium.PdfPage, int, Limits], list[Word]]


#: What every note of glyphs no reader maps says.
UNDECODABLE_NOTE = "hold glyphs that no reader maps to a character"


def undecodable_note(index: int, words: int) -> str:
    return f"page {index + 1}: {words} word(s) {UNDECODABLE_NOTE} (shown as {UNDECODABLE})"


def draws_nothing(page: pdfium.PdfPage) -> bool:
    """A page without a single object: in a statement, a page whose content was lost (a
    missing or emptied content stream), not one to read by OCR."""
    with LOCK:
        return pdfium_c.FPDFPage_CountObjects(page.raw) == 0


def blank_note(index: int) -> str:
    return (f"page {index + 1}: nothing is drawn on it (its content is missing), so the "
            "statement may be incomplete")


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
