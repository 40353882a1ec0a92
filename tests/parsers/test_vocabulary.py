from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from parsers.layout.labelled import (
    amount_reader,
    every_labelled,
    exact_amount_reader,
    find_labelled,
    read_last4,
)
from parsers.layout.periods import Periods, find_period, find_period_end, periods
from parsers.layout.vocabulary import (
    ACCOUNT,
    CLOSING,
    OPENING,
    is_furniture,
    is_heading,
    match_label,
)
from tests.parsers.sheets import line, lines


@pytest.mark.parametrize("printed", [
    "Opening Balance 12.00", "OPENING BALANCE: 12.00", "opening balance : 12.00",
    "Opening  balance:12.00", "Opening-Balance 12.00",
])
def test_labels_match_any_case_spacing_and_colon(printed: str) -> None:
    m = match_label(printed, ["Opening Balance"])
    assert m is not None and printed[m.end():] == "12.00"


@pytest.mark.parametrize("printed", ["Account No. 1234", "ACCOUNT NO : 1234", "Account No 1234",
                                     "account no: 1234"])
def test_no_dot_and_no_colon_are_the_same_label(printed: str) -> None:
    m = match_label(printed, ["Account No."])
    assert m is not None and printed[m.end():] == "1234"


def test_a_label_matches_whole_words_only() -> None:
    assert match_label("Unbalanced figures 12.00", ["Balance"]) is None
    assert match_label("Solde PRÉCÉDENT 12,00", ["Solde précédent"]) is not None
    # nor does one start inside a word, alone or among other labels
    for labels in (["Opening Balance"], list(OPENING)):
        m = match_label("Reopening Balance 12.00; Opening Balance 3.00", labels)
        assert m is not None and m.start() == 25


def test_the_minus_after_a_label_stays_with_the_figure() -> None:
    found = find_labelled([line(10, (50, "Beginning Balance -$231.72"))], OPENING,
                          amount_reader("en"))
    assert found is not None and found.value.value == Decimal("-231.72")


@pytest.mark.parametrize(("text", "locale", "value"), [
    ("Alter Kontostand vom 31.12.2025 1.234,56 EUR", "de", "1234.56"),
    ("Beginning balance on May 1, 2019 $25,000.00", "en", "25000.00"),
    ("Balance brought forward from 11th Feb Statement £2,937.11", "en", "2937.11"),
    ("Ending Balance 16 $189,296.31", "en", "189296.31"),
])
def test_dates_and_counts_between_label_and_value_are_skipped(text: str, locale: str,
                                                              value: str) -> None:
    found = find_labelled([line(10, (50, text))], (*OPENING, *CLOSING), amount_reader(locale))
    assert found is not None and found.value.value == Decimal(value)


def test_a_value_on_the_line_under_its_label() -> None:
    ls = lines((10, [(60, "Beginning Balance:")]), (23, [(72, "USD 1,234.56")]),
               (36, [(60, "Ending Balance:")]), (49, [(72, "USD 99.00")]))
    opening = find_labelled(ls, OPENING, amount_reader("en"),
                            read_below=exact_amount_reader("en"))
    closing = find_labelled(ls, CLOSING, amount_reader("en"),
                            read_below=exact_amount_reader("en"))
    assert opening is not None and opening.below and opening.value.value == Decimal("1234.56")
    assert closing is not None and closing.value.value == Decimal("99.00")


def test_a_value_under_a_label_that_ends_its_page_is_read_below_the_next_page_header() -> None:
    page1 = lines((20, [(50, "BANK"), (-545, "Blatt 3")]), (700, [(50, "Endsaldo")]), page=3)
    page2 = lines((20, [(50, "BANK"), (-545, "Blatt 4")]), (60, [(62, "546.414,96")]), page=4)
    found = find_labelled([*page1, *page2], CLOSING, amount_reader("de"),
                          read_below=exact_amount_reader("de"))
    assert found is not None and found.value.value == Decimal("546414.96")


def test_every_labelled_value_in_order_the_first_of_each_line() -> None:
    ls = lines((10, [(60, "Closing Balance 10.00")]), (23, [(60, "Closing Balance:")]),
               (36, [(72, "20.00")]),
               (49, [(60, "Closing Balance 30.00"), (300, "Closing Balance 40.00")]))
    found = list(every_labelled(ls, CLOSING, amount_reader("en")))
    assert [f.value.value for f in found] == [Decimal("10.00"), Decimal("20.00"),
                                               Decimal("30.00")]
    assert [f.below for f in found] == [False, True, False]


def test_a_line_under_a_label_that_is_not_its_value_is_not_taken() -> None:
    ls = lines((10, [(60, "Beginning Balance")]), (23, [(60, "Deposits and Additions $500.00")]))
    assert find_labelled(ls, OPENING, amount_reader("en"),
                         read_below=exact_amount_reader("en")) is None


