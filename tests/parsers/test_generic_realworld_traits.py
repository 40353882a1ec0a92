"""The generic reader on what real statements print (`corpus/traits.py`): each trait read
exactly, alone and in the mixes real banks print, and a copy whose printed balance
contradicts its rows never validated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import generate
from corpus.banks import Printed
from corpus.traits import CONTRADICTIONS, TRAITS, real_world
from parsers.api import ParseResult, parse_pdf
from parsers.errors import StatementError

#: Traits together as real banks print them (an Indian savings account, a Brazilian one,
#: a South African, a Dutch, an Argentine one, a long statement turned sideways).
MIXES = {
    "indian-savings": ("indian-grouping", "reversal", "no-account-number", "newest-first"),
    "brazilian": ("portuguese", "balance-rows", "newest-first"),
    "south-african": ("space-grouping", "summary-box", "reversal"),
    "dutch": ("dutch", "newest-first", "rotated"),
    "argentine": ("spanish", "balance-rows", "summary-box"),
    "long-sideways": ("page-furniture", "balance-rows", "rotated"),
    "yearless-newest": ("yearless-dates", "newest-first", "balance-rows"),
    "narrow-spaces": ("narrow-space-grouping", "summary-box", "no-account-number"),
    "indian-card": ("card", "indian-grouping", "yearless-dates"),
    "indian-card-short-years": ("card", "indian-grouping", "short-year"),
}


def read(drawn: Printed) -> ParseResult:
    return parse_pdf(drawn.pdf, templates=[])


def exact(drawn: Printed) -> ParseResult:
    """The statement read by the generic reader, validated and equal to its truth."""
    result = read(drawn)
    assert result.layout == "generic"
    assert result.validation.ok, result.validation.problems
    assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
    assert result.statement.period_end == drawn.truth.period_end
    return result


def never_validated(drawn: Printed) -> None:
    try:
        result = read(drawn)
    except StatementError:
        return
    assert not result.validation.ok


@pytest.mark.parametrize("seed", [7, 8])
@pytest.mark.parametrize("trait", TRAITS)
def test_each_trait_is_read_exactly(trait: str, seed: int) -> None:
    exact(real_world([trait], seed=seed))


def contradictions(traits: tuple[str, ...]) -> tuple[str, ...]:
    """The ways `traits` can contradict themselves (a card prints no running balance)."""
    return ("closing",) if "card" in traits else CONTRADICTIONS


@pytest.mark.parametrize(("trait", "how"), [(t, how) for t in TRAITS
                                            for how in contradictions((t,))])
def test_a_contradicted_trait_is_never_validated(trait: str, how: str) -> None:
    never_validated(real_world([trait], contradicted=how))


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_traits_mixed_as_real_banks_print_them_are_read_exactly(mix: str) -> None:
    exact(real_world(MIXES[mix], index=1))
    for how in contradictions(MIXES[mix]):
        never_validated(real_world(MIXES[mix], index=1, contradicted=how))


def test_an_account_without_a_printed_number_is_read_unnamed() -> None:
    result = exact(real_world(["no-account-number"]))
    assert result.statement.accounts[0].account_last4 == ""
    assert result.reading()["accounts"][0]["unnamed"] is True
    assert exact(real_world([])).reading()["accounts"][0]["unnamed"] is False


def test_a_description_naming_a_card_names_no_account() -> None:
    drawn = real_world(["no-account-number"], seed=13)
    assert any("CARD ENDING 4410" in t.description
               for t in drawn.truth.accounts[0].transactions)
    assert exact(drawn).statement.accounts[0].account_last4 == ""


#: Statements under `Débito` / `Crédito` headers whose money only goes out (a reversal
#: aside, printed in the same column): (traits, index, seed).
ONE_WAY = [(("spanish",), 59, 1), (("portuguese", "reversal"), 36, 1)]


@pytest.mark.parametrize(("traits", "index", "seed"), ONE_WAY)
def test_the_one_way_statements_print_one_column_of_money(traits: tuple[str, ...],
                                                          index: int, seed: int) -> None:
    assert all(t.amount < 0 or t.description.startswith("REVERSAL ")
               for t in real_world(traits, index, seed).truth.accounts[0].transactions)


@pytest.mark.parametrize(("traits", "index", "seed"), ONE_WAY)
def test_money_moving_one_way_under_debito_and_credito(traits: tuple[str, ...], index: int,
                                                       seed: int) -> None:
    exact(real_world(traits, index, seed))


def test_rows_newest_first_are_read_from_the_last() -> None:
    result = exact(real_world(["newest-first"]))
    assert "order" in result.reading()["accounts"][0]["derived"]
    assert "order" not in exact(real_world([])).reading()["accounts"][0]["derived"]


@pytest.mark.parametrize("traits", [["balance-rows"], ["portuguese", "balance-rows"],
                                    ["page-furniture", "balance-rows"]])
def test_balance_rows_are_checks_not_transactions(traits: list[str]) -> None:
    drawn = real_world(traits)
    result = exact(drawn)
    # the brought-forward row, and SALDO DO DIA under each day or a balance carried over
    # each page break, each checked against the running total
    assert result.reading()["accounts"][0]["balance_rows_checked"] >= 1 + (
        "portuguese" in traits or "page-furniture" in traits)


def test_a_reversal_in_the_withdrawal_column_is_money_in() -> None:
    drawn = real_world(["reversal"])
    result = exact(drawn)
    (reversal,) = [t for t in result.statement.accounts[0].transactions
                   if t.description.startswith("REVERSAL ")]
    assert reversal.amount > 0


def test_the_unknown_bank_of_a_varied_corpus_is_read_exactly(tmp_path: Path) -> None:
    for s in generate(tmp_path, ("cedar",), 12, seed=2026, varied=True):
        result = parse_pdf(s.pdf.read_bytes(), templates=[])
        assert result.validation.ok, (s.variant, result.validation.problems)
        assert result.statement.to_dict() == json.loads(s.truth.read_text()), s.variant
