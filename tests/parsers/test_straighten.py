"""Pages put square and even before OCR reads them (`straighten.py`)."""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium
import pytest

from corpus import statement
from corpus.banks import Printed
from corpus.variant import ScanQuality, Variant
from parsers.api import parse_pdf
from parsers.limits import Limits
from parsers.ocr.straighten import straighten
from parsers.ocr.tesseract import render_page


def test_a_plain_scan_is_left_as_it_is(plain: Printed) -> None:
    image = render_page(pdfium.PdfDocument(plain.pdf)[0], 0, Limits())
    assert straighten(image) is image


def test_a_photographed_sheet_is_squared_on_white() -> None:
    q = ScanQuality(dpi=100, skew=3.0, perspective=0.03, light=0.4)
    drawn = statement("meridian", Variant(scan=q), index=2, seed=5)
    image = render_page(pdfium.PdfDocument(drawn.pdf)[0], 0, Limits(ocr_dpi=100))
    before = np.asarray(image)
    after = np.asarray(straighten(image))
    # the dark ground is gone and the light even: the corners are paper now
    assert float(np.median(before[:10, :10])) < 100
    assert min(float(np.median(c)) for c in (after[:20, :20], after[:20, -20:],
                                              after[-20:, :20], after[-20:, -20:])) > 200


@pytest.mark.slow
def test_a_photographed_statement_validates_as_printed() -> None:
    """A photograph of a one-page statement (3 degrees turned, its corners off square, its
    light falling off by 40%): straightened, both engines read it, and it validates
    exactly."""
    q = ScanQuality(dpi=200, skew=3.0, noise=0.001, perspective=0.03, light=0.4)
    drawn = statement("meridian", Variant(scan=q), index=2, seed=5)
    r = parse_pdf(drawn.pdf)
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == drawn.truth.to_dict()
