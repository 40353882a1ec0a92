"""Labels OCR misread are read back to the vocabulary's words; descriptions are left alone."""

from __future__ import annotations

from parsers.lines import Line
from parsers.ocr_labels import snap_lines
from parsers.reader import Word
from parsers.template import load_templates


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
