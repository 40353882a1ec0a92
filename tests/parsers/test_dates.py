from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.dates import compile_format, is_yearless, month_names, parse_date

JAN_14 = date(2026, 1, 14)


@pytest.mark.parametrize(("text", "fmt", "end", "expected"), [
    ("12/28", "%m/%d", JAN_14, date(2025, 12, 28)),
    ("01/03", "%m/%d", JAN_14, date(2026, 1, 3)),
    ("Dec 31", "%b %d", date(2026, 1, 31), date(2025, 12, 31)),
    ("02/29", "%m/%d", date(2024, 3, 5), date(2024, 2, 29)),
    ("05-Jan-2026", "%d-%b-%Y", None, date(2026, 1, 5)),
    ("31.12.2025", "%d.%m.%Y", None, date(2025, 12, 31)),
    ("30.12.", "%d.%m.", JAN_14, date(2025, 12, 30)),
    ("02-01", "%m-%d", date(2022, 4, 30), date(2022, 2, 1)),
    ("24 Dec", "%d %b", JAN_14, date(2025, 12, 24)),
])
def test_dates_take_the_year_of_the_period(text, fmt, end, expected) -> None:
    assert parse_date(text, fmt, end) == expected


@pytest.mark.parametrize(("text", "fmt", "expected"), [
    ("1 Feb 2026", "%d %b %Y", date(2026, 2, 1)),
    ("12th Feb 2026", "%d %b %Y", date(2026, 2, 12)),
    ("1st March 2026", "%d %B %Y", date(2026, 3, 1)),
    ("3 MÄRZ 2026", "%d %b %Y", date(2026, 3, 3)),
    ("3 März 2026", "%d %B %Y", date(2026, 3, 3)),
    ("3 mars 2026", "%d %b %Y", date(2026, 3, 3)),
    ("1er janv. 2026", "%d %b %Y", date(2026, 1, 1)),
    ("12 Sept 2026", "%d %b %Y", date(2026, 9, 12)),
    ("12 sept. 2026", "%d %b %Y", date(2026, 9, 12)),
    ("5 ago 2026", "%d %b %Y", date(2026, 8, 5)),
    ("5 DIC 2026", "%d %b %Y", date(2026, 12, 5)),
    ("7 Okt. 2026", "%d %b %Y", date(2026, 10, 7)),
    ("January 1, 2026", "%B %d, %Y", date(2026, 1, 1)),
    ("January 1 2026", "%B %d, %Y", date(2026, 1, 1)),
    ("Mon 12 Jan 2026", "%a %d %b %Y", date(2026, 1, 12)),
    ("05/01/26", "%d/%m/%y", date(2026, 1, 5)),
])
def test_month_names_in_four_languages_any_case(text: str, fmt: str, expected: date) -> None:
    assert parse_date(text, fmt) == expected


@pytest.mark.parametrize("fmt", ["%d %b", "%b %d", "%d.%m.", "%m/%d", "%d-%b", "%d %B",
                                 "%m-%d", "%d/%m"])
def test_every_format_without_a_year_is_yearless(fmt: str) -> None:
    assert is_yearless(fmt)
    with pytest.raises(ValueError, match="no year"):
        parse_date(date(2026, 3, 4).strftime(fmt), fmt, None)


def test_a_yearless_date_is_never_given_year_1900() -> None:
    assert parse_date("12th Feb", "%d %b", JAN_14).year == 2025
    assert parse_date("05/01/99", "%d/%m/%y").year == 2099


@pytest.mark.parametrize(("text", "fmt"), [
    ("31/02", "%d/%m"), ("12 Foo", "%d %b"), ("Tue 12 Jan 2026", "%a %d %b %Y"),
    ("2026-01-05", "%d.%m.%Y"), ("12 Ju 2026", "%d %b %Y"), ("12 Jui 2026", "%d %b %Y"),
])
def test_what_is_not_a_date_in_the_format_is_refused(text: str, fmt: str) -> None:
    with pytest.raises(ValueError):
        parse_date(text, fmt, JAN_14)


def test_the_first_format_that_reads_wins() -> None:
    formats = ["%m/%d/%Y", "%B %d, %Y"]
    assert parse_date("12/01/2025", formats) == date(2025, 12, 1)
    assert parse_date("December 1, 2025", formats) == date(2025, 12, 1)


def test_month_names_agree_across_languages() -> None:
    names = month_names()
    assert names["mar"] == names["marz"] == names["mars"] == names["marzo"] == 3
    assert names["mai"] == names["may"] == 5 and names["dez"] == names["dic"] == 12
    assert "jui" not in names  # juin or juillet: ambiguous, so not a month


def test_unsupported_directive_is_refused() -> None:
    with pytest.raises(ValueError, match="not supported"):
        compile_format("%d %H:%M")


@given(st.dates(min_value=date(2001, 1, 1), max_value=date(2098, 12, 31)),
       st.integers(min_value=0, max_value=300))
def test_yearless_date_infers_latest_year_not_after_period_end(day: date, back: int) -> None:
    end = day + timedelta(days=back)
    assert parse_date(f"{day:%m/%d}", "%m/%d", end) == day
    assert parse_date(f"{day.day} {day:%B}", "%d %B", end) == day


def test_a_yearless_day_its_year_lacks_is_refused_not_moved_to_another_year() -> None:
    assert parse_date("02-29", "%m-%d", date(2024, 4, 30)) == date(2024, 2, 29)
    with pytest.raises(ValueError, match="does not exist in 2025"):
        parse_date("02-29", "%m-%d", date(2025, 4, 30))
    with pytest.raises(ValueError, match="does not exist in 2022"):
        parse_date("29.02.", "%d.%m.", date(2023, 1, 31))
