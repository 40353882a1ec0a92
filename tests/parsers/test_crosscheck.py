from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from corpus import statement
from parsers.api import parse_pdf
from parsers.model import Account, Statement, Transaction
from parsers.pdf.breaks import doubted_breaks
from parsers.pdf.crosscheck import _object_numbers
from parsers.pdf.page import Page
from tests.parsers.sheets import misprinted


def test_object_numbers_are_those_of_definitions_only() -> None:
    data = (b"%PDF-1.4\n1 0 obj\n<< /Length 9 >>\nstream\n12 0 0 12 70 700 Tm\nendstream\n"
            b"endobj\n2 0 R 3 4 5 obj\nx7 0 obj\n8 0 objx\n9  0 obj\n10 0 obj")
    assert _object_numbers(data) == [1, 4, 7, 10]


@pytest.mark.parametrize(("kerning", "read", "review"), [
    (100, "BOOKSHOPON THE CORNER", False),   # 1.2 pt: both readings join the words
    (175, "BOOKSHOPON THE CORNER", True),    # 1.4 pt: PDFium's text parts them, pdfplumber's
                                             # tolerance joins them
    (400, "BOOKSHOP ON THE CORNER", False),  # 3.2 pt: both part them
])
def test_a_description_whose_word_breaks_the_readings_disagree_on_is_not_validated(
        kerning: int, read: str, review: bool) -> None:
    drawn = statement("bluebird", index=3, seed=11)
    data = misprinted(drawn.pdf, "(BOOKSHOP ON THE CORNER) Tj",
                      f"[(BOOKSHOP) -{kerning} (ON THE CORNER)] TJ")
    result = parse_pdf(data)
    assert read in [t.description for a in result.statement.accounts for t in a.transactions]
    assert result.validation.ok is not review
    doubts = [p for p in result.validation.problems if "word reader reads one" in p]
    assert doubts == (["descriptions hold 1 word(s) PDFium's text parts in two where the word "
                       "reader reads one ('BOOKSHOPON'): where their words break is in doubt"]
                      if review else [])


def _statement(*descriptions: str) -> Statement:
    rows = [Transaction(date(2026, 1, 2), d, Decimal("1.00")) for d in descriptions]
    return Statement("bank", [Account("1234", "USD", Decimal(0), Decimal(len(rows)), rows)])


def test_only_a_description_word_on_a_page_rows_were_read_from_is_doubted() -> None:
    pages = [Page(1, 612, 792, [], parted={"RESTAURANTLA"}), Page(2, 612, 792, [],
                                                                   parted={"Total:"})]
    assert doubted_breaks(pages, _statement("CAFE", "BAR"), {1, 2}) == []
    assert doubted_breaks(pages, _statement("Total: fees"), {1}) == []
    assert doubted_breaks(pages, _statement("Total: fees"), set()) != []
    [problem] = doubted_breaks(pages, _statement("RESTAURANTLA PIAZZA", "RESTAURANTLA"), {1})
    assert "1 word(s)" in problem and "'RESTAURANTLA'" in problem
