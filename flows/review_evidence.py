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

from parsers.limits import Limits
from parsers.lines import Line, page_lines
from parsers.model import mask_digits
from parsers.pdfium import LOCK
from parsers.reader import PageReader
from reconcile.corrections import RowEvidence

log = logging.getLogger("stmtflow")

#: Pixels per point of the picture (144 dpi: sharp enough to tell a 3 from an 8).
SCALE = 2.0


@dataclass(frozen=True)
class Sighting:
    """A row's printed line: page (from 1), its box in points, OCR's least confidence on it."""

    page: int
    top: float
    bottom: float
    #: the lines above and below, so the picture shows the row between its neighbours
    context_top: float
    context_bottom: float
    confidence: float | None
    text: str


def locate(data: bytes, rows: list[RowEvidence], reader: PageReader,
           limits: Limits) -> dict[tuple[int, int], Sighting]:
    """(account, row) -> where that row is printed, for every row that can be found; `reader`
    and `limits` are the import's (`flows.parser.Parser`)."""
    try:
        pages = reader.read(data, limits)
    except Exception as exc:  # evidence is best effort: the review goes on without pictures
        log.warning("could not read the input again for evidence: %s", type(exc).__name__)
        return {}
    lines = [ln for p in pages for ln in page_lines(p)]
    used: set[int] = set()
    found = {}
    for r in rows:
        wanted = [_digits(r.amount)] + ([_digits(r.printed_balance)] if r.printed_balance
                                        else [])
        for i, ln in enumerate(lines):
            if i in used or not all(w in {_digits(x.text) for x in ln.words} for w in wanted):
                continue
            used.add(i)
            found[(r.account, r.row)] = _sighting(lines, i)
            break
    return found


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _sighting(lines: list[Line], i: int) -> Sighting:
    ln = lines[i]
    same = [x for x in lines if x.page == ln.page]
    at = same.index(ln)
    above = same[at - 1] if at > 0 else ln
    below = same[at + 1] if at + 1 < len(same) else ln
    confs = [w.conf for w in ln.words if w.conf is not None]
    return Sighting(ln.page, ln.top, ln.bottom, above.top, below.bottom,
                    min(confs) if confs else None, mask_digits(ln.text))


def picture(data: bytes, s: Sighting) -> bytes:
    """A PNG of the row and its neighbours across the page, the row itself outlined."""
    with LOCK:
        doc = pdfium.PdfDocument(data)
        try:
            image = doc[s.page - 1].render(scale=SCALE).to_pil().convert("RGB")
        finally:
            doc.close()
    pad = 4 * SCALE
    top, bottom = max(0.0, s.context_top * SCALE - pad), s.context_bottom * SCALE + pad
    ImageDraw.Draw(image).rectangle(
        (pad, s.top * SCALE - pad / 2, image.width - pad, s.bottom * SCALE + pad / 2),
        outline=(220, 30, 30), width=3)
    out = io.BytesIO()
    cut = image.crop((0, int(top), image.width, int(min(bottom, image.height))))
    cut.quantize(colors=16).save(out, format="PNG", optimize=True)
    return out.getvalue()
