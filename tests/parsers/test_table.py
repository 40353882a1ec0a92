"""The table reader: headers that do not sit over their figures, rows, balance rows, furniture."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from parsers.layout.ocr_doubts import doubts, weigh_ocr
from parsers.layout.table import read_table
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Template
from parsers.layout.tokens import figures_at_end, loose_amount, tokens
from parsers.pdf.lines import Line
from parsers.pdf.page import Word
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


@pytest.mark.parametrize(("align", "x", "column"), [
    (None, -443, "debit"), ("left", -443, "debit"), ("center", -443, "debit"),
    ("right", -443, None), ("center", -444, None),
    (None, -448, "credit"), ("right", -448, "credit"), ("left", -448, None),
])
def test_a_column_aligned_by_one_edge_takes_figures_by_that_edge_alone(
        tmp_path: Path, align: str | None, x: float, column: str | None) -> None:
    toml = TEAL if align is None else TEAL.replace(
        'role = "debit" }', f'role = "debit", align = "{align}" }}').replace(
        'role = "credit" }', f'role = "credit", align = "{align}" }}')
    r = read_table(template(tmp_path, toml), lines(
        (100, HEADER), (115, [(50, "2 Feb"), (95, "X"), (x, "1,000.00"), (-560, "1,995.50")])),
        END)
    if column is None:  # its aligned edge is far from every label's: it stands in no column
        assert "'1,000.00' stands in no column" in r.problems[0]
    else:
        assert figures(r) == [{column: "1,000.00", "balance": "1,995.50"}]


def test_a_label_word_printed_alone_before_its_label_leaves_the_label_whole(
        teal: Template) -> None:
    # `Paid` on its own, then `Paid out`: the label is matched where its words stand together
    header = [(50, "Date"), (95, "Details"), (300, "Paid"), *HEADER[2:]]
    r = read_table(teal, lines((100, header), (115, [(50, "2 Feb"), (95, "X"), (-410, "4.50"),
                                                     (-560, "995.50")])), END)
    assert r.headers == 1 and figures(r) == [{"debit": "4.50", "balance": "995.50"}]


def test_a_text_line_without_signs_or_marks_reads_each_word_alone() -> None:
    toks = tokens(line(10, (50, "2 Feb"), (95, "CARD 12"), (-410, "4.50"), (-480, "(3.00)")),
                  "en")
    assert [(t.text, t.amount and t.amount.value) for t in toks] == [
        ("2", None), ("Feb", None), ("CARD", None), ("12", None), ("4.50", Decimal("4.50")),
        ("(3.00)", Decimal("-3.00"))]
    assert all(t.conf is None and not t.loose and t.x0 < t.x1 for t in toks)
    # a sign word anywhere on the line: figures are joined with their marks again
    signed = tokens(line(10, (95, "CARD 12"), (400, "-"), (-422, "4.50")), "en")
    assert [t.text for t in signed] == ["CARD", "12", "- 4.50"]
    assert signed[-1].amount is not None and signed[-1].amount.value == Decimal("-4.50")


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


@pytest.mark.parametrize(("cells", "locale"), [
    ([(50, "2 Feb"), (95, "CARD 12"), (-410, "4.50"), (-480, "12.00")], "en"),
    ([(50, "2 Feb"), (95, "REFUND"), (-480, "12.00")], "en"),
    ([(50, "2 Feb"), (95, "INVOICE 2026"), (-410, "4.50")], "en"),
    ([(50, "2 Feb"), (95, "FEE"), (-410, "4.50"), (430, "CR")], "en"),
    ([(50, "2 Feb"), (95, "FEE"), (400, "-"), (-422, "4.50"), (-480, "(3.00)")], "en"),
    ([(50, "02.02.2026"), (95, "GEBUHR"), (-410, "1.234,50")], "de"),
    ([(50, "2 Feb"), (95, "FRAIS"), (400, "1"), (407, "234,56")], "fr"),
    ([(50, "2 Feb"), (95, "COFFEE SHOP")], "en"),
])
def test_the_figures_at_a_lines_end_are_those_its_tokens_end_with(cells: list,
                                                                   locale: str) -> None:
    ln = line(10, *cells)
    toks = tokens(ln, locale)
    i = len(toks)
    while i > 0 and toks[i - 1].amount is not None:
        i -= 1
    assert figures_at_end(ln, locale) == toks[i:]


def test_the_figures_at_a_lines_end_stop_at_its_last_word() -> None:
    ln = line(10, (50, "2 Feb"), (95, "CARD 12"), (-410, "4.50"), (-480, "12.00"))
    assert [t.text for t in figures_at_end(ln, "en")] == ["4.50", "12.00"]
    assert figures_at_end(line(10, (50, "2 Feb"), (95, "COFFEE")), "en") == []


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


# --- OCR rows: what the evidence around a doubtful value vouches for ----------------------

def scanned(rows: list[Line], low: dict[str, float]) -> list[Line]:
    """`rows` as OCR would give them: every word read at 96 but those in `low`."""
    return [Line(ln.page, [w._replace(conf=low.get(w.text, 96.0)) for w in ln.words])
            for ln in rows]


def weighed(t: Template, rows: list[Line]) -> TableReading:
    """The table of `rows` with its OCR doubts weighed, as the engine weighs them."""
    r = read_table(t, rows, END)
    weigh_ocr(r, rows, "account 1")
    return r


def test_a_doubtful_date_between_confident_reads_of_its_day_is_trusted(teal: Template) -> None:
    rows = lines((100, HEADER),
                 (115, [(50, "2 Feb"), (95, "ONE"), (-410, "1.00"), (-560, "99.00")]),
                 (128, [(50, "3 Feb"), (95, "TWO"), (-410, "1.00"), (-560, "98.00")]),
                 (141, [(50, "3 Febb"), (95, "THREE"), (-410, "1.00"), (-560, "97.00")]),
                 (154, [(50, "3 Feb"), (95, "FOUR"), (-410, "1.00"), (-560, "96.00")]),
                 (167, [(50, "4 Feb"), (95, "FIVE"), (-410, "1.00"), (-560, "95.00")]))
    rows[3] = Line(1, [w._replace(text="Feb") if w.text == "Febb" else w for w in rows[3].words])
    low = scanned(rows, {})
    low[3] = Line(1, [w._replace(conf=41.0) if w.text == "3" else w for w in low[3].words])
    r = weighed(teal, low)
    assert not [p for p in r.problems if "date" in p], r.problems
    assert len(r.trusted) == 1 and "account 1 row 3 (2026-02-03): OCR read the date" in r.trusted[0]
    # the same doubt beside another day (3 Feb may be a misread 4 Feb): review
    low[4] = Line(1, [w._replace(text="4") if w.text == "3" else w for w in low[4].words])
    r = weighed(teal, low)
    assert any("row 3 (2026-02-03): OCR read the date of this row with confidence 41" in p
               for p in r.problems)


def test_doubtful_description_words_need_a_word_or_a_confident_read_elsewhere(
        teal: Template) -> None:
    rows = lines((100, HEADER),
                 (115, [(50, "2 Feb"), (95, "COFFEE ZORBLAX"), (-410, "1.00"), (-560, "99.00")]),
                 (128, [(50, "3 Feb"), (95, "ZORBLAX QWXV"), (-410, "1.00"), (-560, "98.00")]))
    words_low = scanned(rows, {"COFFEE": 50.0})
    assert weighed(teal, words_low).problems == []
    words_low[1] = Line(1, [w._replace(conf=50.0) if w.text == "ZORBLAX" else w
                            for w in words_low[1].words])
    r = weighed(teal, words_low)  # the second ZORBLAX is read confidently
    assert r.problems == []
    assert r.trusted[0].startswith("account 1 row 1 (2026-02-02): 2 description word(s)")
    r = weighed(teal, scanned(rows, {"ZORBLAX": 50.0}))  # nowhere confidently
    assert len(r.problems) == 2 and all("1 word(s) of the description" in p for p in r.problems)
    r = weighed(teal, scanned(rows, {"QWXV": 50.0}))
    assert len(r.problems) == 1 and "1 word(s) of the description" in r.problems[0]


def test_an_ordinal_look_alike_goes_to_review_however_sure_ocr_was(teal: Template) -> None:
    rows = lines((100, HEADER),
                 (115, [(50, "2 Feb"), (95, "ATM STH AVE"), (-410, "1.00"), (-560, "99.00")]))
    r = weighed(teal, scanned(rows, {}))
    assert any("'STH', which may as well be an ordinal" in p for p in r.problems)
    assert weighed(teal, rows).problems == []  # a text layer is taken as printed


def test_words_run_together_go_to_review_however_sure_ocr_was(teal: Template) -> None:
    rows = lines((100, HEADER), (115, [(50, "2 Feb"), (95, "GYMMEMBERSHIP DUES"),
                                       (-410, "1.00"), (-560, "99.00")]))
    r = weighed(teal, scanned(rows, {}))
    assert any("'GYMMEMBERSHIP', which is words run together" in p for p in r.problems)
    assert weighed(teal, rows).problems == []


def test_a_word_of_the_language_with_a_space_read_into_it_goes_to_review(
        teal: Template) -> None:
    rows = lines((100, HEADER), (115, [(50, "2 Feb"), (95, "CARD ENDIN G 4410"),
                                       (-410, "1.00"), (-560, "99.00")]))
    got = weighed(teal, scanned(rows, {})).problems
    assert any("'ENDIN G', which is one word of the language with a space" in p for p in got)
    rows = lines((100, HEADER), (115, [(50, "2 Feb"), (95, "CARD ENDING 4410 IN TO"),
                                       (-410, "1.00"), (-560, "99.00")]))
    assert weighed(teal, scanned(rows, {})).problems == []
    assert weighed(teal, rows).problems == []  # a text layer is taken as printed


def test_an_iban_printed_in_groups_is_no_two_numbers_side_by_side(teal: Template) -> None:
    def row(details: str) -> list[Line]:
        return scanned(lines((100, HEADER), (115, [(50, "2 Feb"), (95, details),
                                                   (-410, "1.00"), (-560, "99.00")])), {})
    assert weighed(teal, row("IBAN: DE02 1203 0000 0000 2020 51")).problems == []
    got = weighed(teal, row("IBAN: DE02 1203 0000 0000 2020 57")).problems
    assert len(got) == 1 and "two numbers side by side" in got[0]


def test_a_date_read_with_a_letter_for_a_digit_stands_only_where_its_day_pins_it(
        teal: Template) -> None:
    def table(before: str, after: str) -> list[Line]:
        return scanned(lines(
            (100, HEADER),
            (115, [(50, before), (95, "ONE"), (-410, "1.00"), (-560, "99.00")]),
            (128, [(50, "I1 Feb"), (95, "TWO"), (-410, "1.00"), (-560, "98.00")]),
            (141, [(50, after), (95, "THREE"), (-410, "1.00"), (-560, "97.00")])), {})
    r = weighed(teal, table("11 Feb", "11 Feb"))
    assert r.problems == [] and r.rows[1].date == date(2026, 2, 11)
    r = weighed(teal, table("10 Feb", "12 Feb"))
    assert len(r.problems) == 1 and "OCR read the date of this row with confidence 89" \
        in r.problems[0]


def test_ocr_words_left_of_the_details_between_two_rows_go_to_review(teal: Template) -> None:
    # `CORP` of the row above, its box read wider into the dates' column: no date, no
    # figure, and the next line a row, so it is text of the table no row took
    rows = scanned(lines((100, HEADER),
                         (115, [(50, "2 Feb"), (95, "PAYROLL DEPOSIT ACME"), (-410, "1.00"),
                                (-560, "99.00")]),
                         (128, [(60, "CORP"), (110, "REF 0000057486085")]),
                         (141, [(50, "3 Feb"), (95, "RENT"), (-410, "1.00"),
                                (-560, "98.00")])), {})
    got = read_table(teal, rows, END).problems
    assert len(got) == 1 and "a line between two rows prints words where dates stand" in got[0]
    # under the table's last row, it may be anything below the table
    assert read_table(teal, rows[:3], END).problems == []


def test_a_compound_of_a_table_not_printed_in_english_is_no_words_run_together(
        teal: Template) -> None:
    # German writes its compounds as one word; the dictionary's words in them are no sign
    # of a space OCR did not see where the descriptions are not English
    german = lines((100, HEADER),
                   (115, [(50, "2 Feb"), (95, "Kartenzahlung Supermarkt Kundenreferenz"),
                          (-410, "1.00"), (-560, "99.00")]),
                   (130, [(50, "3 Feb"), (95, "Miete Wohnung Lindenstrasse"),
                          (-410, "1.00"), (-560, "98.00")]))
    assert not any("words run together" in p for p in weighed(teal, scanned(german, {})).problems)
    english = lines((100, HEADER),
                    (115, [(50, "2 Feb"), (95, "GYMMEMBERSHIP MONTHLY DUES"),
                           (-410, "1.00"), (-560, "99.00")]),
                    (130, [(50, "3 Feb"), (95, "RENT PAYMENT OAK"),
                           (-410, "1.00"), (-560, "98.00")]))
    got = weighed(teal, scanned(english, {})).problems
    assert any("'GYMMEMBERSHIP', which is words run together" in p for p in got)


@pytest.mark.parametrize(("printed", "value", "suffix"), [
    ("102.95.", "102.95", ""), ("372:52", "372.52", ""), ("5;440.40", "5440.40", ""),
    ("8,470.36:Cr", "8470.36", "CR"), ("—1,236,600.87 Cr", "1236600.87", "CR"),
    ("“4,911.99", "4911.99", ""), ("1,301:51-Dr", "1301.51", "DR")])
def test_a_figure_with_broken_punctuation_reads_the_one_way_its_digits_allow(
        printed: str, value: str, suffix: str) -> None:
    a = loose_amount(printed)
    assert a is not None and str(a.value) == value and a.suffix == suffix


@pytest.mark.parametrize("printed", ["-12.50", "12.50-", "$12:50", "§.85", "123456", "2,669.",
                                     "1,23,456.00", "12:5", "11/02", "7781-ALPHA"])
def test_a_figure_read_more_than_one_way_or_not_a_figure_reads_as_nothing(printed: str) -> None:
    assert loose_amount(printed) is None


def test_a_broken_figure_is_a_doubt_and_text_pages_keep_it_a_stray(teal: Template) -> None:
    rows = lines((100, HEADER),
                 (115, [(50, "2 Feb"), (95, "ONE"), (-410, "1:00"), (-560, "99.00")]))
    r = read_table(teal, scanned(rows, {}), END)
    assert figures(r) == [{"debit": "1:00", "balance": "99.00"}] and r.problems == []
    assert [(d.row, d.figure, d.printed) for d in doubts(r.rows)] == [(0, "amount", "1:00")]
    assert any("stands in no column" in p for p in read_table(teal, rows, END).problems)


def test_a_carried_date_is_trusted_only_where_the_page_shows_its_date_cell_blank(
        tmp_path: Path) -> None:
    carrying = template(tmp_path, TEAL.replace('date_format = "%d %b"\n',
                                               'date_format = "%d %b"\ncarry_date = true\n'),
                        "carry.toml")
    rows = scanned(lines((100, HEADER),
                         (115, [(50, "2 Feb"), (95, "ONE"), (-410, "1.00"), (-560, "99.00")]),
                         (128, [(95, "TWO"), (-410, "1.00"), (-560, "98.00")]),
                         (141, [(50, "3 Feb"), (95, "THREE"), (-410, "1.00"), (-560, "97.00")])),
                   {})

    def inked(ink: tuple[tuple[float, float], ...] | None) -> list[Line]:
        return [*rows[:2], Line(1, [w._replace(ink=ink) for w in rows[2].words]), rows[3]]

    r = weighed(carrying, inked(()))
    assert r.problems == []
    assert any("row 2 (2026-02-02): OCR read no date on this row" in t and "date cell" in t
               for t in r.trusted), r.trusted
    # a printed date OCR did not read (`3 Feb` missed: ink in the cell), or no page to look
    # at: the row may be another day
    for ink in (((50.0, 70.0),), None):
        r = weighed(carrying, inked(ink))
        assert any("row 2 (2026-02-02): OCR read no date on this row" in p
                   for p in r.problems), r.problems
        assert not any("date cell" in t for t in r.trusted)


def test_a_doubtful_date_read_alike_twice_stands_only_in_order_within_the_period(
        teal: Template) -> None:
    def table(doubtful: str, twice: bool, start: date | None = date(2026, 2, 1)
              ) -> TableReading:
        rows = scanned(lines((100, HEADER),
                             (115, [(50, "2 Feb"), (95, "ONE"), (-410, "1.00"),
                                    (-560, "99.00")]),
                             (128, [(50, doubtful), (95, "TWO"), (-410, "1.00"),
                                    (-560, "98.00")]),
                             (141, [(50, "7 Feb"), (95, "THREE"), (-410, "1.00"),
                                    (-560, "97.00")])), {})
        rows[2] = Line(1, [w._replace(conf=60.0, twice=twice) if w.x0 < 90 else w
                           for w in rows[2].words])
        r = read_table(teal, rows, END, start)
        weigh_ocr(r, rows, "account 1")
        return r

    r = table("5 Feb", twice=True)
    assert not [p for p in r.problems if "date" in p], r.problems
    assert any("row 2 (2026-02-05)" in t and "a second reading read it alike" in t
               for t in r.trusted), r.trusted
    # read once, out of order (a 6 read as an 8 twice), or no period start known: review
    for doubtful, twice, start in (("5 Feb", False, date(2026, 2, 1)),
                                   ("8 Feb", True, date(2026, 2, 1)),
                                   ("5 Feb", True, None)):
        r = table(doubtful, twice, start)
        assert any("row 2" in p and "OCR read the date of this row with confidence 60" in p
                   for p in r.problems), (doubtful, twice, start, r.problems)


@pytest.mark.parametrize(("skipped", "stop"), [("Page 2", "End of statement"),
                                               ("Printed on 3 Mar", "Closing notes follow")])
def test_any_of_a_templates_skip_or_end_patterns_skips_a_line_or_ends_the_table(
        tmp_path: Path, skipped: str, stop: str) -> None:
    t = template(tmp_path, TEAL + "    skip = ['^Page \\\\d', 'Printed on']\n"
                                  "    end = ['^End of statement', 'Closing notes']\n")
    r = read(t, (115, [(50, "2 Feb"), (95, "X"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(95, skipped)]),
             (141, [(50, stop)]),
             (154, [(50, "3 Feb"), (95, "Y"), (-410, "1.00"), (-560, "994.50")]))
    assert [role for _, role, _ in r.log] == ["header", "row", "furniture", "end", "outside"]
    assert len(r.rows) == 1 and r.problems == []


def test_a_legal_paragraph_across_the_table_is_furniture_and_the_table_goes_on(
        teal: Template) -> None:
    # text set over the date, description and figure columns alike, far under a row
    legal = [(50, "In case of errors or questions about your electronic transfers"),
             (330, "call us at once, write us at the address")]
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
             (160, legal),
             (175, [(50, "Seite 1 von 20")]),
             (200, [(50, "3 Feb"), (95, "SALARY"), (-480, "1,000.00"), (-560, "1,995.50")]))
    assert r.problems == []
    assert [row.desc for row in r.rows] == [["COFFEE"], ["SALARY"]]
    assert [role for _, role, _ in r.log].count("furniture") == 2


def test_a_phone_number_and_postcode_of_a_legal_line_are_no_figures(teal: Template) -> None:
    # a line under the rows that starts where dates stand and prints digits across the
    # figure columns, none of them an amount: it can change no number
    legal = [(50, "1-800-555-0199"), (120, "or write to us at P.O. Box 15284,"),
             (-420, "DE"), (-470, "19850,"), (-560, "as soon as you can.")]
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
             (128, legal),
             (141, [(50, "3 Feb"), (95, "SALARY"), (-480, "1,000.00"), (-560, "1,995.50")]))
    assert r.problems == []
    assert [row.desc for row in r.rows] == [["COFFEE"], ["SALARY"]]
    # the same words with a figure's decimals where amounts stand may be an amount
    legal[3] = (-470, "19850,00")
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
             (128, legal),
             (141, [(50, "3 Feb"), (95, "SALARY"), (-480, "1,000.00"), (-560, "1,995.50")]))
    assert r.problems


def test_a_word_with_a_digit_where_figures_stand_is_no_furniture(teal: Template) -> None:
    r = read(teal, (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
             (128, [(95, "FEE"), (-410, "5,90EUR")]))
    assert any("stands in no column" in p or "5,90EUR" in p for p in r.problems)
