"""A scanned page that already carries a text layer: read by OCR, its layer a third witness.

Scanners, banks and tools such as OCRmyPDF put the text their own OCR read over or under the
page image. That text is one more engine's reading, of unknown make and care (`Vour Adv
Plus`, `May l, 2019`), not the statement as printed: taking it as a text page would trust
it as if it had been typeset. So a page whose text the page's own image prints (an image
covering the page, with ink under the layer's words) is read like any scan, from the image
alone, its text hidden; the layer's words then stand beside the engines' readings
(`third_witness`).
"""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.ocr.witness import same
from parsers.pdf.page import Word
from parsers.pdf.pdfium import LOCK

#: The page is a scan when the image alone shows ink under this share of the layer's words.
_INKED = 0.8
#: Resolution the image alone is looked at (dots per inch): enough to see a word's ink.
_LOOK_DPI = 100
#: Ink is darker than this (8-bit grey). A faint picture of the page behind text drawn in
#: full (a document made from a scan by a word processor) is no scan of that text: its
#: text layer is what the page shows, and is read as such.
_INK = 160


def scanned_beneath(page: pdfium.PdfPage, words: list[Word]) -> bool:
    """Whether `page`'s text layer `words` transcribe the page's images (one covering most
    of the page, the caller found): rendered alone, they show ink under most of the words.
    The page's text is left hidden, as OCR is to see it."""
    if not words:
        return False
    with LOCK:
        hide_text(page)
        scale = _LOOK_DPI / 72
        grey = np.asarray(page.render(scale=scale, grayscale=True).to_pil().convert("L"))
    inked = 0
    for w in words:
        box = grey[int(w.top * scale):int(w.bottom * scale) + 1,
                   int(w.x0 * scale):int(w.x1 * scale) + 1]
        inked += bool(box.size) and int(box.min()) < _INK
    return inked >= _INKED * len(words)


def hide_text(page: pdfium.PdfPage) -> None:
    """Make every text object of the loaded page invisible, so that a render of it shows
    its images alone (the document on disk is not changed); the caller holds `LOCK`."""
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT], max_depth=3):
        pdfium_c.FPDFTextObj_SetTextRenderMode(obj.raw, pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE)


def third_witness(read: list[Word], layer: list[Word]) -> list[Word]:
    """The engines' words `read` with the page's own text layer weighed in: where tesseract
    and RapidOCR read a word differently and the layer's word in the same place reads as
    RapidOCR did, two readings of three agree on RapidOCR's, which then stands, read twice.
    A layer agreeing with tesseract settles nothing (it may be tesseract's own output), nor
    does a layer that disagrees with two engines reading alike unsettle them."""
    out = []
    for w in read:
        if w.second and same(w.text, w.second) is False:
            printed = _at(layer, w)
            if printed is not None and same(w.second, printed) is True:
                w = w._replace(text=w.second, twice=True,
                               conf=max(w.conf or 0.0, OCR_REVIEW_CONFIDENCE))
        out.append(w)
    return out


def _at(layer: list[Word], w: Word) -> str | None:
    """The text of the one layer word whose middle lies in `w`'s box, or None."""
    found = [u.text for u in layer
             if w.x0 <= (u.x0 + u.x1) / 2 <= w.x1 and w.top <= (u.top + u.bottom) / 2 <= w.bottom]
    return found[0] if len(found) == 1 else None
