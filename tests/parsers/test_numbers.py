from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.numbers import amount_pattern, format_amount, parse_amount, parse_date

money = st.decimals(min_value=Decimal("-99999999.99"), max_value=Decimal("99999999.99"),
                    places=2, allow_nan=False, allow_infinity=False)


@given(money, st.sampled_from(["en", "de"]), st.booleans())
def test_amount_roundtrips_in_every_locale(value: Decimal, locale: str, group: bool) -> None:
    printed = ("-" if value < 0 else "") + format_amount(value, locale, group=group)
    assert parse_amount(printed, locale) == (value, "")


@given(money, st.sampled_from(["prefix", "suffix", "parens"]))
def test_negative_styles_all_read_negative(value: Decimal, style: str) -> None:
    body = format_amount(value)
    printed = {"prefix": f"-{body}", "suffix": f"{body}-", "parens": f"({body})"}[style]
    parsed, _ = parse_amount(printed)
    assert parsed == -abs(value)


@given(money, st.sampled_from(["CR", "DR", "Cr", "Dr", "Cr."]))
def test_cr_dr_suffix_is_reported_not_applied(value: Decimal, suffix: str) -> None:
    parsed, got = parse_amount(f"{format_amount(value)} {suffix}")
    assert parsed == abs(value)
    assert got == suffix.rstrip(".").upper()


@given(money, st.sampled_from(["en", "de"]))
def test_amount_pattern_matches_what_format_prints(value: Decimal, locale: str) -> None:
    import re

    printed = ("-" if value < 0 else "") + format_amount(value, locale)
    assert re.fullmatch(amount_pattern(locale), printed)


@pytest.mark.parametrize("text", ["1.234,56", "12,34", "1,234.5", "abc", "", "1 234.56x"])
def test_wrong_locale_or_garbage_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_amount(text, "en")


def test_german_amount_with_thousands() -> None:
    assert parse_amount("1.234.567,89", "de") == (Decimal("1234567.89"), "")
    assert parse_amount("-0,05", "de") == (Decimal("-0.05"), "")


@pytest.mark.parametrize(("text", "fmt", "end", "expected"), [
    ("12/28", "%m/%d", date(2026, 1, 14), date(2025, 12, 28)),
    ("01/03", "%m/%d", date(2026, 1, 14), date(2026, 1, 3)),
    ("Dec 31", "%b %d", date(2026, 1, 31), date(2025, 12, 31)),
    ("02/29", "%m/%d", date(2024, 3, 5), date(2024, 2, 29)),
    ("05-Jan-2026", "%d-%b-%Y", None, date(2026, 1, 5)),
    ("31.12.2025", "%d.%m.%Y", None, date(2025, 12, 31)),
])
def test_dates_take_the_year_of_the_period(text, fmt, end, expected) -> None:
    assert parse_date(text, fmt, end) == expected


@given(st.dates(min_value=date(2001, 1, 1), max_value=date(2098, 12, 31)),
       st.integers(min_value=0, max_value=300))
def test_yearless_date_infers_latest_year_not_after_period_end(day: date, back: int) -> None:
    from datetime import timedelta

    end = day + timedelta(days=back)
    assert parse_date(f"{day:%m/%d}", "%m/%d", end) == day


def test_yearless_date_without_period_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_date("12/01", "%m/%d", None)