def test_a_label_inside_a_longer_label_of_the_other_balance_does_not_count() -> None:
    ls = [line(10, (60, "previous statement balance: $3,591.60")),
          line(23, (60, "statement balance: $1,729.76 CR"))]
    found = find_labelled(ls, CLOSING, amount_reader("en"), blockers=OPENING)
    assert found is not None and found.value.value == Decimal("1729.76")


@pytest.mark.parametrize(("text", "last4"), [
    ("Account Number: ****1234 Page 1", "1234"),
    ("Account No : XXXX XXXX XXXX 6517 Statement closing date 12/31/2024", "6517"),
    ("IBAN DE89 **** **** **** **30 00", "3000"),
    ("A/C No. XXXXXX5678", "5678"),
    ("Account number: 123456789 Sort Code: 09 01 22", "6789"),
    ("Account ending in 4821", "4821"),
    ("Kontonummer 20-5678-1234", "1234"),
    ("Account Summary", None),
    ("Account: 1234 XXXX", None),
])
def test_account_numbers_give_their_last_four_digits(text: str, last4: str | None) -> None:
    found = find_labelled([line(10, (50, text))], ACCOUNT, read_last4)
    assert (found.value if found else None) == last4


@pytest.mark.parametrize(("text", "formats"), [
    ("Statement Period: 02/01/2026 - 02/28/2026", ["%m/%d/%Y"]),
    ("Period : 02/01/2026 - 02/28/2026", ["%m/%d/%Y"]),
    ("Statement period from 02/01/2026 to 02/28/2026", ["%m/%d/%Y"]),
    ("1 Feb 2026 to 28 Feb 2026", ["%d %b %Y"]),
    ("February 1, 2026 through February 28, 2026", ["%B %d, %Y"]),
    ("Zeitraum 01.02.2026 bis 28.02.2026", ["%d.%m.%Y"]),
    ("Auszugszeitraum vom 01.02.2026 bis 28.02.2026", ["%d.%m.%Y"]),
    ("Période du 1 févr. 2026 au 28 févr. 2026", ["%d %b %Y"]),
    ("Periodo del 1 feb 2026 al 28 feb 2026", ["%d %b %Y"]),
])
def test_period_forms(text: str, formats: list[str]) -> None:
    found = find_period([line(10, (50, text))], formats)
    assert found is not None and found[:2] == (date(2026, 2, 1), date(2026, 2, 28))


def test_a_labelled_period_wins_over_an_earlier_unlabelled_range() -> None:
    ls = [line(10, (50, "Rates valid 01/01/2026 - 12/31/2026")),
          line(23, (50, "Statement Period: 02/01/2026 - 02/28/2026"))]
    assert find_period(ls, ["%m/%d/%Y"])[:2] == (date(2026, 2, 1), date(2026, 2, 28))


def test_periods_gives_the_labelled_period_and_the_first_range_anywhere() -> None:
    ls = [line(10, (50, "Rates valid 01/01/2026 - 12/31/2026")),
          line(23, (50, "Statement Period: 02/01/2026 - 02/28/2026"))]
    labelled, anywhere = periods(ls, ["%m/%d/%Y"])
    assert labelled is not None and labelled[:2] == (date(2026, 2, 1), date(2026, 2, 28))
    assert anywhere is not None and anywhere[:2] == (date(2026, 1, 1), date(2026, 12, 31))
    labelled, anywhere = periods(ls[:1], ["%m/%d/%Y"])
    assert labelled is None and anywhere is not None
    assert find_period(ls[:1], ["%m/%d/%Y"], labelled_only=True) is None
    assert find_period(ls[:1], ["%m/%d/%Y"])[:2] == (date(2026, 1, 1), date(2026, 12, 31))


@pytest.mark.parametrize("text", ["Periode 01.02.2026 - 28.02.2026",
                                  "Période 01.02.2026 au 28.02.2026",
                                  "Periodo 01.02.2026 al 28.02.2026"])
def test_a_label_ending_in_the_letters_of_a_from_word_still_labels_the_range(text: str) -> None:
    labelled, anywhere = periods([line(10, (50, text))], ["%d.%m.%Y"])
    assert labelled is not None and labelled[:2] == (date(2026, 2, 1), date(2026, 2, 28))
    assert anywhere is None


def test_periods_read_once_serve_every_list_of_the_lines_as_a_fresh_reading() -> None:
    # a section's lines start under the statement's period label: there no label stands
    # above its range, whatever the statement's lines said of it
    ls = [line(10, (50, "Statement Period")), line(23, (50, "01/01/2026 - 01/31/2026")),
          line(36, (50, "Account 1234")), line(49, (50, "Kontoauszug Dezember 2021")),
          line(62, (50, "Period: 01/05/2026 - 01/20/2026"))]
    finder = Periods(["%m/%d/%Y", "%B %Y"], ["Kontoauszug"])
    for part in (ls, ls[1:], ls[1:4], ls[2:], ls[3:4], ls, ls[1:]):
        assert finder(part) == periods(part, ["%m/%d/%Y", "%B %Y"], ["Kontoauszug"])
    assert finder(ls[1:4])[0] is not None and finder(ls[1:4])[0][:2] == (date(2021, 12, 1),
                                                                      date(2021, 12, 31))


