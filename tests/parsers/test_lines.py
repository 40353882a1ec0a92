from __future__ import annotations

import statistics

import pytest

from parsers.dates import fold
from parsers.lines import Line
from parsers.numbers import LOCALES
from parsers.reader import Word
from parsers.table import tokens
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
