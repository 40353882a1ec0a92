from __future__ import annotations

import pytest

from parsers.dates import fold
from parsers.numbers import LOCALES
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
