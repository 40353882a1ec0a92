"""OCR on the real tesseract binary: words with confidences, a per-page time limit."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from corpus import Sample, generate
from parsers.api import parse_pdf
from parsers.errors import OcrTimeout, ParseTimeout
from parsers.limits import Limits
from parsers.ocr import engine_identity, ocr_page


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return generate(tmp_path_factory.mktemp("scan"), ("meridian",), 1, seed=5)[0]


def first_page(sample: Sample) -> pdfium.PdfPage:
    return pdfium.PdfDocument(sample.pdf.read_bytes())[0]


def test_ocr_reads_words_with_confidences_in_page_points(scan: Sample) -> None:
    words = ocr_page(first_page(scan), 0, Limits())
    text = " ".join(w.text for w in words)
    assert "MERIDIAN" in text and "Particulars" in text
    assert all(w.conf is not None and 0 <= w.conf <= 100 for w in words)
    assert all(0 <= w.x0 < w.x1 <= 600 for w in words)  # an A4 page is 595 points wide


def test_ocr_page_timeout_is_transient(scan: Sample) -> None:
    with pytest.raises(OcrTimeout) as info:
        ocr_page(first_page(scan), 0, Limits(seconds_per_ocr_page=0.01))
    assert info.value.transient and info.value.reason == "ocr_timeout"


def test_file_time_budget_stops_reading(tmp_path) -> None:
    sample = generate(tmp_path, ("northwind",), 1, seed=2026)[0]
    with pytest.raises(ParseTimeout) as info:
        parse_pdf(sample.pdf.read_bytes(), limits=Limits(seconds_per_file=0.0))
    assert info.value.reason == "too_slow" and not info.value.transient


def test_engine_identity_pins_version_and_traineddata() -> None:
    identity = engine_identity()
    assert identity.startswith("tesseract:5.") and "+eng:" in identity
