"""Labels OCR misread are read back to the vocabulary's words; descriptions are left alone."""

from __future__ import annotations

import pytest

from parsers.layout.ocr_labels import snap_lines
from parsers.layout.template import load_templates
from parsers.pdf.lines import Line
from parsers.pdf.page import Word


def line(*texts: str, conf: float | None = 88.0) -> Line:
    words = [Word(t, 10.0 + 60 * i, 60.0 + 60 * i, 100.0, 110.0, conf, 1)
             for i, t in enumerate(texts)]
    return Line(1, words)


def snapped(*texts: str, conf: float | None = 88.0) -> str:
    return snap_lines([line(*texts, conf=conf)], load_templates())[0].text


def test_misread_labels_at_the_start_of_a_line_are_mended() -> None:
    assert snapped("Cl0sing", "Balanse:", "1,234.56", "Cr") == "Closing Balance: 1,234.56 Cr"
    assert snapped("Staternent", "Perlod:", "01-Jan-2026") == "Statement Period: 01-Jan-2026"
    assert snapped("MERIDIAN", "SAVlNGS", "BANK") == "Meridian Savings Bank"


def test_a_balance_row_label_after_its_date_is_mended() -> None:
    assert snapped("05-Jan-2026", "Ba1ance", "brought", "forvard", "9.00").lower() == \
        "05-jan-2026 balance brought forward 9.00"


def test_a_table_header_is_mended_word_by_word() -> None:
    assert snapped("Date", "Partlculars", "Deblt", "Credlt", "Balance") == \
        "Date Particulars Debit Credit Balance"


def test_descriptions_and_text_pages_are_left_as_printed() -> None:
    assert snapped("05-Jan-2026", "PERIODS", "OF", "GRACE", "9.00") == \
        "05-Jan-2026 PERIODS OF GRACE 9.00"
    assert snapped("ACCOUNTS", "PAYABLE") == "ACCOUNTS PAYABLE"
    assert snapped("Cl0sing", "Balanse:", conf=None) == "Cl0sing Balanse:"


def test_a_header_word_with_a_look_alike_digit_is_still_a_header_word() -> None:
    assert snapped("Date", "Particulars", "Debit", "Credit", "Ba1ance") == \
        "Date Particulars Debit Credit Balance"


def test_a_header_word_that_is_a_column_word_stays_as_printed() -> None:
    # `Credit` is one edit from another bank's `Credits`: it must not become that word
    assert snapped("Date", "Particulars", "Debit", "Credit", "Balance") == \
        "Date Particulars Debit Credit Balance"


@pytest.mark.parametrize(("words", "mended"), [
    (("Statement", "Period:", "01-Jul-2024", "to", "31-J", "ul-2024"),
     "Statement Period: 01-Jul-2024 to 31-Jul-2024"),
    (("Statement", "Period:.01-Sep-2024", "to", "01-Oct-2024"),
     "Statement Period: 01-Sep-2024 to 01-Oct-2024"),
    (("Period", ":", "01-Aug-2025.", "31-Aug-2025"), "Period : 01-Aug-2025 to 31-Aug-2025"),
    (("Period", ":", "15-Dec-2024", "-.14-Jan-2025"), "Period : 15-Dec-2024 to 14-Jan-2025"),
    (("Statement", "Period:", "0l-Api-2025", "to", "01-May-2025"),
     "Statement Period: 01-Apr-2025 to 01-May-2025"),
    (("STATEMENT", "PERIOD", "FROM", "01", "-Mar-2024", "TO", "31-Mar-2024"),
     "STATEMENT PERIOD 01-Mar-2024 to 31-Mar-2024"),
])
def test_a_period_ocr_split_or_smudged_reads_as_its_two_dates(words: tuple[str, ...],
                                                             mended: str) -> None:
    assert snapped(*words) == mended


@pytest.mark.parametrize("words", [
    ("Statement", "Period:", "01-Mav-2025", "to", "31-May-2025"),  # Mar or May
    ("Statement", "Period:", "31-Jul-2024", "to", "01-Jul-2024"),  # ends before it starts
    ("Statement", "Period:", "01-Jul-2024", "to", "3?-Jul-2024"),
    ("PAYMENT", "01-Jul-2024", "to", "31-J", "ul-2024"),  # no period label
])
def test_a_period_read_more_than_one_way_or_not_at_all_is_left_as_printed(
        words: tuple[str, ...]) -> None:
    assert snapped(*words) == " ".join(words)


def test_a_period_that_reads_already_and_a_text_page_are_left_as_printed() -> None:
    printed = ("Statement", "Period:", "01-Jul-2024", "to", "31-Jul-2024")
    assert snapped(*printed) == " ".join(printed)
    assert snapped("Statement", "Period:", "31-J", "ul-2024", conf=None) == \
        "Statement Period: 31-J ul-2024"


def test_a_slash_read_as_a_letter_is_a_look_alike() -> None:
    assert snapped("AIC", "No.", "XXXXXX8287") == "A/C No. XXXXXX8287"
    assert snapped("alc", "no.", "XXXXXX7812") == "A/C No. XXXXXX7812"
    assert snapped("ABC", "No.", "XXXXXX7812") == "ABC No. XXXXXX7812"


def test_an_account_label_with_its_c_read_as_e_is_mended_before_a_masked_number() -> None:
    assert snapped("ale", "no.", "XXXXXX2100") == "A/C No. XXXXXX2100"
    assert snapped("alec", "no", "XXXXXX2100") == "A/C No XXXXXX2100"


def test_words_like_an_account_label_stay_unless_a_masked_number_alone_follows() -> None:
    # the same misreading followed by anything but a masked number is not a label
    assert snapped("ale", "no.", "2100") == "ale no. 2100"
    assert snapped("ale", "no.", "XXXXXX2100", "SAVINGS") == "ale no. XXXXXX2100 SAVINGS"
    assert snapped("05-Jan-2026", "ALE", "NO", "12.50") == "05-Jan-2026 ALE NO 12.50"
    # an edit other than a `c` read as `e` is another word
    assert snapped("alx", "no.", "XXXXXX2100") == "alx no. XXXXXX2100"
    assert snapped("ale", "no.", "XXXXXX2100", conf=None) == "ale no. XXXXXX2100"
