"""Scans of recorded quality: the resolution and the damage that `ScanQuality` names."""

from __future__ import annotations

import random

import numpy as np
import pypdfium2 as pdfium

from corpus import draw_for
from corpus.banks import render_meridian_text
from corpus.scan import scan_with
from corpus.variant import ScanQuality


def page_image_width(pdf: bytes) -> int:
    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        assert not page.get_textpage().get_text_range().strip()  # image only
        image = next(o for o in page.get_objects() if o.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE)
        return image.get_px_size()[0]
    finally:
        doc.close()


def test_scan_resolution_is_the_recorded_dpi() -> None:
    text_pdf = render_meridian_text(draw_for(1, random.Random("s:1"), True)).pdf
    for dpi in (150, 300):
        scan = scan_with(text_pdf, ScanQuality(dpi=dpi, skew=1.2, blur=0.5, jpeg=60),
                         np.random.default_rng(1))
        assert abs(page_image_width(scan) - round(595.27 * dpi / 72)) <= 1


def test_same_quality_and_noise_seed_give_the_same_scan() -> None:
    text_pdf = render_meridian_text(draw_for(1, random.Random("s:1"), True)).pdf
    q = ScanQuality(dpi=150, noise=0.003)
    assert scan_with(text_pdf, q, np.random.default_rng(7)) == \
        scan_with(text_pdf, q, np.random.default_rng(7))


def test_a_photograph_shows_the_sheet_in_perspective_on_a_darker_ground() -> None:
    text_pdf = render_meridian_text(draw_for(1, random.Random("s:1"), True)).pdf
    q = ScanQuality(dpi=100, perspective=0.03, light=0.4)
    photo = scan_with(text_pdf, q, np.random.default_rng(3))
    assert page_image_width(photo) > round(595.27 * 100 / 72)  # the ground around the sheet
    grey = np.asarray(pdfium.PdfDocument(photo)[0].render(scale=100 / 72, grayscale=True)
                      .to_pil().convert("L"))
    h, w = grey.shape
    assert float(np.median(grey[:5, :5])) < 100 < float(np.median(grey[h // 3: h // 2,
                                                                       w // 3: w // 2]))
    assert q.kinds() == ["scan:100dpi", "scan:photo"]
