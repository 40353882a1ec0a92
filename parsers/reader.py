"""Page reading: positioned words per page, from the text layer or from OCR.

Layouts only ever see `Page` and `Word`; `PageReader` is the seam where a faster text
reader can replace pdfplumber without touching a layout. Pages without a text layer are
sent to OCR (see `ocr.py`), whose words carry confidences.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import pdfplumber

from parsers.errors import ParseTimeout
from parsers.limits import Limits


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    #: OCR confidence 0-100; None for words from a text layer.
    conf: float | None = None
    #: OCR's own line number: skewed scans are grouped by it, not by height.
    line: int | None = None


@dataclass
class Page:
    number: int
    width: float
    height: float
    words: list[Word]
    ocr: bool = False


class PageReader(Protocol):
    def read(self, data: bytes, limits: Limits) -> list[Page]: ...


OcrFn = Callable[[bytes, int, Limits], list[Word]]


class PdfplumberReader:
    """Text-layer words from pdfplumber; image-only pages go to `ocr`."""

    def __init__(self, ocr: OcrFn | None = None) -> None:
        self._ocr = ocr

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        started = time.monotonic()
        pages: list[Page] = []
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for index, p in enumerate(pdf.pages):
                if time.monotonic() - started > limits.seconds_per_file:
                    raise ParseTimeout(
                        f"reading stopped after {limits.seconds_per_file:.0f} s at page {index + 1}"
                    )
                words = [
                    Word(w["text"], float(w["x0"]), float(w["x1"]), float(w["top"]),
                         float(w["bottom"]))
                    for w in p.extract_words(x_tolerance=1.5, y_tolerance=3)
                ]
                ocr = False
                if not words and self._ocr is not None:
                    words, ocr = self._ocr(data, index, limits), True
                pages.append(Page(index + 1, float(p.width), float(p.height), words, ocr))
                p.close()
        return pages
