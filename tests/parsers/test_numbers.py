import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.numbers import (
    amount_or_none,
    amount_pattern,
    currency_agrees,
    find_amounts,
    format_amount,
    may_end_in_amount,
    parse_amount,
    read_amount,
    read_slipped_amount,
)

money = st.decimals(min_value=Decimal("-99999999.99"), max_value=Decimal("99999999.99"),
                    places=2, allow_nan=False, allow_infinity=False)
LOCALES = st.sampled_from(["en", "de", "fr", "ch"])


@given(money, LOCALES, st.booleans())
def test_amount_roundtrips_in_every_locale(value: Decimal, locale: str, group: bool) -> None:
    printed = ("-" if value < 0 else "") + format_amount(value, locale, group=group)
    assert parse_amount(printed, locale) == (value, "")


@given(money, st.sampled_from(["prefix", "suffix", "parens", "spaced-prefix", "spaced-suffix"]))
def test_negative_styles_all_read_negative(value: Decimal, style: str) -> None:
    body = format_amount(value)
    printed = {"prefix": f"-{body}", "suffix": f"{body}-", "parens": f"({body})",
               "spaced-prefix": f"- {body}", "spaced-suffix": f"{body} -"}[style]
    assert parse_amount(printed)[0] == -abs(value)


@given(money)
def test_leading_plus_is_positive(value: Decimal) -> None:
    assert parse_amount(f"+{format_amount(value)}")[0] == abs(value)
    assert parse_amount(f"+ {format_amount(value, 'de')}", "de")[0] == abs(value)


def test_trailing_minus_is_negative() -> None:
    assert parse_amount("580,06-", "de") == (Decimal("-580.06"), "")


@given(money, st.sampled_from(["CR", "DR", "Cr", "Dr", "Cr.", "cr"]))
def test_cr_dr_suffix_is_reported_not_applied(value: Decimal, suffix: str) -> None:
    parsed, got = parse_amount(f"{format_amount(value)} {suffix}")
    assert parsed == abs(value)
    assert got == suffix.rstrip(".").upper()


@pytest.mark.parametrize(("text", "locale", "value", "currency"), [
    ("EUR 19.949,91", "de", "19949.91", "EUR"),
    ("19.949,91 EUR", "de", "19949.91", "EUR"),
    ("19.949,91EUR", "de", "19949.91", "EUR"),
    ("-683,68 Euro", "de", "-683.68", "EURO"),
    ("£40.00", "en", "40.00", "£"),
    ("$ 12.00", "en", "12.00", "$"),
    ("-$4.50", "en", "-4.50", "$"),
    ("$-4.50", "en", "-4.50", "$"),
    ("($4.50)", "en", "-4.50", "$"),
    ("USD (4.50)", "en", "-4.50", "USD"),
    ("4.50- USD", "en", "-4.50", "USD"),
    ("1234.56", "en", "1234.56", None),
    ("1 234,56", "fr", "1234.56", None),
    ("1'234.56", "ch", "1234.56", None),
    ("\u22124.50", "en", "-4.50", None),
])
def test_currency_marks_and_signs_around_an_amount(text: str, locale: str, value: str,
                                                   currency: str | None) -> None:
    a = read_amount(text, locale)
    assert (a.value, a.currency) == (Decimal(value), currency)


@pytest.mark.parametrize(("text", "value", "suffix"), [
    ("90,350 CR", "90350", "CR"), ("12 DR", "12", "DR"), ("$40", "40", ""),
    ("EUR 5", "5", ""), ("USD 12.00 CR", "12.00", "CR"),
])
def test_a_figure_without_decimals_is_money_only_when_marked(text: str, value: str,
                                                             suffix: str) -> None:
    a = read_amount(text)
    assert (a.value, a.suffix) == (Decimal(value), suffix)


@pytest.mark.parametrize("text", [
    "1.234,56", "12,34", "1,234.5", "abc", "", "1 234.56x", "16", "1,234", "-(4.50)",
    "-4.50 CR", "(4.50) DR", "£40,000,00", "$ 4.50 USD", "(4.50", "--4.50", "CR", "4.50 4.50",
    "$", "12.345",
])
def test_anything_but_exactly_one_amount_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_amount(text, "en")


def test_german_amount_with_thousands() -> None:
    assert parse_amount("1.234.567,89", "de") == (Decimal("1234567.89"), "")
    assert parse_amount("-0,05", "de") == (Decimal("-0.05"), "")
    with pytest.raises(ValueError):
        parse_amount("2.853.82", "de")


def test_a_figure_read_again_reads_in_the_locale_asked_for() -> None:
    # readings are kept, each under its own locale: one never answers for another
    assert amount_or_none("1.234,56", "de").value == Decimal("1234.56")
    assert amount_or_none("1.234,56", "en") is None
    assert amount_or_none("1.234,56", locale="de").value == Decimal("1234.56")
    assert amount_or_none("1,234.56").value == Decimal("1234.56")
    assert amount_or_none("1,234.56", "de") is None