def test_a_label_is_found_on_any_line_however_many_lines_come_before_it() -> None:
    before = [line(10 + 13 * k, (50, f"Item {k} of the notes")) for k in range(30)]
    ls = [*before, line(500, (50, "Opening Balance 12.00")),
          line(513, (50, "Opening Balance 99.00"))]
    found = find_labelled(ls, OPENING, amount_reader("en"))
    assert found is not None and found.value.value == Decimal("12.00") and found.line is ls[30]
    assert find_labelled(before, OPENING, amount_reader("en")) is None
    for k in (0, 1, 30):
        one = [*before[:k], ls[30], *before[k:]]
        found = find_labelled(one, OPENING, amount_reader("en"))
        assert found is not None and found.line is ls[30]


@pytest.mark.parametrize("text", ["Statement Closing Date 01/14/2026", "Closing Date : 01/14/2026",
                                  "statement closing date 01/14/2026"])
def test_a_single_closing_date_ends_the_period(text: str) -> None:
    found = find_period_end([line(10, (50, text))], ["%m/%d/%Y"])
    assert found is not None and found.value == date(2026, 1, 14)


@pytest.mark.parametrize(("text", "furniture"), [
    ("Continued on page 3", True), ("Page 2 of 3", True), ("Seite 1 von 2", True),
    ("Member FDIC.", True), ("Fortsetzung auf Blatt 2", True),
    ("Transactions (continued)", True), ("Federally insured by NCUA.", True),
    ("11/02", False), ("COFFEE HOUSE 123 MAIN ST", False), ("PAGE ONE CAFE", False),
])
def test_page_furniture_is_known_and_nothing_else_is(text: str, furniture: bool) -> None:
    assert is_furniture(text) is furniture


@pytest.mark.parametrize("text", [
    "Página 3 de 4", "Feuille 2 sur 5", "(Continúa)", "Suite", "Continues from page 1",
    "Umsätze (Fortsetzung)", "Suite au verso", "Member FDIC", "Deposits are FDIC insured",
    "EQUAL HOUSING LENDER", "This is a computer generated statement",
    "Einlagensicherung der Banken", "Blatt 2",
])
def test_every_furniture_pattern_is_found_through_its_words(text: str) -> None:
    assert is_furniture(text)


def test_a_furniture_word_alone_is_no_furniture() -> None:
    assert not is_furniture("Page fees 12.00")
    assert not is_furniture("Insured by the FDIC")


def test_a_template_adds_its_own_furniture() -> None:
    assert is_furniture("Harbor Card Services is a member of the card network.",
                        ["is a member of the card network"])


def test_a_heading_is_the_whole_line_without_a_colon() -> None:
    assert is_heading("DEPOSITS AND ADDITIONS", ["Deposits and Additions"])
    assert is_heading("Deposits and additions (continued)", ["Deposits and Additions"])
    assert not is_heading("Deposits and Additions:", ["Deposits and Additions"])
    assert not is_heading("Deposits and Additions $12.00", ["Deposits and Additions"])


def test_a_watermark_between_a_label_and_its_value_is_passed_over() -> None:
    from parsers.pdf.lines import Line
    from parsers.pdf.page import Word

    watermark = Line(1, [Word("P", 264, 308, 14, 120)], large=True)
    ls = [line(10, (60, "Statement Balance")), watermark, line(23, (72, "$2,417.84"))]
    found = find_labelled(ls, CLOSING, amount_reader("en"), read_below=exact_amount_reader("en"))
    assert found is not None and found.value.value == Decimal("2417.84")


def test_a_period_printed_as_a_month_is_the_whole_month() -> None:
    found = find_period([line(10, (50, "Kontoauszug Dezember 2021"))], ["%d.%m.%Y", "%B %Y"])
    assert found is not None and found[:2] == (date(2021, 12, 1), date(2021, 12, 31))


def test_a_period_start_without_a_year_takes_the_end_year() -> None:
    found = find_period([line(10, (50, "Statement Period February 1 – April 30, 2022"))],
                        ["%B %d, %Y", "%B %d"])
    assert found is not None and found[:2] == (date(2022, 2, 1), date(2022, 4, 30))


def test_a_value_in_the_cell_under_its_label_in_a_boxed_header() -> None:
    ls = [line(10, (75, "Auszug"), (118, "Seite"), (160, "IBAN"), (392, "Alter Kontostand")),
          line(21, (75, "001"), (118, "1/2"), (160, "DE31 2001 0020 9999 9999 99"),
               (392, "EUR"), (-544, "+ 2.853,82"))]
    found = find_labelled(ls, OPENING, amount_reader("de"), read_below=exact_amount_reader("de"))
    assert found is not None and found.below and found.value.value == Decimal("2853.82")
