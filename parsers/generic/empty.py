"""A statement of an unknown layout without a single transaction.

It is read only when nothing on it could be a transaction that was missed: no line starts
with a date and ends in a figure, and no figure other than the balances (and a card's
minimum payment or credit limit) is anything but zero (a summary of `0.00` deposits);
every account's opening and closing balance are then printed and equal.
"""

from __future__ import annotations

from parsers.generic.columns import trailing
from parsers.generic.figures import currency, is_card, line_last4
from parsers.generic.readings import signed
from parsers.generic.table_search import NUMBER_LOCALES
from parsers.generic.words import CARD_WORDS
from parsers.layout.labelled import amount_reader, exact_amount_reader, find_labelled
from parsers.layout.outcome import AccountReading, ParseOutput
from parsers.layout.tokens import tokens
from parsers.layout.vocabulary import CLOSING, OPENING, label_set, match_label
from parsers.model import Account, Statement
from parsers.numbers import find_amounts
from parsers.pdf.lines import Line


def read_empty(lines: list[Line], forms: dict[int, dict[str, int]]) -> ParseOutput | None:
    """The statement when every account on it is printed without transactions (`forms`:
    each line's `lead_forms`, by id)."""
    dated = [ln for ln in lines if forms[id(ln)]]  # (whichever the locale)
    for locale in NUMBER_LOCALES:
        if any(trailing(tokens(ln, locale))[1] for ln in dated):
            return None
        out = _accounts(lines, locale)
        if out is not None:
            return out
    return None


def _accounts(lines: list[Line], locale: str) -> ParseOutput | None:
    labels = label_set((*OPENING, *CLOSING, *CARD_WORDS))  # (held: asked of every line)
    for i, ln in enumerate(lines):
        labelled = labels.match(ln.folded) or (
            i > 0 and labels.match(lines[i - 1].folded)
            and not find_amounts(lines[i - 1].text, locale))
        if not labelled and any(a.value != 0 for a, _, _ in find_amounts(ln.text, locale)):
            return None
    chunks: list[tuple[str | None, list[Line]]] = [(None, [])]
    for ln in lines:
        last4 = line_last4(ln)
        if last4 and last4 != chunks[-1][0]:
            if _has_balance(chunks[-1][1]):
                chunks.append((last4, []))
            else:
                chunks[-1] = (last4, chunks[-1][1])
        chunks[-1][1].append(ln)
    card, cur = is_card(lines), currency(lines, locale)
    read, below = amount_reader(locale), exact_amount_reader(locale)
    out = ParseOutput(Statement("generic", []))
    for last4, chunk in chunks:
        opening = find_labelled(chunk, OPENING, read, read_below=below, blockers=CLOSING)
        closing = find_labelled(chunk, CLOSING, read, read_below=below, blockers=OPENING)
        # both printed: one balance alone proves nothing of rows that might be missing (a
        # page whose text a damaged font garbled reads as no rows at all)
        if last4 is None or opening is None or closing is None:
            return None
        value = signed(opening.value, card)
        if value != signed(closing.value, card):
            return None
        out.statement.accounts.append(Account(last4, cur, value, value))
        out.readings.append(AccountReading())
    out.how = {"layout": "generic", "locale": locale, "currency": cur, "columns": [],
               "convention": "no transactions: every account's balances printed and equal",
               "sections": len(out.statement.accounts)}
    return out


def _has_balance(lines: list[Line]) -> bool:
    return any(match_label(ln.text, (*OPENING, *CLOSING)) for ln in lines)
