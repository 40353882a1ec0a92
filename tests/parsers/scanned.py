"""Whole scans read by the real OCR engines once per page, their words then changed at will:
what the scan tests share."""

from __future__ import annotations

from collections.abc import Callable

import pypdfium2 as pdfium

from corpus import Printed, statement
from corpus.variant import ScanQuality, Variant
from parsers.api import ParseResult, parse_pdf
from parsers.layout.template import Template
from parsers.limits import Limits
from parsers.ocr.tesseract import ocr_page
from parsers.pdf.page import Word
from parsers.pdf.pdfium_reader import PdfiumReader

CLEAN = ScanQuality(dpi=300, noise=0.0005)
Change = Callable[[list[Word]], list[Word]]

#: Words read per (the scan's bytes, page): a scan is read by tesseract once per process.
_read: dict[tuple[bytes, int], list[Word]] = {}


def plain_scan() -> Printed:
    """One page, six rows, every balance printed: validates exactly as OCR reads it."""
    return statement("meridian", Variant(scan=CLEAN), index=0, seed=11)


def derived_scan() -> Printed:
    """No opening balance printed: the first amount has no printed balance before it."""
    return statement("meridian", Variant(structure="derived-opening", scan=CLEAN), index=1,
                     seed=11)


def parse(drawn: Printed, change: Change = lambda words: words,
          templates: list[Template] | None = None) -> ParseResult:
    """Parse with the OCR engines' words (read once per page) passed through `change`, with
    `templates` (the built-in ones unless given)."""
    def ocr(page: pdfium.PdfPage, index: int, limits: Limits) -> list[Word]:
        if (drawn.pdf, index) not in _read:
            _read[drawn.pdf, index] = ocr_page(page, index, limits)
        return change(list(_read[drawn.pdf, index]))
    return parse_pdf(drawn.pdf, reader=PdfiumReader(ocr=ocr), templates=templates)
