from __future__ import annotations

import re

import pytest

from corpus import Sample
from parsers.api import parse_pdf
from parsers.errors import StatementError
from parsers.layout.detect import detect
from parsers.layout.template import load_templates
from parsers.limits import Limits
from parsers.pdf.lines import page_lines
from parsers.pdf.page import Page
from parsers.pdf.pdfplumber_reader import PdfplumberReader


def pdf_lines(data: bytes):
    pages = PdfplumberReader().read(data, Limits())
    return [ln for p in pages for ln in page_lines(p)]


def lines_of(sample: Sample):
    return pdf_lines(sample.pdf.read_bytes())


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

    from parsers.layout.template import Field

    sample = next(s for s in corpus if s.bank == "harbor")
    harbor = next(t for t in load_templates() if t.bank == "harbor")
    blind = replace(harbor, closing=Field(pattern=r"^Never printed (?P<closing>{AMOUNT})"))
    try:
        result = parse_pdf(sample.pdf.read_bytes(), templates=[blind])
    except StatementError as exc:
        assert exc.reason == "unreadable"
        assert "'closing' not found" in exc.message
    else:  # the generic reader proved the statement: it says which template gave way
        assert result.layout == "generic" and result.validation.ok
        assert any("'closing' not found" in note for note in result.notes)
    with pytest.raises(StatementError) as info:  # and when the generic reader fails too
        parse_pdf(sample.pdf.read_bytes(), templates=[blind], reader=_WithoutFirstAmount())
    assert info.value.reason == "unreadable"
    assert "'closing' not found" in info.value.message


class _WithoutFirstAmount:
    """The real page reader, with the first transaction's amount lost (nothing reconciles)."""

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        from parsers.api import page_reader

        pages = page_reader().read(data, limits)
        rows = {round(w.top) for w in pages[0].words if re.fullmatch(r"\d\d/\d\d", w.text)}
        lost = next(w for w in pages[0].words if round(w.top) in rows
                    and re.fullmatch(r"[\d,]+\.\d\d", w.text))
        for p in pages:
            p.words = [w for w in p.words if w is not lost]
        return pages


def _lookalike(bank_name: str) -> bytes:
    """A statement laid out like Northwind's, printed by `bank_name`."""
    from tests.parsers.sheets import pdf

    header = [(50, "Date"), (95, "Description"), (-410, "Withdrawals"), (-480, "Deposits"),
              (-560, "Balance")]
    return pdf([[
        (30, [(50, bank_name), (-560, "Statement Period: 12/01/2025 - 12/31/2025")]),
        (45, [(50, "Account Number: ****1234"), (-560, "Page 1")]),
        (70, [(60, "Beginning Balance"), (-330, "$1,000.00")]),
        (83, [(60, "Deposits and Additions"), (-330, "$0.00")]),
        (96, [(60, "Withdrawals and Subtractions"), (-330, "$4.50")]),
        (109, [(60, "Ending Balance"), (-330, "$995.50")]),
        (130, header),
        (145, [(50, "12/03"), (95, "COFFEE HOUSE"), (-410, "4.50"), (-560, "995.50")]),
    ]])


def test_a_bank_without_a_template_is_never_claimed_by_another_banks_template() -> None:
    from parsers.api import parse_pdf

    data = _lookalike("ACME BANK OF TESTING")
    found = detect(pdf_lines(data), load_templates())
    assert found.template is None and found.scores["northwind"] >= 1
    try:
        result = parse_pdf(data)
    except StatementError as exc:
        assert exc.reason == "unrecognised_layout"
    else:
        assert result.layout == "generic"
    assert parse_pdf(_lookalike("NORTHWIND BANK, N.A.")).layout == "northwind"


def test_a_bank_named_by_the_caller_must_print_its_name() -> None:
    from parsers.api import parse_pdf

    with pytest.raises(StatementError) as info:
        parse_pdf(_lookalike("ACME BANK OF TESTING"), bank="northwind")
    assert info.value.reason == "bank_mismatch" and "name is not printed" in info.value.message
