from __future__ import annotations

import pytest

from corpus import Sample
from parsers.api import parse_pdf
from parsers.detect import detect
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.lines import page_lines
from parsers.reader import PdfplumberReader
from parsers.template import load_templates


def lines_of(sample: Sample):
    pages = PdfplumberReader().read(sample.pdf.read_bytes(), Limits())
    return [ln for p in pages for ln in page_lines(p)]


@pytest.mark.parametrize("bank", ["northwind", "bluebird", "harbor", "alpenbank"])
def test_each_reference_bank_is_detected_by_its_markers(corpus: list[Sample], bank: str) -> None:
    sample = next(s for s in corpus if s.bank == bank)
    found = detect(lines_of(sample), load_templates())
    assert found.template is not None and found.template.bank == bank


def test_unknown_bank_detects_nothing(corpus: list[Sample]) -> None:
    sample = next(s for s in corpus if s.bank == "cedar")
    assert detect(lines_of(sample), load_templates()).template is None


def test_tie_between_templates_is_ambiguous_not_a_guess(corpus: list[Sample]) -> None:
    from dataclasses import replace

    sample = next(s for s in corpus if s.bank == "northwind")
    northwind = next(t for t in load_templates() if t.bank == "northwind")
    twin = replace(northwind, bank="twin")
    assert detect(lines_of(sample), [northwind, twin]).template is None


def test_bank_hint_is_verified_against_markers(corpus: list[Sample]) -> None:
    sample = next(s for s in corpus if s.bank == "northwind")
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes(), bank="alpenbank")
    assert info.value.reason == "bank_mismatch"
    assert parse_pdf(sample.pdf.read_bytes(), bank="northwind").layout == "northwind"


def test_recognised_layout_missing_a_figure_is_unreadable_not_unrecognised(
        corpus: list[Sample]) -> None:
    from dataclasses import replace

    sample = next(s for s in corpus if s.bank == "bluebird")
    bluebird = next(t for t in load_templates() if t.bank == "bluebird")
    blind = replace(bluebird, fields={**bluebird.fields, "closing": "^Never printed"})
    with pytest.raises(StatementError) as info:
        parse_pdf(sample.pdf.read_bytes(), templates=[blind])
    assert info.value.reason == "unreadable"
    assert "'closing' not found" in info.value.message
