from __future__ import annotations

import statistics

import pytest

from parsers.dates import fold
from parsers.layout.tokens import tokens
from parsers.numbers import LOCALES
from parsers.pdf.lines import Line, page_lines
from parsers.pdf.page import Page, Word
from tests.parsers.sheets import line


@pytest.mark.parametrize("text", [
    "CR $ - DR", "Balance brought forward", "(EUR) +", "Total €", "½ price",
])
def test_a_line_without_a_digit_prints_no_amount(text: str) -> None:
    ln = line(100, (50, text))
    assert not ln.has_digit
    assert all(t.amount is None for locale in LOCALES for t in tokens(ln, locale))


def test_a_line_with_a_digit_says_so() -> None:
    assert line(100, (50, "Fee"), (-300, "5.00")).has_digit
    assert line(100, (50, "m² rate")).has_digit  # a digit as a figure's words count one


def test_a_line_is_folded_as_its_text_is() -> None:
    ln = line(100, (50, "SOLDE PRÉCÉDENT"), (-300, "1.234,56"))
    assert ln.folded == fold(ln.text) == "solde precedent 1.234,56"


@pytest.mark.parametrize("heights", [[9.0], [9.0, 12.5], [12.0, 9.0, 30.0], [8.0, 11.0, 9.5, 10.0]])
def test_a_line_is_as_high_as_the_median_of_its_words(heights: list[float]) -> None:
    ln = Line(1, [Word(f"w{i}", 10.0 * i, 10.0 * i + 8, 100.0, 100.0 + h)
                  for i, h in enumerate(heights)])
    assert ln.height == statistics.median(heights)


def test_a_word_far_taller_than_the_page_s_text_gets_a_large_line_of_its_own() -> None:
    page = Page(1, 612, 792, [
        Word("Date", 50, 80, 100, 110), Word("STAMP", 60, 400, 95, 160),
        Word("Amount", 300, 340, 100, 110), Word("01/02", 50, 80, 120, 130),
        Word("5.00", 300, 330, 120, 130),
    ])
    got = [(ln.text, ln.large) for ln in page_lines(page)]
    assert got == [("STAMP", True), ("Date Amount", False), ("01/02 5.00", False)]


def test_a_line_s_words_run_left_to_right_whatever_their_tops() -> None:
    page = Page(1, 612, 792, [
        Word("b", 70, 80, 100, 110), Word("a", 50, 60, 100.5, 110), Word("c", 50, 60, 120, 130),
    ])
    assert [[w.text for w in ln.words] for ln in page_lines(page)] == [["a", "b"], ["c"]]
