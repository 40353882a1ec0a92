"""Statements printed from a web page by Chromium, another producer: read exactly, with the
generic reader and with the bank's template (each row's description its own, where a
centred cell prints the date beside its middle line)."""

from __future__ import annotations

import pytest

from corpus import statement
from corpus.variant import PLAIN
from corpus.webpage import page, print_pdf
from parsers.api import parse_pdf

#: statements of several pages, with descriptions of one to three lines
INDICES = (0, 2, 9)


@pytest.mark.parametrize("index", INDICES)
def test_a_web_page_printed_by_chromium_reads_exactly(index: int) -> None:
    drawn = statement("northwind", PLAIN, index, 99)
    acct = drawn.truth.accounts[0]
    pdf = print_pdf(page(drawn.truth, "Northwind Bank, N.A.", f"00001234{acct.account_last4}"))
    for templates in (None, []):
        result = parse_pdf(pdf, templates=templates)
        assert result.validation.ok, result.validation.problems
        assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
