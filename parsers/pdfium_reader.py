"""A faster text reader: words with positions from PDFium's text page.

Same `PageReader` interface as pdfplumber's reader, about forty times faster per page here
(see `python -m benchmarks`), so the import of large batches can choose it with
`STMTFLOW_READER=pdfium` without a layout noticing. Boxes are PDFium's loose character
boxes (the font's full height), so words on one printed line share a top.
"""

from __future__ import annotations

import time

import pypdfium2 as pdfium

from parsers.errors import ParseTimeout
from parsers.limits import Limits
from parsers.pdfium import LOCK
from parsers.reader import OcrFn, Page, Word

#: A gap wider than this (points) between two characters starts a new word.
WORD_GAP = 1.5


class PdfiumReader:
    def __init__(self, ocr: OcrFn | None = None) -> None:
        self._ocr = ocr

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        started = time.monotonic()
        with LOCK:
            doc = pdfium.PdfDocument(data)
            try:
                texts = []
                for index, page in enumerate(doc):
                    if time.monotonic() - started > limits.seconds_per_file:
                        raise ParseTimeout(f"reading stopped after {limits.seconds_per_file:.0f}"
                                           f" s at page {index + 1}")
                    width, height = page.get_size()
                    texts.append((width, height, _words(page.get_textpage(), height)))
            finally:
                doc.close()
        pages = []
        for index, (width, height, words) in enumerate(texts):
            ocr = not words and self._ocr is not None
            if ocr and self._ocr is not None:
                words = self._ocr(data, index, limits)
            pages.append(Page(index + 1, width, height, words, ocr))
        return pages


def _words(text: pdfium.PdfTextPage, height: float) -> list[Word]:
    words: list[Word] = []
    chars: list[tuple[str, tuple[float, float, float, float]]] = []

    def flush() -> None:
        if chars:
            left = min(b[0] for _, b in chars)
            right = max(b[2] for _, b in chars)
            top = max(b[3] for _, b in chars)
            bottom = min(b[1] for _, b in chars)
            words.append(Word("".join(c for c, _ in chars), left, right, height - top,
                              height - bottom))
            chars.clear()

    for i in range(text.count_chars()):
        char = text.get_text_range(i, 1)
        box = text.get_charbox(i, loose=True)
        if not char.strip():
            flush()
            continue
        if chars:
            prev = chars[-1][1]
            if box[0] - prev[2] > WORD_GAP or abs(box[1] - prev[1]) > 2:
                flush()
        chars.append((char, box))
    flush()
    return words
