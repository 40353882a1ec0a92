"""How OCR's words become rows: lines OCR read apart joined again across a skewed page,
figures split into two words, noise and specks, and the review of rows put together that
way where the running balance does not pin their figures."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from corpus.banks import Printed
from parsers.layout.ocr_doubts import doubts
from parsers.layout.table import read_table
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Template
from parsers.layout.tokens import tokens
from parsers.model import money
from parsers.pdf.lines import Line, page_lines
from parsers.pdf.page import Page, Word
from tests.parsers.scanned import Change, parse
from tests.parsers.sheets import HEADER, TEAL, Cell, template, words

END = date(2026, 2, 28)


@pytest.fixture
def teal(tmp_path: Path) -> Template:
    return template(tmp_path, TEAL)


def scanned(top: float, *cells: Cell, line: int, conf: float = 96.0,
            slope: float = 0.0) -> list[Word]:
    """The words of `cells` as OCR reads them on its line `line`, on a page whose right side
    stands `slope` points higher per point across."""
    return [w._replace(top=w.top - slope * w.x0, bottom=w.bottom - slope * w.x0, conf=conf,
                       line=line) for w in words(top, *cells)]


def ocr_line(top: float, *cells: Cell, line: int = 1, **low: float) -> Line:
    """One OCR line; words named in `low` read with that confidence."""
    return Line(1, [w._replace(conf=low.get(w.text, w.conf))
                    for w in scanned(top, *cells, line=line)])


def read(t: Template, *rows: Line) -> TableReading:
    return read_table(t, [ocr_line(100, *HEADER, line=0), *rows], END)


# --- lines --------------------------------------------------------------------------------

SKEW = 0.02  # about 1.1 degrees


def skewed_page(*groups: list[Word]) -> Page:
    return Page(1, 612, 792, [w for g in groups for w in g], ocr=True)


def test_a_row_ocr_read_as_two_lines_on_a_skewed_page_is_one_line_again(
        teal: Template) -> None:
    page = skewed_page(
        scanned(100, *HEADER, line=1, slope=SKEW),
        scanned(115, (50, "2 Feb"), (95, "COFFEE HOUSE"), (-410, "4.50"), (-560, "995.50"),
                line=2, slope=SKEW),
        scanned(128, (95, "MAIN STREET"), line=3, slope=SKEW),
        # the right half of a row, read as a line of its own: skew raises it above the
        # description line of the row before
        scanned(141, (-410, "9.00"), (-560, "986.50"), line=4, slope=SKEW),
        scanned(141, (50, "3 Feb"), (95, "RENT"), line=5, slope=SKEW))
    lines = page_lines(page)
    assert [(ln.text, ln.joined) for ln in lines[1:]] == [
        ("2 Feb COFFEE HOUSE 4.50 995.50", False), ("MAIN STREET", False),
        ("3 Feb RENT 9.00 986.50", True)]
    r = read_table(teal, lines, END)
    assert r.problems == []
    assert [(row.desc, row.figures["balance"].text) for row in r.rows] == [
        (["COFFEE", "HOUSE", "MAIN", "STREET"], "995.50"), (["RENT"], "986.50")]
    assert r.rows[0].assembled == {}
    assert r.rows[1].assembled == {
        "debit": "on a line apart from its row's first words",
        "balance": "on a line apart from its row's first words"}
    assert [(d.row, d.figure, d.assembled is not None) for d in doubts(r.rows)] == [
        (1, "amount", True), (1, "balance", True)]


def test_lines_a_row_apart_or_sharing_width_are_not_joined() -> None:
    page = skewed_page(
        scanned(115, (50, "2 Feb"), (95, "COFFEE HOUSE"), (-560, "995.50"), line=1,
                slope=SKEW),
        scanned(128, (95, "MAIN STREET"), line=2, slope=SKEW),
        # a mark OCR read as a line of its own over the words of the row
        scanned(129, (110, "xx"), line=3, slope=SKEW))
    assert [ln.text for ln in page_lines(page)] == [
        "2 Feb COFFEE HOUSE 995.50", "MAIN STREET", "xx"]


def test_a_row_read_as_two_lines_where_a_copied_page_is_skewed_most_is_one_line_again(
        ) -> None:
    # a page copied in perspective: square at its top, where most of its lines are, turned
    # further down, where one row's balance was read as a line of its own (level with its
    # row under the skew there, not under the page's, which is the top's)
    level = [scanned(100 + 12 * i, (50, f"{i + 1} Jan"), (95, "SHOP"), (-410, "1.00"),
                     (-560, f"{900 + i}.00"), line=i) for i in range(7)]
    down = -0.03
    page = skewed_page(
        *level,
        scanned(600, (50, "3 Feb"), (95, "RENT PAYMENT"), (-410, "9.00"), (-560, "986.50"),
                line=20, slope=down),
        scanned(615, (50, "4 Feb"), (95, "BOOKSHOP"), (-410, "5.00"), line=21, slope=down),
        scanned(615, (-560, "981.50"), line=22, slope=down),
        scanned(630, (50, "5 Feb"), (95, "GROCERY"), (-410, "1.00"), (-560, "980.50"),
                line=23, slope=down),
        scanned(645, (50, "6 Feb"), (95, "FUEL"), (-410, "2.00"), (-560, "978.50"),
                line=24, slope=down))
    lines = page_lines(page)
    assert [(ln.text, ln.joined) for ln in lines[7:]] == [
        ("3 Feb RENT PAYMENT 9.00 986.50", False), ("4 Feb BOOKSHOP 5.00 981.50", True),
        ("5 Feb GROCERY 1.00 980.50", False), ("6 Feb FUEL 2.00 978.50", False)]


def turned(top: float, *cells: Cell, line: int, turn: float) -> list[Word]:
    """The words of `cells` as OCR reads them on a page turned by `turn` (radians,
    clockwise): each point goes `turn` points down per point right, and as many left per
    point down."""
    return [w._replace(x0=w.x0 - turn * w.top, x1=w.x1 - turn * w.top,
                       top=w.top + turn * w.x0, bottom=w.bottom + turn * w.x0, conf=96.0,
                       line=line) for w in words(top, *cells)]


def test_columns_drifting_sideways_down_a_skewed_page_keep_their_words(
        teal: Template) -> None:
    turn = 0.035  # two degrees: 14 points sideways over 400 points down
    rows = [turned(100, *HEADER, line=1, turn=turn),
            turned(115, (50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50"),
                   line=2, turn=turn)]
    rows += [turned(130 + 15 * k, (95, "MORE TEXT OF THE ROW"), line=3 + k, turn=turn)
             for k in range(20)]
    rows += [turned(480, (50, "3 Feb"), (95, "ATM WITHDRAWAL 5TH"), (-410, "9.00"),
                    (-560, "986.50"), line=30, turn=turn),
             turned(495, (95, "AVE"), line=31, turn=turn)]
    r = read_table(teal, page_lines(skewed_page(*rows)), END)
    assert r.problems == []
    assert r.rows[1].desc == ["ATM", "WITHDRAWAL", "5TH", "AVE"]


# --- tokens -------------------------------------------------------------------------------

def test_a_cr_ocr_wrapped_in_specks_is_a_suffix_of_a_figure_read_loose() -> None:
    toks = tokens(ocr_line(115, (400, "2,033,694.45 \u2018Cr")), "en")
    assert [(t.text, t.amount.value if t.amount else None, t.loose) for t in toks] == [
        ("2,033,694.45 \u2018Cr", Decimal("2033694.45"), True)]
    assert toks[0].amount and toks[0].amount.suffix == "CR"
    printed = Line(1, words(115, (400, "2,033,694.45 \u2018Cr")))  # a text layer: as printed
    assert [t.text for t in tokens(printed, "en")] == ["2,033,694.45", "\u2018Cr"]


@pytest.mark.parametrize(("cells", "read"), [
    ([(-520, "2,669."), (522, "11.Cr")], [("2,669. 11.Cr", Decimal("2669.11"), True)]),
    ([(-520, "3,05"), (522, "1.87"), (545, "Cr")], [("3,05 1.87 Cr", Decimal("3051.87"), True)]),
    # two figures a space apart, each one of its own
    ([(-520, "12.50"), (522, "3.40")], [("12.50", Decimal("12.50"), False),
                                        ("3.40", Decimal("3.40"), False)]),
    # pieces further apart than a space: two cells
    ([(-520, "2,669."), (530, "11")], [("2,669.", None, False), ("11", None, False)]),
])
def test_a_figure_ocr_read_as_two_words_a_space_apart_is_one_loose_figure(
        cells: list[Cell], read: list[tuple]) -> None:
    toks = tokens(ocr_line(115, *cells), "en")
    assert [(t.text, t.amount.value if t.amount else None, t.loose) for t in toks] == read


# --- rows ---------------------------------------------------------------------------------

def test_ocr_noise_in_no_column_is_dropped_and_its_row_needs_the_chain(teal: Template) -> None:
    row = [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (425, "ee"), (-560, "995.50")]
    r = read(teal, ocr_line(115, *row, ee=30.0))
    assert r.problems == []
    assert {k: v.text for k, v in r.rows[0].figures.items()} == {"debit": "4.50",
                                                                 "balance": "995.50"}
    assert set(r.rows[0].assembled) == {"debit", "balance"}
    assert all("dropped as OCR noise" in d.assembled for d in doubts(r.rows) if d.assembled)
    # read confidently, or with a digit, it may be print: the row goes to review
    for text, conf in (("ee", 96.0), ("a7", 30.0)):
        cells = [(x, text if t == "ee" else t) for x, t in row]
        r = read(teal, ocr_line(115, *cells, **{text: conf}))
        assert any(f"{text!r} stands in no column" in p for p in r.problems)


def test_one_doubtful_character_in_no_column_is_noise_only_on_a_line_without_figures(
        teal: Template) -> None:
    first = ocr_line(115, (50, "2 Feb"), (95, "TRANSFER TO"), (-410, "4.50"), (-560, "995.50"))
    r = read(teal, first, ocr_line(128, (95, "SAVINGS REF"), (400, "4"), line=2, **{"4": 58.0}))
    assert r.problems == [] and r.rows[0].desc == ["TRANSFER", "TO", "SAVINGS", "REF"]
    r = read(teal, ocr_line(115, (50, "2 Feb"), (95, "TRANSFER"), (-410, "4.50"), (425, "4"),
                            (-560, "995.50"), **{"4": 58.0}))
    assert any("'4' stands in no column" in p for p in r.problems)


def test_a_speck_ocr_kept_in_a_description_is_no_word_of_it(teal: Template) -> None:
    row = [(50, "2 Feb"), (95, "RENT PAYMENT . |"), (-410, "4.50"), (-560, "995.50")]
    assert read(teal, ocr_line(115, *row, **{".": 84.0})).rows[0].desc == ["RENT", "PAYMENT"]
    row = [(50, "2 Feb"), (95, "RENT - PAYMENT"), (-410, "4.50"), (-560, "995.50")]
    assert read(teal, ocr_line(115, *row)).rows[0].desc == ["RENT", "-", "PAYMENT"]


def test_a_speck_ocr_read_at_the_end_of_a_date_says_nothing_of_the_date(
        teal: Template) -> None:
    row = [(50, "2 Feb ."), (95, "RENT"), (-410, "4.50"), (-560, "995.50")]
    r = read(teal, ocr_line(115, *row, **{".": 84.0}))
    assert r.rows[0].confs["date"] == 96.0 and r.rows[0].date_twice
    # the date's own words still speak for it
    r = read(teal, ocr_line(115, *row, **{".": 84.0, "Feb": 85.0}))
    assert r.rows[0].confs["date"] == 85.0 and not r.rows[0].date_twice


def test_ocr_marks_in_the_date_cell_keep_the_description_after_them_in_review(
        teal: Template) -> None:
    first = ocr_line(115, (50, "2 Feb"), (95, "TRANSFER TO"), (-410, "4.50"), (-560, "995.50"))
    r = read(teal, first, ocr_line(128, (50, "4"), (95, "SAVINGS REF"), line=2, **{"4": 33.0}))
    assert r.rows[0].desc == ["TRANSFER", "TO"]
    assert any("unreadable date '4'" in p for p in r.problems)
    # a line of its own that starts in the date column is no row's
    r = read(teal, first, ocr_line(128, (50, "Thank you for banking"), line=2))
    assert r.problems == [] and r.rows[0].desc == ["TRANSFER", "TO"]


# --- whole scans (the real tesseract) -----------------------------------------------------



def figures_apart(amount: Decimal, rise: float = 2.0) -> Change:
    """OCR reads the figures of the row printing `amount` as a line of their own, a little
    higher (a tesseract line break in a wide row)."""
    printed = f"{abs(amount):,.2f}"

    def change(words: list[Word]) -> list[Word]:
        at = next(w for w in words if w.text == printed)
        return [w._replace(line=-1, top=w.top - rise, bottom=w.bottom - rise)
                if w.line == at.line and w.x0 >= at.x0 else w for w in words]
    return change


def test_figures_ocr_read_apart_from_their_row_and_pinned_by_the_chain_validate(
        plain: Printed) -> None:
    tx = plain.truth.accounts[0].transactions[2]
    r = parse(plain, figures_apart(tx.amount))
    assert r.validation.ok, r.validation.problems
    assert r.statement.to_dict() == plain.truth.to_dict()
    assert any(f"row 3: amount {money(tx.amount)} read by OCR on a line apart from its "
               "row's first words, trusted" in note for note in r.validation.trusted)


def test_figures_ocr_read_apart_from_their_row_the_chain_does_not_pin_go_to_review(
        derived: Printed) -> None:
    tx = derived.truth.accounts[0].transactions[0]
    r = parse(derived, figures_apart(tx.amount))
    assert not r.validation.ok
    assert any("row 1: amount" in p and "on a line apart from its row's first words, and "
               "the running balance does not pin it" in p for p in r.validation.problems)
