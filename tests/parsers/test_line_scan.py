"""Lines found in one pass over many are those a search of each line finds."""

from __future__ import annotations

import pytest

from parsers.dates import fold
from parsers.layout.line_scan import lines_holding
from parsers.layout.vocabulary import (
    ACCOUNT,
    BALANCE_ROWS,
    CLOSING,
    FURNITURE,
    OPENING,
    PERIOD,
    TOTALS,
    furniture_folded,
    furniture_lines,
    label_set,
)
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

TEXTS = [
    "Date Description Amount Balance", "", "01/02 RENT PAYMENT 1,200.00", "Balance:",
    "Buchungstag / Valuta", "Page 2 of 3", "EQUAL   HOUSING LENDER", "Member FDIC.",
    "Dátum  Beschreibung", "rebalance of date-range", "Continued on next page",
    "Harbor is a member of the card network", "page", "x\ny Page 1", "EQUAL\tHOUSING|LENDER",
    "Member|FDIC|x\nPage 2", "Valuta Datum", "balance page fdic", "", "Page",
]
#: Texts of printed lines hold no line break.
PRINTED = [t for t in TEXTS if "\n" not in t]


def _line(text: str) -> Line:
    """A line of the words `text` prints between `|` (a word of a reader may hold a space or
    a line break: the scan must find what a search of the line finds all the same)."""
    return Line(1, [Word(w, 10.0 * i, 10.0 * i + 8, 0.0, 9.0)
                    for i, w in enumerate(text.split("|"))])


@pytest.mark.parametrize("texts", [TEXTS, PRINTED, ["page"], []])
def test_lines_holding_finds_what_a_search_of_each_text_finds(texts: list[str]) -> None:
    words = ("page", "balance", "fdic", "nowhere")
    folded = [fold(t) for t in texts]
    assert list(lines_holding(words, folded)) == [
        i for i, t in enumerate(folded) if any(w in t for w in words)]


def test_every_furniture_line_is_among_the_furniture_lines() -> None:
    extra = ("is a member of the card network",)
    lines = [_line(t) for t in TEXTS]
    found = furniture_lines([ln.folded for ln in lines], extra)
    furniture = {i for i, ln in enumerate(lines) if furniture_folded(ln.folded, extra)}
    assert furniture and furniture <= found
    assert 0 not in found and 2 not in found


def test_every_furniture_word_is_looked_for() -> None:
    for words, _ in FURNITURE:
        for w in words:
            assert furniture_lines([_line(f"x|{w.upper()}|y").folded]) == {0}, w


@pytest.mark.parametrize("labels", [OPENING, CLOSING, ACCOUNT, BALANCE_ROWS, TOTALS, PERIOD])
def test_a_label_sets_regex_for_a_text_finds_what_its_whole_regex_finds(
        labels: tuple[str, ...]) -> None:
    wanted = label_set(labels)
    texts = [*TEXTS, "Account Number: 1234 Account 99", "Previous Statement Balance 5.00",
             "Saldo Übertrag Alter Saldo 1,00", "Opening balance - Closing Balance",
             "Solde précédent Nouveau solde", "Statement Period 01/02 - 28/02 Zeitraum",
             "Subtotal Total Summe", "Brought Forward Balance Brought Forward"]
    for text in (fold(t) for t in texts):
        assert [m.span() for m in wanted.regex_in(text).finditer(text)] == [
            m.span() for m in wanted.regex.finditer(text)], text
