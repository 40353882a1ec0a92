"""What a reviewer sees of a questioned row: where it is on the page, how sure OCR was of it,
and a picture of it cut from the stored input.

The statement document says what was read; this finds the printed line again by reading the
stored input the way the import did (the same page reader, OCR for scans), matching a line
that holds the row's amount and printed balance. A row that cannot be found simply has no
picture: evidence helps a person decide, it never decides anything itself.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass

import pypdfium2 as pdfium
from PIL import ImageDraw

from parsers.errors import TooLarge
from parsers.limits import Limits
from parsers.model import mask_digits, masked_spans
from parsers.pdf.lines import Line, page_lines
from parsers.pdf.page import PageReader
from parsers.pdf.pdfium import LOCK
from parsers.pdf.pixels import check_render
from reconcile.corrections import RowEvidence

log = logging.getLogger("stmtflow")

#: Pixels per point of the picture (144 dpi: sharp enough to tell a 3 from an 8).
SCALE = 2.0


#: A figure with cents (an amount, a balance): shown in full, as the text shows it.
_MONEY = re.compile(r"[-+(]?\D{0,3}?\d+(?:[.,'\u00a0 ]\d{3})*[.,]\d{2}\)?[-+]?(?:CR|DR)?")
#: Points beyond the neighbouring lines that a picture may show.
_MARGIN = 12.0

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Sighting:
    """A row's printed lines: page (from 1), their box in points, OCR's least confidence on
    them, and the words the picture blacks out."""

    page: int
    top: float
    bottom: float
    #: the lines above and below, so the picture shows the row between its neighbours
    context_top: float
    context_bottom: float
    confidence: float | None
    text: str
    #: (x0, top, x1, bottom) in points of every word in the picture that holds digits the
    #: text masks (a reference or account number), so the picture shows no more than it
    hidden: tuple[Box, ...] = ()


def read_lines(data: bytes, reader: PageReader, limits: Limits) -> list[Line]:
    """Every line of the stored input, read as the import read it (`reader` and `limits`
    are the import's: `flows.parser.Parser`); none where it cannot be read again."""
    try:
        pages = reader.read(data, limits)
    except Exception as exc:  # evidence is best effort: the review goes on without pictures
        log.warning("could not read the input again for evidence: %s", type(exc).__name__)
        return []
    return [ln for p in pages for ln in page_lines(p)]


def locate(data: bytes, rows: list[RowEvidence], reader: PageReader,
           limits: Limits) -> dict[tuple[int, int], Sighting]:
    """(account, row) -> where that row is printed, for every row that can be found."""
    return locate_in(read_lines(data, reader, limits), rows)


def locate_in(lines: list[Line], rows: list[RowEvidence]) -> dict[tuple[int, int], Sighting]:
    """Where each row of `rows` is printed among `lines`. A row is the line holding its
    amount and printed balance, with the lines around it that hold only its description."""
    used: set[int] = set()
    found = {}
    for r in rows:
        wanted = [_digits(r.amount)] + ([_digits(r.printed_balance)] if r.printed_balance
                                        else [])
        for i, ln in enumerate(lines):
            if i in used or not all(w in {_digits(x.text) for x in ln.words} for w in wanted):
                continue
            first, last = _row_lines(lines, i, r.description, used)
            used.update(range(first, last + 1))
            found[(r.account, r.row)] = _sighting(lines, first, last)
            break
    return found


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _row_lines(lines: list[Line], i: int, description: str, used: set[int]) -> tuple[int, int]:
    """The first and last line of the row whose figures stand on line `i`: the lines next
    to it on the same page that hold nothing but words of its description."""
    words = set(description.split())

    def belongs(j: int) -> bool:
        return (0 <= j < len(lines) and j not in used and lines[j].page == lines[i].page
                and {w.text for w in lines[j].words} <= words)

    first, last = i, i
    while belongs(first - 1):
        first -= 1
    while belongs(last + 1):
        last += 1
    return first, last


def _sighting(lines: list[Line], first: int, last: int) -> Sighting:
    row = lines[first: last + 1]
    page = [x for x in lines if x.page == row[0].page]
    at, end = page.index(row[0]), page.index(row[-1])
    above = page[at - 1] if at > 0 else row[0]
    below = page[end + 1] if end + 1 < len(page) else row[-1]
    confs = [w.conf for ln in row for w in ln.words if w.conf is not None]
    shown = [x for x in page
             if x.bottom >= above.top - _MARGIN and x.top <= below.bottom + _MARGIN]
    return Sighting(row[0].page, min(x.top for x in row), max(x.bottom for x in row),
                    above.top, below.bottom, min(confs) if confs else None,
                    mask_digits(" ".join(x.text for x in row)),
                    tuple(box for x in shown for box in _masked_words(x)))


def _masked_words(ln: Line, endings: set[str] | None = None) -> list[Box]:
    """The boxes of the words of `ln` that hold digits `mask_digits` masks in its text
    (figures with cents excepted: the text shows them in full); with `endings`, only those
    of a number ending in one of them (the statement's own accounts)."""
    spans = [(a, b) for a, b in masked_spans(ln.text)
             if endings is None or _digits(ln.text[a:b])[-4:] in endings]
    out, at = [], 0
    for w in ln.words:
        start, end = at, at + len(w.text)
        at = end + 1
        if any(a < end and start < b for a, b in spans) and not _MONEY.fullmatch(w.text):
            out.append((w.x0, w.top, w.x1, w.bottom))
    return out


def picture(data: bytes, s: Sighting, limits: Limits) -> bytes | None:
    """A PNG of the row and its neighbours across the page, the row's lines outlined and
    masked digits blacked out; None where the page is over the pixel limit."""
    with LOCK:
        doc = pdfium.PdfDocument(data)
        try:
            page = doc[s.page - 1]
            try:
                check_render(page, s.page - 1, SCALE, limits)
            except TooLarge as exc:
                log.warning("no picture of a row on page %d: %s", s.page, exc.message)
                return None
            image = page.render(scale=SCALE).to_pil().convert("RGB")
        finally:
            doc.close()
    pad = 4 * SCALE
    top, bottom = max(0.0, s.context_top * SCALE - pad), s.context_bottom * SCALE + pad
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1 in s.hidden:
        draw.rectangle((x0 * SCALE - 1, y0 * SCALE - 1, x1 * SCALE + 1, y1 * SCALE + 1),
                       fill=(0, 0, 0))
    draw.rectangle((pad, s.top * SCALE - pad / 2, image.width - pad, s.bottom * SCALE + pad / 2),
                   outline=(220, 30, 30), width=3)
    out = io.BytesIO()
    cut = image.crop((0, int(top), image.width, int(min(bottom, image.height))))
    cut.quantize(colors=16).save(out, format="PNG", optimize=True)
    return out.getvalue()


def page_picture(data: bytes, page: int, lines: list[Line], endings: set[str], limits: Limits,
                 scale: float = SCALE) -> tuple[bytes, float, float] | None:
    """A PNG of page `page` (from 1) with the statement's own account numbers blacked out,
    and the page's width and height in points; None where it is over the pixel limit."""
    with LOCK:
        doc = pdfium.PdfDocument(data)
        try:
            if not 1 <= page <= len(doc):
                return None
            pdf_page = doc[page - 1]
            width, height = pdf_page.get_size()
            try:
                check_render(pdf_page, page - 1, scale, limits)
            except TooLarge as exc:
                log.warning("no picture of page %d: %s", page, exc.message)
                return None
            image = pdf_page.render(scale=scale).to_pil().convert("RGB")
        finally:
            doc.close()
    draw = ImageDraw.Draw(image)
    for ln in lines:
        if ln.page == page:
            for x0, y0, x1, y1 in _masked_words(ln, endings):
                draw.rectangle((x0 * scale - 1, y0 * scale - 1, x1 * scale + 1,
                                y1 * scale + 1), fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue(), width, height


def page_sizes(data: bytes) -> list[tuple[float, float]]:
    """Each page's width and height in points."""
    with LOCK:
        doc = pdfium.PdfDocument(data)
        try:
            return [doc[i].get_size() for i in range(len(doc))]
        finally:
            doc.close()
