"""A page as layouts see it: positioned words, from the text layer or from OCR.

Layouts only ever see `Page` and `Word`; `PageReader` is the seam where a text reader can
be swapped without touching a layout (PDFium's, `pdfium_reader.py`, by default;
pdfplumber's, `pdfplumber_reader.py`). A reader runs the file's checks (`preflight`) on the
document it opens, sends pages without a text layer to OCR (`parsers/ocr/tesseract.py`),
whose words carry confidences, and notes on the page what it could not read faithfully, so
that such a statement never validates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.limits import Limits
from parsers.pdf.pdfium import LOCK

if TYPE_CHECKING:
    pass

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
    #: OCR, the second of two numbers side by side: the second engine's reading of both in
    #: one crop (`witness.read_pairs`), which says whether the space between them is printed.
    pair: str | None = None


@dataclass
class Page:
    number: int
    width: float
    height: float
    words: list[Word]
    ocr: bool = False
    #: What the reader could not read faithfully here; any note sends the statement to review.
    problems: list[str] = field(default_factory=list)
    #: Words the reader joined where the PDF library's own text parts them (PDFium's text
    #: page puts a word break between their parts, pdfplumber's tolerance does not), each
    #: with the words PDFium's text parts it into, which a description takes (`breaks.py`).
    parted: dict[str, str] = field(default_factory=dict)


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
