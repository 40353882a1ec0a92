"""The look-alike renderer: what a layout description's templates and blocks print."""

from __future__ import annotations

import random
from datetime import date
from decimal import Decimal

import pypdfium2 as pdfium

from corpus.described import fill, render
from corpus.layout import Digits, Layout, Line, Skip, Table, month
from corpus.layouts import LAYOUTS
from corpus.render import Col
from corpus.truth import Draw
from parsers.numbers import format_amount

COLUMNS = (Col("Date", 50), Col("Details", 115, width=230), Col("Amount", 470, "right"),
           Col("Balance", 560, "right"))
#: a bank as a newcomer would describe it: a header, an opening line, one table
TINY = Layout(
    bank="tiny", paper="letter", currency="USD", period=month, number=(Digits(0, 9999, 4),),
    header=(Line(((50, "TINY BANK"), (-560, "Page {page}")), bold=True),
            Line(((50, "Account {number}, continued"),), pages="later"),
            Skip()),
    body=(Line(((50, "Opening balance"), (-330, "{opening:signed $}"))),
          Table(columns=COLUMNS,
                cells=("{date:%d/%m/%Y}", "{text}", "{amount:signed}", "{balance:signed}"))),
)


def pages(pdf: bytes) -> list[str]:
    doc = pdfium.PdfDocument(pdf)
    try:
        return [p.get_textpage().get_text_range() for p in doc]
    finally:
        doc.close()


def test_figures_print_by_the_words_of_their_spec() -> None:
    v = {"x": Decimal("-1234.5"), "y": Decimal("580.06"), "none": None}
    assert fill("{x}", v) == "1,234.50"
    assert fill("{x:signed}|{x:signed $}|{y:signed $}", v) == "-1,234.50|-$1,234.50|$580.06"
    assert fill("{x:de signed}|{x:de ±}|{y:de ±}", v) == "-1.234,50|- 1.234,50|+ 580,06"
    assert fill("{x:abs signed}|{x:$}", v) == "1,234.50|$1,234.50"
    assert fill("[{none:signed}]", v) == "[]"


def test_dates_and_numbers_print_in_the_forms_banks_use() -> None:
    v = {"a": date(2025, 2, 1), "b": date(2025, 3, 12), "c": date(2025, 5, 23),
         "n": "1234567890", "h": "PRIYA N. SHAH"}
    assert fill("{a:ordinal}|{b:ordinal}|{c:ordinal}", v) == "1st Feb|12th Mar|23rd May"
    assert fill("{a:long}|{b:monat} {b.year}|{c:%d.%m.}", v) == "February 1, 2025|März 2025|23.05."
    assert fill("{n:grouped}|{h:title}", v) == "1234 5678 90|Priya N. Shah"


def test_a_description_prints_its_header_on_the_pages_it_names_and_every_row() -> None:
    out = render(TINY, Draw(random.Random("tiny"), 80, False, False))
    text = pages(out.pdf)
    acct = out.truth.accounts[0]
    assert len(text) >= 2
    assert all(f"Page {n}" in page for n, page in enumerate(text, start=1))
    assert "continued" not in text[0]
    assert all(f"Account {acct.account_last4}, continued" in page and "Details" in page
               for page in text[1:])
    assert out.truth.bank == "tiny" and len(acct.transactions) == 80
    first = acct.transactions[0]
    assert f"{first.date:%d/%m/%Y}" in text[0] and first.description.split()[0] in text[0]
    assert acct.transactions[-1].balance == acct.closing_balance
    assert f"{abs(acct.closing_balance):,.2f}" in text[-1]


def test_sectioned_tables_list_the_truth_as_printed() -> None:
    sections = Layout(
        bank="sections", paper="a4", currency="EUR", period=month, balances=False,
        number=(Digits(0, 9999, 4),), header=(Skip(),),
        body=tuple(Table(columns=COLUMNS[:3], rows=rows, cells=("{date:%d.%m.}", "{text}",
                                                                 "{amount:de signed}"),
                         before=(Line(((50, title),), bold=True),),
                         after=(Line(((50, "Summe"), (-470, "{total:de signed}"))),))
                   for rows, title in (("in", "Eingänge"), ("out", "Ausgänge"))))
    out = render(sections, Draw(random.Random("sections"), 12, False, False))
    txs = out.truth.accounts[0].transactions
    ins = [t for t in txs if t.amount > 0]
    assert txs == ins + [t for t in txs if t.amount < 0] and 0 < len(ins) < len(txs)
    assert all(t.balance is None for t in txs)
    page = pages(out.pdf)[0]
    assert page.index("Eingänge") < page.index("Ausgänge")
    assert format_amount(sum((t.amount for t in ins), Decimal(0)), "de") in page


def test_every_layout_is_its_own_bank() -> None:
    banks = [layout.bank for layout in LAYOUTS]
    assert len(set(banks)) == len(banks) == 6
