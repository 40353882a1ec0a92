"""The table reader: headers that do not sit over their figures, rows, balance rows, furniture."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from parsers.lines import Line
from parsers.reader import Word
from parsers.table import TableReading, read_table, tokens
from parsers.template import Template
from tests.parsers.sheets import HEADER, TEAL, line, lines, template

END = date(2026, 2, 28)


@pytest.fixture
def teal(tmp_path: Path) -> Template:
    return template(tmp_path, TEAL)


def read(t: Template, *rows: tuple[float, list]) -> TableReading:
    return read_table(t, lines((100, HEADER), *rows), END)


def figures(r: TableReading) -> list[dict[str, str]]:
    return [{k: v.text for k, v in row.figures.items()} for row in r.rows]


def test_rows_take_figures_by_column(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(50, "3 Feb"), (95, "SALARY"), (-480, "1,000.00"), (-560, "1,995.50")]))
    assert [row.date for row in r.rows] == [date(2026, 2, 2), date(2026, 2, 3)]
    assert figures(r) == [{"debit": "4.50", "balance": "995.50"},
                          {"credit": "1,000.00", "balance": "1,995.50"}]
    assert r.problems == []


@pytest.mark.parametrize("shift", [-9, -6, 6, 9])
def test_a_header_shifted_off_its_columns_still_places_them(teal: Template, shift: int) -> None:
    header = [(x - shift if x < 0 else x + shift, text) for x, text in HEADER]
    rows = lines((100, header),
                 (115, [(50, "2 Feb"), (95, "COFFEE HOUSE"), (-410, "4.50"), (-560, "995.50")]),
                 (128, [(50, "3 Feb"), (95, "PAY"), (-480, "1,234,567.89"),
                        (-560, "1,235,563.39")]))
    r = read_table(teal, rows, END)
    assert [row.desc for row in r.rows] == [["COFFEE", "HOUSE"], ["PAY"]]
    assert figures(r) == [{"debit": "4.50", "balance": "995.50"},
                          {"credit": "1,234,567.89", "balance": "1,235,563.39"}]


@pytest.mark.parametrize("header_x", [(371, 441, 521), (380, 451, 531)])
def test_labels_left_or_centred_over_right_aligned_figures(
        teal: Template, header_x: tuple[float, float, float]) -> None:
    out, inn, bal = header_x
    header = [(50, "Date"), (95, "Details"), (out, "Paid out"), (inn, "Paid in"), (bal, "Balance")]
    r = read_table(teal, lines((100, header), (115, [(50, "2 Feb"), (95, "X"), (-480, "9.00"),
                                                     (-560, "1,009.00")])), END)
    assert figures(r) == [{"credit": "9.00", "balance": "1,009.00"}]


def test_a_column_printed_without_its_label_is_placed_between_its_neighbours(
        teal: Template) -> None:
    header = [c for c in HEADER if c[1] != "Balance"]
    r = read_table(teal, lines((100, header), (115, [(50, "2 Feb"), (95, "X"), (-410, "4.50"),
                                                     (-560, "995.50")])), END)
    assert figures(r) == [{"debit": "4.50", "balance": "995.50"}]
    assert r.problems == []


def test_a_header_stacked_over_two_lines(teal: Template) -> None:
    rows = lines((95, [(375, "Paid"), (450, "Paid")]),
                 (104, [(50, "Date"), (95, "Details"), (-560, "Balance")]),
                 (113, [(375, "out"), (450, "in")]),
                 (128, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50")]))
    r = read_table(teal, rows, END)
    assert figures(r) == [{"debit": "4.50", "balance": "995.50"}]


def test_labels_printed_as_one_word_are_split(tmp_path: Path) -> None:
    t = template(tmp_path, TEAL.replace('"Date"', '"Buchungstag"')
                 .replace('{ label = "Details", role = "description" },',
                          '{ label = "Valuta", role = "ignore" },\n'
                          '      { label = "Details", role = "description" },'))
    glued = Line(1, [Word("BUCHUNGSTAGVALUTA", 50, 163, 100, 109),
                     *line(100, (192, "DETAILS"), (-410, "PAID OUT"), (-480, "PAID IN"),
                           (-560, "BALANCE")).words])
    row = line(115, (50, "02 Feb"), (122, "03 Feb"), (192, "X"), (-410, "4.50"),
               (-560, "995.50"))
    r = read_table(t, [glued, row], END)
    assert r.problems == [] and r.rows[0].date == date(2026, 2, 2)


def test_continuation_lines_join_the_description(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE HOUSE"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(95, "123 MAIN ST 11/02")]),
             (141, [(95, "REF 4410")]))
    assert r.rows[0].desc == ["COFFEE", "HOUSE", "123", "MAIN", "ST", "11/02", "REF", "4410"]


def test_a_date_printed_once_per_day_is_carried_only_where_the_template_says(
        tmp_path: Path, teal: Template) -> None:
    rows = ((115, [(50, "2 Feb"), (95, "ONE"), (-410, "1.00")]),
            (128, [(95, "TWO"), (-410, "2.00"), (-560, "997.00")]))
    assert read(teal, *rows).problems and len(read(teal, *rows).rows) == 1
    carrying = template(tmp_path, TEAL.replace('date_format = "%d %b"\n',
                                               'date_format = "%d %b"\ncarry_date = true\n'),
                        "carry.toml")
    r = read(carrying, *rows)
    assert [(row.date, row.desc) for row in r.rows] == [(date(2026, 2, 2), ["ONE"]),
                                                        (date(2026, 2, 2), ["TWO"])]
    assert r.problems == []


def test_a_wrapped_line_that_starts_with_a_balance_word_continues_its_row(
        teal: Template) -> None:
    """`Übertrag auf Sparcard` under a booking is its text: a balance row has a figure."""
    r = read(teal, (115, [(50, "2 Feb"), (95, "TRANSFER"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(95, "Übertrag auf Sparcard")]),
             (141, [(95, "Balance carried forward")]))
    assert r.rows[0].desc == ["TRANSFER", "Übertrag", "auf", "Sparcard"]
    assert len(r.markers) == 1 and r.markers[0].value is None


def test_balance_forward_rows_are_markers_never_transactions(teal: Template) -> None:
    r = read(teal, (115, [(95, "Balance brought forward"), (-560, "1,000.00")]),
             (128, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50")]),
             (141, [(95, "BALANCE CARRIED FORWARD"), (-560, "995.50")]))
    assert len(r.rows) == 1
    assert [(m.before, m.value.text if m.value else None) for m in r.markers] == [
        (0, "1,000.00"), (1, "995.50")]


def test_page_furniture_in_the_table_is_no_problem_and_no_description(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(50, "Continued on page 2")]),
             (141, [(95, "Member FDIC.")]),
             (154, [(50, "Page 1 of 2")]))
    assert r.problems == [] and r.rows[0].desc == ["X"]
    assert [role for _, role, _ in r.log].count("furniture") == 3


def test_a_line_repeated_under_the_header_is_no_row(teal: Template) -> None:
    r = read(teal, (115, [(50, "JORDAN RIVERA - Account No. ****5678")]),
             (128, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50")]))
    assert r.problems == [] and len(r.rows) == 1


def test_large_print_is_a_watermark_and_merged_print_is_a_problem(teal: Template) -> None:
    row = line(115, (50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50"))
    clean = Line(1, [Word("C", 250, 346, 80, 185)], large=True)
    merged = Line(1, [Word("OACK", 240, 347, 70, 175)], large=True)
    assert read_table(teal, [line(100, *HEADER), clean, row], END).problems == []
    problems = read_table(teal, [line(100, *HEADER), merged, row], END).problems
    assert len(problems) == 1 and "large print merged" in problems[0]


def test_a_heading_sets_what_an_unsigned_amount_means(tmp_path: Path) -> None:
    t = template(tmp_path, """
        bank = "teal"
        name = "Teal Savings Bank"
        [period]
        date_format = "%d %b %Y"
        [table]
        columns = [
          { label = "Date", role = "date" },
          { label = "Details", role = "description" },
          { label = "Amount", role = "amount" },
        ]
        date_format = "%d %b"
        [table.headings]
        "Deposits" = "credit"
        "Withdrawals" = "debit"
    """)
    header = [(50, "Date"), (95, "Details"), (-560, "Amount")]
    r = read_table(t, lines((90, [(50, "DEPOSITS")]), (100, header),
                            (115, [(50, "2 Feb"), (95, "PAY"), (-560, "10.00")]),
                            (140, [(50, "Withdrawals")]), (150, header),
                            (165, [(50, "3 Feb"), (95, "RENT"), (-560, "4.00")])), END)
    assert [row.sign for row in r.rows] == ["credit", "debit"]


def test_a_word_where_only_figures_belong_is_a_problem(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.5O")]))
    assert r.problems and "stands in no column" in r.problems[0]


def test_an_unreadable_date_with_figures_is_a_problem(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Fob"), (95, "X"), (-410, "4.50"), (-560, "995.50")]))
    assert r.rows == [] and "unreadable date" in r.problems[0]


@pytest.mark.parametrize(("cells", "locale", "joined"), [
    ([(400, "$"), (407, "12.00")], "en", "$ 12.00"),
    ([(400, "-"), (406, "580,06")], "de", "- 580,06"),
    ([(400, "2,077.19"), (441, "CR")], "en", "2,077.19 CR"),
    ([(400, "19.949,91"), (447, "EUR")], "de", "19.949,91 EUR"),
    ([(400, "1"), (407, "234,56"), (438, "€")], "fr", "1 234,56 €"),
])
def test_a_sign_currency_or_suffix_word_joins_its_figure(cells: list, locale: str,
                                                         joined: str) -> None:
    toks = tokens(line(10, *cells), locale)
    assert [t.text for t in toks] == [joined] and toks[0].amount is not None
    assert toks[0].amount.value != Decimal(0)


def test_figures_in_neighbouring_columns_stay_apart() -> None:
    toks = tokens(line(10, (-410, "4.50"), (-480, "12.00")), "en")
    assert [t.text for t in toks] == ["4.50", "12.00"]


def test_a_row_without_a_date_takes_the_date_of_a_balance_row_above(tmp_path: Path) -> None:
    carrying = template(tmp_path, TEAL.replace('date_format = "%d %b"\n',
                                               'date_format = "%d %b"\ncarry_date = true\n'))
    r = read(carrying, (115, [(50, "12 Feb"), (95, "Balance brought forward"), (-560, "1,000.00")]),
             (128, [(95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]))
    assert [(row.date, row.desc) for row in r.rows] == [(date(2026, 2, 12), ["COFFEE"])]


def test_a_value_date_line_under_a_row_continues_it_where_the_template_says(
        tmp_path: Path, teal: Template) -> None:
    rows = ((115, [(50, "2 Feb"), (95, "Lastschrift SPARKASSE"), (-410, "205.90")]),
            (128, [(50, "3 Feb"), (95, "MAINZ010//SPARKASSE")]),
            (141, [(95, "Mandat: 175720")]))
    assert len(read(teal, *rows).rows) == 2
    valuta = template(tmp_path, TEAL.replace('date_format = "%d %b"\n',
                                             'date_format = "%d %b"\nvalue_date_line = true\n'),
                      "valuta.toml")
    r = read(valuta, *rows)
    assert [(row.date, row.desc) for row in r.rows] == [
        (date(2026, 2, 2), ["Lastschrift", "SPARKASSE", "MAINZ010//SPARKASSE", "Mandat:",
                            "175720"])]
