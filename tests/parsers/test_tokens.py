"""A text line's tokens: its words' readings are kept, and what is kept reads as anew."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from parsers.layout.tokens import MARK, tail_tokens, tokens
from parsers.numbers import Amount, amount_or_none
from tests.parsers.sheets import line

CELLS = [(20, "03.01.2026"), (90, "RENT 12 MAIN ST"), (-300, "1.234,56"), (-380, "1,234.56")]


def test_a_plain_text_lines_words_are_tokens_read_alone() -> None:
    ln = line(100, *CELLS)
    for locale in ("en", "de", "en", "de"):  # (readings kept per word and locale)
        toks = tokens(ln, locale)
        assert [(t.text, t.x0, t.x1) for t in toks] == [(w.text, w.x0, w.x1) for w in ln.words]
        assert [t.amount for t in toks] == [
            amount_or_none(w.text, locale) if any(c.isdigit() for c in w.text) else None
            for w in ln.words]
    assert tokens(ln, "en")[-1].amount == Amount(Decimal("1234.56"))
    assert tokens(ln, "de")[-2].amount == Amount(Decimal("1234.56"))
    assert tokens(ln, "de")[-1].amount is None


def test_a_sign_or_currency_word_joins_its_figure_on_a_line_read_before() -> None:
    plain = line(100, (20, "RENT"), (-300, "12.00"))
    marked = line(120, (20, "RENT"), (274, "$"), (-300, "12.00"))
    tokens(plain, "en")
    toks = tokens(marked, "en")
    assert [t.text for t in toks] == ["RENT", "$ 12.00"]
    assert toks[-1].amount == Amount(Decimal("12.00"), currency="$")
    assert [t.text for t in tokens(marked, "en")] == ["RENT", "$ 12.00"]


#: Words a line's tail is drawn from: figures in each locale, figures' groups, dates,
#: references, marks and words.
_TAIL_WORDS = ["1", "12", "234", "234,56", "345.67", "1,234.56", "1.234,56", "03/10/23",
               "UPI-1234", "0000327678", "$", "€", "-", "(3.00)", "CR", "Dr.", "EUR", "FEE",
               "2 795.35", "12,00€", "556-"]


@pytest.mark.parametrize("seed", range(40))
def test_a_lines_tail_tokens_are_the_last_of_its_tokens(seed: int) -> None:
    """Random lines, each word close enough to the one before to join it or not."""
    rng = random.Random(seed)
    for _ in range(50):
        cells, x = [], 20.0
        for _ in range(rng.randint(1, 8)):
            text = rng.choice(_TAIL_WORDS)
            cells.append((x, text))
            x += 6 * len(text) + rng.choice((3, 4, 30))  # close enough to join, or not
        ln = line(100, *cells)
        for locale in ("en", "de", "fr", "space"):
            full, tail = tokens(ln, locale), tail_tokens(ln, locale)
            assert tail and full[len(full) - len(tail):] == tail
            # it leaves out only what comes before a token that is neither figure nor mark
            assert tail == full or any(
                t.amount is None and not MARK.fullmatch(t.text) for t in tail)
