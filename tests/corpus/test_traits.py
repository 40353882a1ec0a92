"""The real-world traits: each reaches the page as real statements print it, its truth holds,
and a contradicted copy differs from the statement in one printed balance only."""

from __future__ import annotations

import random
import re
from decimal import Decimal
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from corpus import generate
from corpus.traits import CONTRADICTIONS, TRAITS, VARIED, draw_traits, indian, real_world
from parsers.model import Account
from parsers.numbers import format_amount
from parsers.pdf.pdfium import LOCK


def pages(pdf: bytes) -> list[str]:
    """Each page's text as displayed, one string per page."""
    with LOCK:
        doc = pdfium.PdfDocument(pdf)
        try:
            return [p.get_textpage().get_text_range().replace("\r\n", "\n") for p in doc]
        finally:
            doc.close()


def text(pdf: bytes) -> str:
    return "\n".join(pages(pdf))


def holds(acct: Account) -> bool:
    """opening + every amount = closing, and each balance printed is the running total."""
    balance = acct.opening_balance
    for t in acct.transactions:
        balance += t.amount
        if t.balance is not None and t.balance != balance:
            return False
    return balance == acct.closing_balance


#: What each trait prints, as a pattern over the page text.
PRINTS = {
    "indian-grouping": r"(?<![\d,])\d{1,2},\d\d,\d{3}\.\d\d",
    "space-grouping": r"(?<!\d)(?<!\d )\d{1,3}(?: \d{3})+\.\d\d",
    "narrow-space-grouping": "\\d\u202f\\d{3}\\.\\d\\d",
    "balance-rows": r"\bB/F\b",
    "summary-box": r"Previous Balance Deposits Withdrawals Closing Balance",
    "yearless-dates": r"(?m)^\d\d [A-Z][a-z]{2} [A-Z]",
    "short-year": r"(?m)^\d\d [A-Z][a-z]{2} \d\d [A-Z]",
    "short-year-time": r"(?m)^\d\d [A-Z][a-z]{2} \d\d \d\d:\d\d [A-Z]",
    "reversal": r"REVERSAL .* -\d",
    "page-furniture": r"Page 1 of [23][\s\S]*JUNIPER COAST BANK - Date Description",
    "five-columns": r"Chq\./Ref\.No\. Value Dt Withdrawals Deposits Balance",
    "end-decoy": r"End of Statement \*+\s+Standing instructions",
    "dutch": r"Eindsaldo [\s\S]*Datum Omschrijving Bedrag Saldo[\s\S]*Pagina 1",
    "spanish": r"Saldo al \d[\s\S]*Fecha Descripción Débito Crédito Saldo[\s\S]*Página 1",
    "portuguese": r"Saldo final [\s\S]*Data Histórico Valor Saldo[\s\S]*Página 1",
    "card": r"Card ending \d{4}[\s\S]*Previous Balance Payments/Credits Purchases/Debits Total "
            r"Dues[\s\S]*Date Transaction Description Amount\n[\s\S]* Cr\n",
}


@pytest.mark.parametrize("trait", sorted(PRINTS))
def test_each_trait_reaches_the_page(trait: str) -> None:
    drawn = real_world([trait])
    assert re.search(PRINTS[trait], text(drawn.pdf)), trait
    assert not re.search(PRINTS[trait], text(real_world([]).pdf))
    assert f"trait:{trait}" in drawn.drawn


@pytest.mark.parametrize("trait", TRAITS)
def test_the_truth_of_every_trait_holds_and_names_no_template_bank(trait: str) -> None:
    for seed in (7, 8):
        truth = real_world([trait], seed=seed).truth
        assert truth.bank == "generic" and len(truth.accounts) == 1
        assert truth.accounts[0].transactions and holds(truth.accounts[0])


def test_indian_grouping_groups_lakhs_and_crores_by_two() -> None:
    assert [indian(Decimal(v)) for v in ("52116725.67", "123456.00", "999.99", "1000.00")
            ] == ["5,21,16,725.67", "1,23,456.00", "999.99", "1,000.00"]


def test_rows_newest_first_run_their_balances_up_the_page() -> None:
    drawn = real_world(["newest-first"])
    acct = drawn.truth.accounts[0]
    printed = re.findall(r"(?m)^\d\d \w{3} \d{4} .* ([\d,]+\.\d\d)$", text(drawn.pdf))
    shown = [Decimal(b.replace(",", "")) for b in printed]
    assert shown == [t.balance for t in reversed(acct.transactions)]
    assert [t.date for t in acct.transactions] == sorted(t.date for t in acct.transactions)


def test_no_account_number_is_printed_and_the_truth_names_none() -> None:
    drawn = real_world(["no-account-number"])
    assert drawn.truth.accounts[0].account_last4 == ""
    assert "Account number" not in text(drawn.pdf)
    assert "Account number" in text(real_world([]).pdf)


def test_balance_rows_are_printed_but_are_no_transactions() -> None:
    drawn = real_world(["portuguese", "balance-rows"])
    days = {t.date for t in drawn.truth.accounts[0].transactions}
    page = text(drawn.pdf)
    assert page.count("SALDO DO DIA") == len(days)
    assert not any("SALDO" in t.description for t in drawn.truth.accounts[0].transactions)