def test_amounts_are_decimals_never_floats() -> None:
    assert type(read_amount("0.10").value) is Decimal
    assert read_amount("0.10").value + read_amount("0.20").value == Decimal("0.30")


@given(money, st.sampled_from(["en", "de"]), st.sampled_from(["", "$", "EUR "]))
def test_amount_pattern_matches_what_format_prints(value: Decimal, locale: str,
                                                   mark: str) -> None:
    printed = mark + ("-" if value < 0 else "") + format_amount(value, locale)
    assert re.fullmatch(amount_pattern(locale), printed)


@pytest.mark.parametrize(("text", "found"), [
    ("Ending Balance 16 $189,296.31", ["189296.31"]),
    ("Deposits and Additions 10 125,883.63", ["125883.63"]),
    ("Checks Paid 2 - 3,169.04", ["-3169.04"]),
    ("Balance at 1 February: £40,000,00", []),
    ("on 12.03.2026 only", []),
    ("Transaction 4 1,350.00 90,350 CR", ["1350.00", "90350"]),
    ("Page 1 of 3", []),
])
def test_amounts_in_free_text(text: str, found: list[str]) -> None:
    assert [str(a.value) for a, _, _ in find_amounts(text)] == found


def test_currency_marks_agree_with_the_statement_currency() -> None:
    assert currency_agrees("$", "USD") and currency_agrees("EURO", "EUR")
    assert currency_agrees(None, "GBP")
    assert not currency_agrees("EUR", "USD") and not currency_agrees("£", "EUR")


@pytest.mark.parametrize(("text", "locale", "value"), [
    ("+ 2.853.82", "de", "2853.82"), ("EUR - 1.234.56", "de", "-1234.56"),
    ("£40,000,00", "en", "40000.00"), ("44.079.83", "en", "44079.83"), ("853.82", "de", "853.82"),
])
def test_a_slipped_decimal_mark_is_read_as_the_decimal(text: str, locale: str,
                                                       value: str) -> None:
    found = read_slipped_amount(text, locale)
    assert found is not None and found.value == Decimal(value)


@pytest.mark.parametrize(("text", "locale"), [
    ("2.853,82", "de"), ("1,234.56", "en"),  # printed right: not a slip
    ("2.85382", "de"), ("1.2.3", "en"), ("1,234.56.78", "en"), ("12.345.6", "de"),
    ("2.853.82 1.00", "de"), ("Seite 1.2", "de"),
])
def test_anything_but_one_slipped_figure_is_not_read_as_one(text: str, locale: str) -> None:
    assert read_slipped_amount(text, locale) is None


@pytest.mark.parametrize("text", ["Opening Balance", "", "   ", "EUR USD $ CR DR ( ) - +"])
def test_text_without_a_digit_prints_no_amount(text: str) -> None:
    assert find_amounts(text) == [] and find_amounts(text, "fr") == []


#: Pieces of the words of a statement line: figures in every locale's style, signs,
#: currency marks in any case (`İ` and the Kelvin sign match `I` and `K` ignoring case),
#: `CR`/`DR`, and words.
_PIECES = st.sampled_from(["1", "12", "234", ".", ",", "'", "\u00a0", "-", "(", ")", "+",
                           "$", "€", "£", "EUR", "eur", "Euro", "fr.", "SE\u212a", "\u0130NR",
                           "CR", "dr.", "Cr", "Coffee", "ref", "x", "/"])
_WORDS = st.lists(st.one_of(
    st.sampled_from(["12", "234,56", "1.234,56", "1,234.56", "12.50", "EUR", "CR", "(12.50)",
                     "-", "€40", "Coffee"]),
    st.lists(_PIECES, min_size=1, max_size=4).map("".join)), min_size=1, max_size=5)


@given(_WORDS, LOCALES)
def test_a_line_that_ends_in_an_amount_may(words: list[str], locale: str) -> None:
    text = " ".join(words)
    ending = [" ".join(words[i:]) for i in range(len(words))]
    if any(amount_or_none(run, locale) is not None for run in ending):
        assert may_end_in_amount(text, locale)


@pytest.mark.parametrize(("text", "locale"), [
    ("03/02/2026 Coffee 12.50 1,234.56", "fr"), ("03/02/2026 Coffee 12,50 1.234,56", "en"),
    ("Page 1 of 3", "de")])
def test_a_line_without_the_makings_of_an_amount_in_the_locale_is_ruled_out(
        text: str, locale: str) -> None:
    assert not may_end_in_amount(text, locale)


@pytest.mark.parametrize(("text", "locale"), [
    ("Fee SE\u212a 40", "fr"), ("Fee 40 \u0130NR", "en"), ("Refund 90,350 cr", "en"),
    ("Coffee 1 234,56", "fr"), ("Fee €40", "de")])
def test_a_line_ending_in_an_amount_is_never_ruled_out(text: str, locale: str) -> None:
    assert amount_or_none(" ".join(text.split()[1:]), locale) is not None
    assert may_end_in_amount(text, locale)
