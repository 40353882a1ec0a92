"""The generic reader's cheap refusals: a line's leading date read once for every date form,
and the headings and balance rows looked for only in lines that may print them, agree with
reading each form, heading and label one by one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.dates import compile_format, fold, parse_date
from parsers.generic.figures import line_last4
from parsers.generic.leads import DATE_FORMATS, lead_forms
from parsers.generic.rows import _label_sets
from parsers.generic.words import DAILY_HEADINGS, SIGN_HEADINGS
from parsers.layout.vocabulary import ACCOUNT, BALANCE_ROWS, is_heading, starts_with_label
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

FAR = date(2400, 12, 31)


def one_by_one(ln: Line) -> dict[str, int]:
    """How many of the line's first words (3, 2, then 1, a word after them) print a day in
    each date form, tried form by form: what `lead_forms` must find."""
    out = {}
    for f in DATE_FORMATS:
        for n in (3, 2, 1):
            text = " ".join(w.text for w in ln.words[:n])
            if len(ln.words) <= n or not compile_format(f).regex.fullmatch(text):
                continue
            try:
                parse_date(text, f, FAR)
            except ValueError:
                continue
            out[f] = n
            break
    return out


def as_line(texts: list[str]) -> Line:
    return Line(1, [Word(t, 10.0 * i, 10.0 * i + 8, 100.0, 109.0) for i, t in enumerate(texts)])


@st.composite
def printed_dates(draw: st.DrawFn) -> list[str]:
    """A day printed in one of the date forms (at times with a month's other names, or an
    ordinal), as its words."""
    day = draw(st.dates(date(2000, 1, 1), date(2099, 12, 31)))
    fmt = draw(st.sampled_from(DATE_FORMATS))
    month = draw(st.sampled_from(["%b", "%B", "März", "sept.", "janv.", "DIC", "Okt."]))
    text = day.strftime(fmt.replace("%b", month))
    if draw(st.booleans()):
        text = text.replace(f"{day.day:02d}", f"{day.day}th", 1)
    return text.split()


#: Words a line may start with beside a date: days that do not exist, lone parts of dates,
#: figures, names and marks.
OTHER_WORDS = ["31/02/2026", "29.02.2025", "13/13", "00.01.", "12", "2026", "Jan", "Mai",
               "1,234.56", "-12.00", "Total", "Balance", "Page", "1", "of", "2", "12.", "01.",
               "Dec.", "31", "MÄRZ", "15th", "*", "/", "-", "12-Jan", "Jan-2026", ","]

words = st.one_of(st.sampled_from(OTHER_WORDS), printed_dates().map(" ".join),
                  st.text(alphabet="0123456789./- ,JanDecMärzth", min_size=1, max_size=8))


@settings(max_examples=600)
@given(st.lists(st.one_of(printed_dates(), st.lists(words, max_size=3)), min_size=1,
                max_size=4))
def test_lead_forms_reads_what_each_form_reads_one_by_one(parts: list[list[str]]) -> None:
    texts = [w for part in parts for text in part for w in text.split()]
    if not texts:
        return
    ln = as_line(texts)
    assert lead_forms(ln) == one_by_one(ln)


def test_lead_forms_reads_every_form_and_the_most_words() -> None:
    assert lead_forms(as_line(["31.12.2025", "Rent", "12.00"])) == {"%d.%m.%Y": 1}
    assert lead_forms(as_line(["03/04", "Rent", "12.00"])) == {"%m/%d": 1, "%d/%m": 1}
    assert lead_forms(as_line(["12", "Jan", "2026", "Rent"])) == {
        "%d %b %Y": 3, "%d %b": 2}
    assert lead_forms(as_line(["31/02", "Rent"])) == {}  # no such day either way round
    assert lead_forms(as_line(["12/01/2026"])) == {}  # a date with nothing after it


headings = st.sampled_from([*(lb for labels in SIGN_HEADINGS.values() for lb in labels),
                            *DAILY_HEADINGS])


@given(headings, st.sampled_from(["", " (continued)", ":", " - Fortsetzung", " 12.00"]),
       st.sampled_from([str, str.upper, str.lower, str.title]))
def test_a_heading_is_in_the_lines_its_label_set_finds(
        heading: str, rest: str, case: Callable[[str], str]) -> None:
    text = case(heading + rest)
    signs, daily, _ = _label_sets()
    for _, labels, found in [*signs, (None, DAILY_HEADINGS, daily)]:
        if is_heading(text, labels):
            assert found.printed_in(fold(text))


@given(st.sampled_from(BALANCE_ROWS), st.sampled_from(["", "01/02", "12 Jan 2026"]),
       st.sampled_from(["", " 1,234.56", ": 12,00 CR", " forward 5.00"]),
       st.sampled_from([str, str.upper, str.lower]))
def test_a_balance_row_is_in_the_lines_its_label_set_finds(
        label: str, date_words: str, rest: str, case: Callable[[str], str]) -> None:
    words = case(label + rest)  # the words after a row's date, or a whole line
    _, _, found = _label_sets()
    if starts_with_label(words, BALANCE_ROWS):
        assert found.printed_in(fold(f"{date_words} {words}"))


@pytest.mark.parametrize("label", ACCOUNT)
def test_an_account_number_after_any_account_label_is_read(label: str) -> None:
    assert line_last4(as_line(f"{label}: 0012345678".split())) == "5678"
    assert line_last4(as_line(f"Page 1 of 2 {label.upper()} 0012345678".split())) == "5678"
