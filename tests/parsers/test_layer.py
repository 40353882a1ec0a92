"""A scanned page that carries a text layer: read from its image, the layer a third witness."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pypdfium2 as pdfium

from corpus.banks import Printed
from parsers.api import parse_pdf
from parsers.ocr.layer import third_witness
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.pdf.page import Word


def with_text_layer(scan: bytes, folder: Path) -> bytes:
    """The scan's page as tesseract's own PDF output makes it: the image, with the text
    tesseract read laid over it, invisible (as scanners and OCRmyPDF make them)."""
    image = folder / "page.png"
    pdfium.PdfDocument(scan)[0].render(scale=200 / 72).to_pil().save(image, dpi=(200, 200))
    subprocess.run(["tesseract", str(image), str(folder / "layered"), "pdf"],
                   capture_output=True, check=True)
    return (folder / "layered.pdf").read_bytes()


def test_a_scan_with_a_text_layer_is_read_from_its_image(plain: Printed,
                                                          tmp_path: Path) -> None:
    layered = with_text_layer(plain.pdf, tmp_path)
    assert pdfium.PdfDocument(layered)[0].get_textpage().get_text_range().strip()
    r = parse_pdf(layered)
    assert r.ocr_pages == 1
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == plain.truth.to_dict()


def word(text: str, second: str | None, conf: float = 96.0) -> Word:
    return Word(text, 100.0, 140.0, 50.0, 60.0, conf, 1, (), False, second)


def test_a_text_layer_reading_as_the_second_engine_did_settles_their_dispute() -> None:
    got, = third_witness([word("4,001.05", "1,001.05", OCR_REVIEW_CONFIDENCE - 1)],
                         [word("1,001.05", None, None)])
    assert (got.text, got.twice) == ("1,001.05", True) and got.conf >= OCR_REVIEW_CONFIDENCE


def test_a_text_layer_reading_as_tesseract_did_settles_nothing() -> None:
    """The layer may be tesseract's own reading: no second witness for it."""
    disputed = word("4,001.05", "1,001.05", OCR_REVIEW_CONFIDENCE - 1)
    assert third_witness([disputed], [word("4,001.05", None, None)]) == [disputed]


def test_a_text_layer_does_not_unsettle_two_engines_reading_alike() -> None:
    agreed = word("4,001.05", "4,001.05")
    assert third_witness([agreed], [word("4,007.05", None, None)]) == [agreed]
