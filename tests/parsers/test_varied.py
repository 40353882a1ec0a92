"""The reference templates read the varied corpus: never a validated wrong statement."""

from __future__ import annotations

import json

import pytest

from corpus import Sample, generate
from parsers.api import parse_pdf
from parsers.errors import StatementError
from parsers.ocr.tesseract import ocr_page
from parsers.pdf.pdfium_reader import PdfiumReader

TEXT_BANKS = ("northwind", "bluebird", "harbor", "alpenbank")


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("varied"), TEXT_BANKS, 48, seed=4711, varied=True)


def outcome(s: Sample, **kwargs) -> str:
    try:
        r = parse_pdf(s.pdf.read_bytes(), **kwargs)
    except StatementError:
        return "refused"
    right = r.statement.to_dict() == json.loads(s.truth.read_text())
    return ("exact" if right else "wrong") if r.validation.ok else "flagged"


@pytest.mark.slow
def test_varied_statements_are_exact_and_never_validated_wrong(varied: list[Sample]) -> None:
    reader = PdfiumReader(ocr=ocr_page)
    assert {s.pdf.name: outcome(s, reader=reader) for s in varied} == {
        s.pdf.name: "exact" for s in varied}


@pytest.mark.slow
def test_a_watermark_the_page_reader_merges_into_words_is_flagged_not_wrong(
        varied: list[Sample]) -> None:
    outcomes = {s.pdf.name: (outcome(s), "furniture:watermark" in s.variant["kinds"])
                for s in varied}
    assert [n for n, (o, _) in outcomes.items() if o == "wrong"] == []
    assert [n for n, (o, watermark) in outcomes.items() if o != "exact" and not watermark] == []
