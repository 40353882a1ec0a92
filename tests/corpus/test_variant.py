"""Variation knobs as data: every kind appears in a few dozen, only where a bank prints it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from corpus import BANKS, Sample
from corpus.variant import APPLIES, PLAIN, Variant, draw_variant

#: Every kind the varied corpus must show, by name as `<stem>.variant.json` lists it.
KINDS = {
    "producer:fpdf2", "fpdf2:embedded-font", "fpdf2:letter-spacing", "fpdf2:word-gap",
    "fpdf2:by-column", "case:upper", "case:lower", "case:title", "colon", "no-colon",
    "period-form:short", "period-form:from-to", "opening-label", "closing-label",
    "number-label", "currency:before", "currency:after", "currency:none", "sign:trailing",
    "sign:parentheses", "sign:leading", "furniture:footer", "furniture:continued",
    "furniture:page-of", "furniture:repeated-header", "furniture:watermark",
    "day-end-balance", "date-once", "narrow", "carry-rows", "header-align:left",
    "header-align:center", "header-align:shifted", "missing-header", "value-below",
    "two-accounts", "derived-opening", "split-sections", "scan:150dpi", "scan:200dpi",
    "scan:300dpi", "scan:skew", "scan:noise", "scan:blur", "scan:jpeg",
}


def draws(bank: str, n: int = 200) -> list[Variant]:
    return [draw_variant(bank, i, random.Random(f"t:{bank}:{i}")) for i in range(n)]


def test_plain_variant_applies_nothing() -> None:
    assert PLAIN.kinds() == []
    assert PLAIN.label("Beginning Balance") == "Beginning Balance"
    assert PLAIN.label("Beginning Balance", colon=True) == "Beginning Balance:"


def test_label_takes_the_variant_wording_case_and_colon() -> None:
    v = Variant(case="upper", colon=True)
    assert v.label("Beginning Balance", "Balance brought forward") == "BALANCE BROUGHT FORWARD:"
    assert Variant(colon=False).label("Statement Period", colon=True) == "Statement Period"


@pytest.mark.slow
def test_every_variation_kind_appears_in_a_few_dozen_statements(varied: list[Sample]) -> None:
    seen = Counter(k for s in varied for k in s.variant["kinds"])
    assert KINDS - set(seen) == set()


@pytest.mark.parametrize("bank", BANKS)
def test_a_bank_only_gets_the_variations_it_would_print(bank: str) -> None:
    can = APPLIES[bank]
    for v in draws(bank):
        if "day-end-balance" not in can:
            assert not v.day_end_balance
        if "carry-rows" not in can:
            assert not v.carry_rows
        if "sign" not in can:
            assert v.sign == "standard"
        assert (v.scan is not None) == (bank == "meridian")
        assert v.structure in {"", *(s for s in can if s in
                                     ("two-accounts", "derived-opening", "split-sections"))}


@pytest.mark.parametrize("bank", BANKS)
def test_variations_that_would_hide_the_truth_are_never_combined(bank: str) -> None:
    for v in draws(bank):
        if v.structure == "split-sections":  # no running balance to print per day or carry
            assert not (v.day_end_balance or v.carry_rows or v.missing_header)
        if v.structure == "derived-opening":  # the first row must print its balance
            assert not v.day_end_balance


def test_worst_scan_blur_and_jpeg_stay_off_the_lowest_resolution() -> None:
    scans = [v.scan for v in draws("meridian", 400) if v.scan]
    low = [q for q in scans if q.dpi == 150]
    assert low
    assert all(q.blur <= 0.5 and q.jpeg >= 70 for q in low)
    assert {q.dpi for q in scans} == {150, 200, 240, 300}
