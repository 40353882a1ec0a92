"""Which column a figure under a header belongs to (`Geometry.cells`), a line's cells read
as its tokens are placed (`Geometry.line_cells`), and the geometry a header printed alike
on several pages shares."""

from __future__ import annotations

from decimal import Decimal

import pytest

from parsers.layout.geometry import Geometry, Placed
from parsers.layout.header import match_header, printing_header_words
from parsers.layout.template import Column, folded_header_words
from parsers.layout.tokens import Token, tokens
from parsers.numbers import Amount
from parsers.pdf.lines import Line
from parsers.pdf.page import Word
from tests.parsers.sheets import HEADER, TEAL, line, lines, template


def _geometry(align: str | None = None, x: tuple[float, float] | None = None) -> Geometry:
    """Date at 10-30, debit's header at 100-140, credit's at 200-240 (centres 100 apart:
    the tolerance is 45)."""
    layout = (Column(("Date",), "date"), Column(("Debit",), "debit", align, x),
              Column(("Credit",), "credit", align))
    return Geometry(layout, [Placed(layout[0], 10, 30), Placed(layout[1], 100, 140),
                             Placed(layout[2], 200, 240)], [])


def _role(g: Geometry, x0: float, x1: float) -> str | None:
    cells, _ = g.cells([Token("5.00", x0, x1, Amount(Decimal("5.00")))])
    return next(iter(cells), None)


def test_a_figure_as_near_two_columns_goes_to_the_first() -> None:
    # nearest edges: debit's right edge and credit's left edge, both 40 away
    assert _role(_geometry(), 160, 180) == "debit"


@pytest.mark.parametrize(("align", "x0", "x1", "role"), [
    ("left", 195, 260, "credit"),   # left edges 95 / 5 apart
    ("left", 104, 170, "debit"),    # 4 / 96
    ("right", 150, 236, "credit"),  # right edges 96 / 4
    ("right", 90, 139, "debit"),    # 1 / 101
    ("center", 150, 170, "debit"),  # centres 40 / 60
    ("center", 175, 195, "credit"),  # 65 / 35
    (None, 60, 101, "debit"),       # debit's right edge 39 away (its left 40, centre 39.5)
    ("left", 150, 200, None),       # 50 from debit's left edge: beyond the tolerance
])
def test_a_figure_belongs_to_the_column_whose_aligned_edge_is_nearest(
        align: str | None, x0: float, x1: float, role: str | None) -> None:
    assert _role(_geometry(align), x0, x1) == role


def test_a_column_placed_by_x_takes_the_figures_centred_in_it() -> None:
    g = _geometry(x=(90.0, 150.0))
    assert _role(g, 95, 145) == "debit"
    assert _role(g, 205, 235) == "credit"
    assert _role(g, 140, 160) == "debit"  # centre 150: on the range's edge
    assert _role(g, 142, 162) is None  # centre 152: outside it, and 58 from credit's left


def _table() -> Geometry:
    """Date at 20-40, details at 90-120, then debit, credit and balance headers."""
    layout = (Column(("Date",), "date"), Column(("Details",), "description"),
              Column(("Debit",), "debit"), Column(("Credit",), "credit"),
              Column(("Balance",), "balance"))
    return Geometry(layout, [Placed(layout[0], 20, 40), Placed(layout[1], 90, 120),
                             Placed(layout[2], 300, 330), Placed(layout[3], 380, 410),
                             Placed(layout[4], 480, 520)], [])


@pytest.mark.parametrize(("cells", "locale"), [
    ([(20, "03 Jan"), (90, "CARD PAYMENT 12"), (-330, "4.50"), (-520, "995.50")], "en"),
    ([(20, "03.01."), (90, "Miete"), (-410, "1.234,56"), (-520, "(3,00)")], "de"),
    ([(20, "03 Jan"), (90, "RENT"), (300, "-"), (-330, "4.50")], "en"),  # a sign word
    ([(20, "03/01"), (90, "Loyer"), (-410, "1 234,56")], "fr"),  # a figure in two words
    ([(20, "03 Jan"), (90, "FEE"), (-450, "7.00")], "en"),  # a figure in no amount column
    ([(20, "03 Jan"), (335, "WORD"), (-410, "2.00")], "en"),  # a word where figures belong
    ([(2, "*"), (20, "03 Jan"), (90, "X")], "en"),  # a word left of every column
])
@pytest.mark.parametrize("shift", [0.0, 6.0])
@pytest.mark.parametrize("ocr", [False, True])
def test_a_lines_cells_are_those_its_tokens_are_placed_in(cells: list, locale: str,
                                                          shift: float, ocr: bool) -> None:
    ln = line(100, *cells)
    if ocr:
        ln = Line(1, [w._replace(conf=96.0, line=1) for w in ln.words])
    g = _table()
    assert g.line_cells(ln, locale, shift) == g.cells(tokens(ln, locale), shift)


def test_figures_are_placed_by_both_edges_however_many_places_were_seen() -> None:
    # two figures ending alike in two columns (debit's header at 300-330, credit's at
    # 380-410), then more places than a geometry keeps, then the first places again
    g = _table()
    places = [(300.0, 400.0), (380.0, 400.0), (300.0, 330.0)]
    places += [(600 + k / 8, 640 + k / 8) for k in range(300)] + places
    for x0, x1 in places:
        ln = Line(1, [Word("03", 20, 30, 100, 109), Word("4.50", x0, x1, 100, 109)])
        assert g.line_cells(ln, "en") == g.cells(tokens(ln, "en")), (x0, x1)
    assert [_role(g, x0, x1) for x0, x1 in places[:2]] == ["debit", "credit"]


def test_a_header_printed_alike_on_two_pages_shares_its_geometry(tmp_path) -> None:
    t = template(tmp_path, TEAL)
    page1, page2 = lines((100, HEADER), page=1), lines((140, HEADER), page=2)
    one, two = match_header(page1, 0, t), match_header(page2, 0, t)
    assert one is not None and two is not None
    assert one.geometry is two.geometry
    assert (one.lines, one.top, two.top) == (1, 100, 140)
    assert one.geometry.describe() == two.geometry.describe() == (
        "date=Date@50-69, description=Details@95-123, debit=Paid out@377-410, "
        "credit=Paid in@452-480, balance=Balance@527-560")


@pytest.mark.parametrize("texts", [
    ["date details paid out", "03 jan coffee 4.50", "balance", "update: none", "x"],
    ["da-te de.tails", "datebook", "", "paid\tin", "crédit date", "a date", "#date"],
    ["line one\nwith a break: date", "balance", "nothing"],
])
def test_the_lines_printing_a_header_word_are_those_whose_header_words_hold_one(
        texts: list[str]) -> None:
    words = frozenset({"date", "details", "paid", "balance", "credit"})
    assert list(printing_header_words(words, texts)) == [
        i for i, text in enumerate(texts) if not words.isdisjoint(folded_header_words(text))]
