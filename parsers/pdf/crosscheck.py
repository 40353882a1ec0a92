"""A second PDF library reads the figures too: where two readers disagree, nobody is trusted.

A damaged or hostile file can make one library drop or garble what another reads (a
content stream cut short, an object one parser repairs and the other skips, a page tree
read two ways), and the statement may still reconcile: a whole account missing balances by
itself. So every page with a text layer is read a second time, by the other library, as
cheaply as it can be read: only its digits (the figures, dates and account numbers a
statement is made of), counted per page, characters set at an angle left out as the word
readers leave them out. PDFium's words are checked against pdfminer's content-stream
interpreter without any layout analysis; pdfminer's words against PDFium's text page.
Any difference is a problem on the statement (it is read, and goes to review), but for a
digit or two on a page no row or labelled figure was read from: fewer digits than any
amount prints can hide no figure of the statement.

pdfminer interprets content streams in Python, several times slower than PDFium's word
reader; so a PDFium reading is checked only where the file's structure is not intact
(`structure.intact`: one cross-reference table or stream whose every entry points at its
object, each object defined once, no update chain), the files where the two libraries may
repair or resolve differently. pdfminer's words are always checked: PDFium's text page is cheap.
"""

from __future__ import annotations

import io
import math
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pypdfium2 as pdfium
from pdfminer.pdfdevice import PDFTextDevice
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser

from parsers.pdf.boundary import library_errors
from parsers.pdf.page import TURNED, Page
from parsers.pdf.pdfium import LOCK
from parsers.pdf.structure import intact

Digits = Counter[str]

#: The fewest digits an amount prints (`0.00`): fewer digits than this, differing on a page
#: no figure of the statement was read from, cannot be a figure lost from it.
FIGURE_DIGITS = 3


@dataclass(frozen=True)
class Disagreement:
    """Where the two readers read other digits: a page (None: the file as a whole) and how
    many digits differ."""

    page: int | None
    digits: int
    message: str

    def matters(self, read_from: set[int]) -> bool:
        """Whether it may touch what was read (`read_from`: the pages rows and labelled
        figures were read from; empty when not known): on such a page, or the file, always;
        elsewhere, when as many digits differ as an amount prints."""
        return (self.page is None or not read_from or self.page in read_from
                or self.digits >= FIGURE_DIGITS)


def disagreements(data: bytes, pages: list[Page], reader: str, seconds: float,
                  only: set[int] | None = None) -> list[Disagreement]:
    """Where the other library reads other digits than the words of `pages` (`reader`
    names the library the words came from: `pdfium` or `pdfminer`); with `only`, on those
    pages alone (the pages a statement pinned at both ends was read from: no other can
    hide a figure of it). pdfminer gets `seconds` (in a parse worker; a file it cannot read
    in time is not compared, and that is a disagreement too)."""
    text_pages = [p for p in pages if not p.ocr and (only is None or p.number in only)]
    if not text_pages:
        return []
    if reader == "pdfminer":
        other, theirs = "PDFium", pdfium_digits(data)
    else:
        other = "pdfminer"
        try:
            with _deadline(seconds):  # (pdfminer reads a cross-reference stream's structure)
                if intact(data):
                    return []
                theirs = pdfminer_digits(data, only)
        except _Overrun:
            return [Disagreement(None, 0, f"pdfminer did not read the damaged file within "
                                 f"{seconds:.0f} s: the readers could not be compared")]
    out = []
    for p in text_pages:
        mine = Counter(c for w in p.words for c in w.text if c.isdigit())
        seen = theirs[p.number - 1] if p.number <= len(theirs) else Counter()
        if mine != seen:
            only_mine, only_theirs = mine - seen, seen - mine
            theirs_n, mine_n = sum(only_theirs.values()), sum(only_mine.values())
            out.append(Disagreement(
                p.number, theirs_n + mine_n,
                f"page {p.number}: {other} reads other figures than the word reader "
                f"({theirs_n} digit(s) only it reads, {mine_n} only the word reader reads)"))
    if len(theirs) != len(pages):
        out.append(Disagreement(None, 0, f"{other} reads {len(theirs)} pages, the word "
                                         f"reader {len(pages)}"))
    return out


class _DigitCounter(PDFTextDevice):
    """A pdfminer device that only counts the digits drawn upright on each page."""

    def __init__(self, rsrcmgr: PDFResourceManager) -> None:
        super().__init__(rsrcmgr)
        self.pages: list[Digits] = []

    def begin_page(self, page: PDFPage, ctm: object) -> None:
        self.pages.append(Counter())

    def render_char(self, matrix: tuple[float, ...], font: PDFFont, fontsize: float,
                    scaling: float, rise: float, cid: int, *_: object) -> float:
        try:
            text = font.to_unichr(cid)
        except PDFUnicodeNotDefined:
            text = ""
        a, b = matrix[0], matrix[1]
        if text.isdigit() and a > 0 and abs(b) <= TURNED * abs(a):
            self.pages[-1].update(text)
        return font.char_width(cid) * fontsize * scaling


def pdfminer_digits(data: bytes, only: set[int] | None = None) -> list[Digits]:
    """pdfminer's upright digits of every page (with `only`, of those pages, numbered from
    1: the others' counts are left empty, unread), without layout analysis."""
    with library_errors("pdfminer"):
        rsrc = PDFResourceManager(caching=True)
        device = _DigitCounter(rsrc)
        interpreter = PDFPageInterpreter(rsrc, device)
        for number, page in enumerate(
                PDFPage.create_pages(PDFDocument(PDFParser(io.BytesIO(data)))), start=1):
            if only is None or number in only:
                interpreter.process_page(page)
            else:
                device.pages.append(Counter())
        return device.pages


def pdfium_digits(data: bytes) -> list[Digits]:
    """PDFium's upright digits of every page, from its text page."""
    with LOCK, library_errors("PDFium"):
        doc = pdfium.PdfDocument(data)
        try:
            out = []
            for page in doc:
                textpage = page.get_textpage()
                text = textpage.get_text_range()
                out.append(Counter(c for i, c in enumerate(text) if c.isdigit()
                                   and not _turned(textpage, i)))
                textpage.close()
                page.close()
            return out
        finally:
            doc.close()


def _turned(textpage: pdfium.PdfTextPage, i: int) -> bool:
    angle = pdfium.raw.FPDFText_GetCharAngle(textpage.raw, i)
    return TURNED < angle < 2 * math.pi - TURNED


class _Overrun(BaseException):
    """The second reading ran out of time (a BaseException: libraries catch Exception)."""


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` of wall time, where a signal can (the main
    thread: a parse worker); elsewhere (in-process parsing, on threads) it runs unbounded,
    under the caller's own limits."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def overrun(signum: int, frame: object) -> None:
        raise _Overrun

    previous = signal.signal(signal.SIGALRM, overrun)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
