"""What the renderers print: figures in the variant's forms, on pages a reader can read."""

from __future__ import annotations

import random
from decimal import Decimal

import pypdfium2 as pdfium

from corpus import draw_for
from corpus.banks import RENDERERS
from corpus.forms import money, signed
from corpus.variant import Variant


def text(pdf: bytes) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        return "\n".join(p.get_textpage().get_text_range() for p in doc)
    finally:
        doc.close()


def producer(pdf: bytes) -> str:
    return pdfium.PdfDocument(pdf).get_metadata_dict()["Producer"]


def render(bank: str, v: Variant, index: int = 0, seed: str = "b") -> tuple[str, dict]:
    out = RENDERERS[bank](draw_for(index, random.Random(f"{seed}:{index}"), False), v)
    return text(out.pdf), out.truth.to_dict()


def test_signs_print_leading_trailing_or_in_parentheses() -> None:
    v = Decimal("-1234.50")
    assert signed(v) == "-1,234.50"
    assert signed(v, Variant(sign="trailing")) == "1,234.50-"
    assert signed(v, Variant(sign="parentheses")) == "(1,234.50)"
    assert signed(-v, Variant(sign="trailing")) == "1,234.50"


def test_currency_goes_before_after_or_nowhere() -> None:
    v = Decimal("19949.91")
    assert money(v) == "$19,949.91"
    assert money(-v) == "-$19,949.91"
    assert money(v, Variant(currency="before"), "EUR", "", "de") == "EUR 19.949,91"
    assert money(v, Variant(), "EUR", "", "de") == "19.949,91 EUR"
    assert money(v, Variant(currency="after")) == "19,949.91 USD"
    assert money(-v, Variant(currency="none", sign="parentheses")) == "(19,949.91)"


def test_short_period_and_other_wording_reach_the_page() -> None:
    page, _ = render("northwind", Variant(period_form="short", opening_label="Previous Balance",
                                          colon=True, case="upper"))
    assert "PERIOD :" in page
    assert "PREVIOUS BALANCE:" in page
    assert "Beginning Balance" not in page


def test_page_furniture_is_printed_on_every_page() -> None:
    v = Variant(furniture=("footer", "page-of", "continued"))
    out = RENDERERS["northwind"](draw_for(13, random.Random("f:13"), False), v)  # 15+ pages
    pages = len(pdfium.PdfDocument(out.pdf))
    page = text(out.pdf)
    assert pages >= 15
    assert page.count("Member FDIC.") == pages
    assert f"Page {pages} of {pages}" in page
    assert "Continued on page 2" in page
    assert {"furniture:footer", "furniture:page-of", "furniture:continued"} <= out.drawn


def test_carried_rows_repeat_the_running_balance_across_a_page_break() -> None:
    out = RENDERERS["bluebird"](draw_for(13, random.Random("c:13"), False),
                                Variant(carry_rows=True))
    page = text(out.pdf)
    assert "carry-rows" in out.drawn
    assert page.count("Balance carried forward") == page.count("Balance brought forward") > 0


def test_derived_opening_is_not_printed_but_follows_from_the_first_balance() -> None:
    page, truth = render("meridian", Variant(structure="derived-opening"), index=1)
    acct = truth["accounts"][0]
    first = acct["transactions"][0]
    assert "Opening Balance" not in page
    assert Decimal(first["balance"]) - Decimal(first["amount"]) == Decimal(acct["opening_balance"])


def test_value_below_puts_the_figure_on_the_next_line() -> None:
    page, truth = render("meridian", Variant(value_below=True), index=1)
    lines = page.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "Opening Balance")
    opening = Decimal(truth["accounts"][0]["opening_balance"])
    assert f"{abs(opening):,.2f}" in lines[at + 1]


def test_missing_header_leaves_the_balance_column_unlabelled() -> None:
    page, _ = render("northwind", Variant(missing_header=True))
    header = next(line for line in page.splitlines() if "Deposits" in line
                  and "Withdrawals" in line and "$" not in line)
    assert "Balance" not in header
    plain, _ = render("northwind", Variant())
    assert any("Withdrawals Deposits Balance" in line for line in plain.splitlines())


def test_second_producer_writes_the_same_statement_with_fpdf2() -> None:
    first = RENDERERS["bluebird"](draw_for(2, random.Random("p:2"), False), Variant())
    second = RENDERERS["bluebird"](
        draw_for(2, random.Random("p:2"), False),
        Variant(producer="fpdf2", embedded_font=True, word_gap=1.4, by_column=True))
    assert first.truth == second.truth
    assert producer(second.pdf) == "fpdf2" and producer(first.pdf).startswith("ReportLab")
    for t in second.truth.accounts[0].transactions:
        assert f"{abs(t.amount):,.2f}" in text(second.pdf)


def test_day_end_balances_print_only_the_last_balance_of_a_day() -> None:
    out = RENDERERS["northwind"](draw_for(3, random.Random("d:3"), False),
                                 Variant(day_end_balance=True, date_once=True))
    rows = out.truth.accounts[0].transactions
    page = text(out.pdf)
    for i, t in enumerate(rows):
        later = i + 1 < len(rows) and rows[i + 1].date == t.date
        assert (t.balance is None) == later
        if t.balance is not None:
            assert f"{abs(t.balance):,.2f}" in page
    assert any(t.balance is None for t in rows)


def test_no_colon_drops_the_colons_the_bank_prints_after_its_labels() -> None:
    page, _ = render("northwind", Variant(colon=False))
    assert "Statement Period 0" in page and "Account Number ****" in page
    assert "Statement Period:" not in page
    plain, _ = render("northwind", Variant())
    assert "Statement Period: 0" in plain and "Account Number: ****" in plain


def test_a_repeated_header_names_the_account_whose_table_continues() -> None:
    v = Variant(structure="two-accounts", furniture=("repeated-header",))
    out = RENDERERS["meridian"](draw_for(26, random.Random("r:26"), False), v)
    first, second = (a.account_last4 for a in out.truth.accounts)
    doc = pdfium.PdfDocument(out.pdf)
    pages = [p.get_textpage().get_text_range() for p in doc]
    assert "furniture:repeated-header" in out.drawn
    assert len(pages) == 2 and f"XXXXXX{second}" in pages[0]  # the second table breaks
    assert f"XXXXXX{second}" in pages[1]
    assert f"XXXXXX{first}" not in pages[1]