def test_a_summary_box_is_the_only_place_the_balances_are_printed() -> None:
    drawn = real_world(["summary-box"])
    page = text(drawn.pdf)
    assert "Opening balance" not in page and "Closing balance" not in page
    found = re.search(r"Previous Balance.*\n(.*)", page)
    assert found is not None
    figures = found.group(1)
    acct = drawn.truth.accounts[0]
    assert figures.split()[0].replace(",", "") == str(acct.opening_balance)
    assert figures.split()[-1].replace(",", "") == str(acct.closing_balance)


def test_yearless_rows_take_their_year_from_the_statement_date_only() -> None:
    drawn = real_world(["yearless-dates"])
    end = drawn.truth.period_end
    assert end is not None and drawn.truth.period_start is None
    assert f"Statement date: {end:%d %b %Y}" in text(drawn.pdf)
    assert text(drawn.pdf).count(str(end.year)) == 1


def test_a_reversal_is_money_in_printed_as_a_negative_withdrawal() -> None:
    drawn = real_world(["reversal"])
    (reversal,) = [t for t in drawn.truth.accounts[0].transactions
                   if t.description.startswith("REVERSAL ")]
    assert reversal.amount > 0
    assert f"-{format_amount(reversal.amount)} " in text(drawn.pdf)


def test_a_rotated_page_is_set_sideways_and_reads_upright() -> None:
    drawn, upright = real_world(["rotated"]), real_world([])
    with LOCK:
        doc = pdfium.PdfDocument(drawn.pdf)
        try:
            assert doc[0].get_rotation() == 90
            assert doc[0].get_size() == (792.0, 612.0)
        finally:
            doc.close()
    assert pages(drawn.pdf) == pages(upright.pdf)


def test_the_decoy_after_the_end_of_statement_holds_none_of_the_truth() -> None:
    drawn = real_world(["end-decoy"])
    after = text(drawn.pdf).split("End of Statement")[1]
    dated = re.findall(r"(?m)^\d\d \w{3} \d{4} (.*?) [\d,]+\.\d\d", after)
    assert dated and all(d == "STANDING ORDER RENT" for d in dated)
    assert all(t.description != "STANDING ORDER RENT"
               for t in drawn.truth.accounts[0].transactions)


@pytest.mark.parametrize("how", CONTRADICTIONS)
def test_a_contradicted_copy_changes_one_printed_balance_only(how: str) -> None:
    plain, off = real_world(["summary-box"]), real_world(["summary-box"], contradicted=how)
    assert plain.truth == off.truth
    before, after = (re.findall(r"\d[\d,]*\.\d\d", text(d.pdf)) for d in (plain, off))
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1
    a, b = (Decimal(x.replace(",", "")) for x in changed[0])
    assert b - a == Decimal("0.10")


def test_the_same_traits_and_seed_draw_the_same_file() -> None:
    traits = ["spanish", "balance-rows", "newest-first", "rotated"]
    assert real_world(traits, 3, 9).pdf == real_world(reversed(traits), 3, 9).pdf
    assert real_world(traits, 3, 9).pdf != real_world(traits, 4, 9).pdf


def test_a_card_prints_no_running_balance_and_owes_its_balances() -> None:
    drawn = real_world(["card"])
    acct = drawn.truth.accounts[0]
    assert all(t.balance is None for t in acct.transactions)
    assert acct.opening_balance <= 0  # what is owed, seen from the holder's side
    owed = format_amount(acct.opening_balance)
    assert re.search(rf"Previous Balance.*\n{re.escape(owed)} ", text(drawn.pdf))
    assert "Balance\n" not in text(drawn.pdf)


def test_unknown_traits_and_two_languages_are_refused() -> None:
    for traits, how in ((["sideways"], ""), (["dutch", "spanish"], ""),
                        (["dutch", "indian-grouping"], ""), ([], "opening"),
                        (["card", "balance-rows"], ""), (["card"], "running"),
                        (["indian-grouping", "space-grouping"], ""),
                        (["yearless-dates", "short-year"], "")):
        with pytest.raises(ValueError):
            real_world(traits, contradicted=how)


def test_a_varied_corpus_draws_the_unknown_bank_with_a_few_traits(tmp_path: Path) -> None:
    samples = generate(tmp_path / "varied", ("cedar",), 6, seed=3, varied=True)
    for s in samples:
        traits = s.variant["knobs"]["traits"]
        assert 1 <= len(traits) <= 3 and set(traits) <= set(VARIED)
        assert s.variant["kinds"] == sorted(f"trait:{t}" for t in traits)
    assert len({tuple(s.variant["knobs"]["traits"]) for s in samples}) > 1
    assert all(s.variant == {} for s in generate(tmp_path / "plain", ("cedar",), 2, seed=3))


def test_drawn_traits_always_make_a_statement() -> None:
    rng = random.Random(5)
    drawn = [draw_traits(rng) for _ in range(200)]
    assert {t for ts in drawn for t in ts} == set(VARIED)
    assert all(list(ts) == sorted(ts, key=TRAITS.index) for ts in drawn)
