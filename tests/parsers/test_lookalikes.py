"""The built-in templates of real banks read statements drawn like those banks' exactly, and
a statement of theirs whose figures do not agree is never validated."""

from __future__ import annotations

import calendar
import random
from decimal import Decimal

import pytest

from corpus.banks import Printed
from corpus.lookalikes import LOOKALIKES
from corpus.truth import Draw
from parsers.api import parse_pdf
from parsers.layout.template import load_templates
from parsers.numbers import format_amount
from tests.parsers.sheets import misprinted

#: Transactions per statement: none, a few, a page, several pages (page breaks, headers
#: repeated, bookings of several lines split from their page).
SIZES = (0, 3, 14, 45)
GERMAN = {"postbank", "ing"}


def drawn(bank: str, count: int, seed: str = "") -> Printed:
    return LOOKALIKES[bank](Draw(random.Random(f"{bank}-{count}{seed}"), count, False, False))


@pytest.mark.parametrize("bank", sorted(LOOKALIKES))
@pytest.mark.parametrize("count", SIZES)
def test_builtin_template_reads_its_lookalike_exactly(bank: str, count: int) -> None:
    sample = drawn(bank, count)
    result = parse_pdf(sample.pdf)
    assert result.layout == bank
    assert result.statement.to_dict() == sample.truth.to_dict()
    assert result.validation.ok, result.validation.problems


def test_every_lookalike_has_a_builtin_template() -> None:
    assert set(LOOKALIKES) <= {t.bank for t in load_templates()}


@pytest.mark.parametrize("bank", sorted(LOOKALIKES))
def test_a_closing_balance_off_by_one_is_not_validated(bank: str) -> None:
    sample = drawn(bank, 6)
    closing = sample.truth.accounts[0].closing_balance
    locale = "de" if bank in GERMAN else "en"
    pdf = misprinted(sample.pdf, format_amount(closing, locale),
                     format_amount(closing + Decimal(1), locale))
    assert not parse_pdf(pdf).validation.ok


def test_a_day_that_does_not_exist_is_a_problem_not_a_guess() -> None:
    """Woodforest prints MM-DD: a row dated 02-29 in a year without one is not read as
    another day, and the statement goes to review."""
    sample = next(s for s in (drawn("woodforest", 8, str(i)) for i in range(50))
                  if not any(calendar.isleap(y) for y in
                             (s.truth.period_start.year, s.truth.period_end.year)))
    first = sample.truth.accounts[0].transactions[0].date
    result = parse_pdf(misprinted(sample.pdf, f"{first:%m-%d}", "02-29"))
    assert not result.validation.ok
    assert any("'02-29'" in p for p in result.validation.problems)
