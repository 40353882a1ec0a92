from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from corpus import statement
from parsers.api import parse_pdf
from parsers.model import Account, Statement, Transaction
from parsers.pdf.breaks import part_descriptions
from parsers.pdf.page import Page
from parsers.pdf.structure import _object_numbers
from tests.parsers.sheets import misprinted


def test_object_numbers_are_those_of_definitions_only() -> None:
    data = (b"%PDF-1.4\n1 0 obj\n<< /Length 9 >>\nstream\n12 0 0 12 70 700 Tm\nendstream\n"
            b"endobj\n2 0 R 3 4 5 obj\nx7 0 obj\n8 0 objx\n9  0 obj\n10 0 obj")
    assert _object_numbers(data) == [1, 4, 7, 9, 10]


@pytest.mark.parametrize(("kerning", "read"), [
    (100, "BOOKSHOPON THE CORNER"),   # 1.2 pt: both readings join the words
    (175, "BOOKSHOP ON THE CORNER"),  # 1.4 pt: PDFium's text parts them, pdfplumber's
                                      # tolerance joins them: the description takes PDFium's
    (400, "BOOKSHOP ON THE CORNER"),  # 3.2 pt: both part them
])
def test_a_description_takes_pdfiums_word_breaks_and_still_validates(
        kerning: int, read: str) -> None:
    """Where a description's words part is text that changes no figure: the statement
    validates, with the words PDFium's text shows."""
    drawn = statement("bluebird", index=3, seed=11)
    data = misprinted(drawn.pdf, "(BOOKSHOP ON THE CORNER) Tj",
                      f"[(BOOKSHOP) -{kerning} (ON THE CORNER)] TJ")
    result = parse_pdf(data)
    assert read in [t.description for a in result.statement.accounts for t in a.transactions]
    assert result.validation.ok, result.validation.problems
    assert any("PDFium's word breaks" in n for n in result.notes) is (kerning == 175)


def _statement(*descriptions: str) -> Statement:
    rows = [Transaction(date(2026, 1, 2), d, Decimal("1.00")) for d in descriptions]
    return Statement("bank", [Account("1234", "USD", Decimal(0), Decimal(len(rows)), rows)])


def test_only_a_description_word_on_a_page_rows_were_read_from_is_parted() -> None:
    pages = [Page(1, 612, 792, [], parted={"RESTAURANTLA": "RESTAURANT LA"}),
             Page(2, 612, 792, [], parted={"Total:": "To tal:"})]
    untouched = _statement("CAFE", "BAR", "Total: fees")
    assert part_descriptions(pages, untouched, {1}) == 0
    assert [t.description for t in untouched.accounts[0].transactions] == [
        "CAFE", "BAR", "Total: fees"]
    everywhere = _statement("Total: fees")
    assert part_descriptions(pages, everywhere, set()) == 1
    assert everywhere.accounts[0].transactions[0].description == "To tal: fees"
    two = _statement("RESTAURANTLA PIAZZA", "AT RESTAURANTLA", "RESTAURANT")
    assert part_descriptions(pages, two, {1}) == 2
    assert [t.description for t in two.accounts[0].transactions] == [
        "RESTAURANT LA PIAZZA", "AT RESTAURANT LA", "RESTAURANT"]
