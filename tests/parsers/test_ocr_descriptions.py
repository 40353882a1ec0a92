"""Description words of a scan the generic reader read (no template): each must be vouched
for as a template's row's are, or the statement goes to review."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from parsers.model import Account, Transaction
from parsers.ocr.descriptions import unvouched_descriptions
from parsers.pdf.lines import Line
from parsers.pdf.page import Word


def ocr(*read: tuple[str, float] | tuple[str, float, str]) -> list[Line]:
    """One OCR line of words (text, confidence[, the second engine's reading])."""
    words, x = [], 50.0
    for r in read:
        text, conf = r[0], r[1]
        second = r[2] if len(r) > 2 else None
        words.append(Word(text, x, x + 8 * len(text), 100, 110, conf, 1, (), False, second))
        x += 8 * len(text) + 6
    return [Line(1, words)]


def account(*descriptions: str) -> list[Account]:
    txs = [Transaction(date(2025, 1, 2 + i), d, Decimal("-1.00"), None)
           for i, d in enumerate(descriptions)]
    return [Account("2134", "USD", Decimal("10.00"), Decimal(10 - len(txs)), txs)]


def test_a_word_ocr_read_with_no_confidence_and_the_second_engine_otherwise_goes_to_review(
        ) -> None:
    lines = ocr(("01/04", 96), ("peat", 0, "8NITE"), ("TRANSFER", 96), ("1,690.49", 97))
    problems = unvouched_descriptions(lines, account("peat TRANSFER"))
    assert len(problems) == 1
    assert "row 1 (2025-01-02)" in problems[0] and "'peat' with confidence 0" in problems[0]
    assert "RapidOCR read '8NITE'" in problems[0]


def test_words_read_confidently_or_vouched_for_stand() -> None:
    lines = ocr(("ONLINE", 96), ("TRANSFER", 60), ("REF", 95), ("88231", 70, "88231"))
    # `TRANSFER` is a word of the language read with some confidence; `88231` is read twice
    lines = [Line(1, [w._replace(twice=w.text == "88231") for w in lines[0].words])]
    assert unvouched_descriptions(lines, account("ONLINE TRANSFER REF 88231")) == []


def test_a_word_broken_at_its_hyphen_is_found_as_its_two_parts() -> None:
    assert unvouched_descriptions(ocr(("ID", 96), ("7781-", 95), ("ALPHA", 96)),
                                  account("ID 7781-ALPHA")) == []
    problems = unvouched_descriptions(ocr(("ID", 96), ("7781-", 40), ("ALPHA", 96)),
                                      account("ID 7781-ALPHA"))
    assert len(problems) == 1 and "'7781-' with confidence 40" in problems[0]


def test_a_word_no_ocr_word_reads_does_not_stand() -> None:
    problems = unvouched_descriptions(ocr(("RENT", 96)), account("RENT", "RENTAL"))
    assert len(problems) == 1 and "row 2" in problems[0] and "'RENTAL'" in problems[0]


def test_two_numbers_side_by_side_and_look_alike_ordinals_go_to_review() -> None:
    lines = ocr(("REF", 96), ("20251", 96), ("10400193", 96), ("STH", 96), ("AVE", 96))
    problems = unvouched_descriptions(lines, account("REF 20251 10400193", "STH AVE"))
    assert [p.split(":")[0] for p in problems] == ["account 1 (****2134) row 1 (2025-01-02)",
                                                   "account 1 (****2134) row 2 (2025-01-03)"]
    assert "two numbers side by side" in problems[0] and "'STH'" in problems[1]


def test_an_iban_in_its_print_form_is_no_two_numbers_side_by_side() -> None:
    printed = "IBAN: DE02 1203 0000 0000 2020 51"
    lines = ocr(*((w, 96.0) for w in printed.split()))
    assert unvouched_descriptions(lines, account(printed)) == []


def test_a_text_layer_s_words_are_not_weighed() -> None:
    lines = [Line(1, [Word("peat", 50, 80, 100, 110)])]
    assert unvouched_descriptions(lines, account("peat")) == []
