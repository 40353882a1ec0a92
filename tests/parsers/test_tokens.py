"""A text line's tokens: its words' readings are kept, and what is kept reads as anew."""

from __future__ import annotations

from decimal import Decimal

from parsers.layout.tokens import tokens
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
