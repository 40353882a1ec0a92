"""openpyxl opens the spreadsheet export: a sheet per account with the CSV's totals."""

from __future__ import annotations

import io
from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pandas as pd
from openpyxl import load_workbook
from readback import cents

from reconcile.exports import table, xlsx


def test_sheets_have_the_same_totals_as_the_csv(books, tmp_path: Path) -> None:
    export = books.export()
    path = tmp_path / "book.xlsx"
    path.write_bytes(xlsx.render(export))
    wb = load_workbook(path)
    assert wb.sheetnames == [*(f"{k.bank} {k.last4}" for k in export.accounts()), "Statements"]
    csv = pd.read_csv(io.BytesIO(table.render_csv(export)), dtype=str)
    money_out, money_in = defaultdict(Decimal), defaultdict(Decimal)
    for r in csv.itertuples():
        amount = Decimal(r.amount)
        (money_out if amount < 0 else money_in)[f"{r.bank} {r.account_last4}"] += abs(amount)
    for ws in wb.worksheets[:-1]:
        assert [c.value for c in ws[1]] == xlsx.COLUMNS
        debit = sum((cents(r[2]) for r in ws.iter_rows(min_row=2, values_only=True)
                     if r[2] is not None), Decimal(0))
        credit = sum((cents(r[3]) for r in ws.iter_rows(min_row=2, values_only=True)
                      if r[3] is not None), Decimal(0))
        assert (debit, credit) == (money_out[ws.title], money_in[ws.title])
        assert ws.max_row - 1 == sum(1 for r in csv.itertuples()
                                     if f"{r.bank} {r.account_last4}" == ws.title)


def test_cells_are_dates_and_two_decimal_numbers(books, tmp_path: Path) -> None:
    path = tmp_path / "book.xlsx"
    path.write_bytes(xlsx.render(books.export()))
    [ws] = [ws for ws in load_workbook(path).worksheets if ws.title.startswith("northwind")]
    day, _, debit, credit, balance, *_ = ws[2]
    assert isinstance(day.value, datetime) and day.number_format == "yyyy-mm-dd"
    assert all(c.number_format == "#,##0.00" for c in (debit, credit, balance))
    assert isinstance(balance.value, float | int)


def test_statements_sheet_lists_each_statements_balances(books, tmp_path: Path) -> None:
    export = books.export()
    path = tmp_path / "book.xlsx"
    path.write_bytes(xlsx.render(export))
    ws = load_workbook(path)["Statements"]
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    assert [(r[0], cents(r[3]), cents(r[4]), r[6]) for r in rows] == [
        (export.names.name(b.account), b.opening_balance, b.closing_balance, b.decision_id)
        for b in export.balances]


def test_sheet_titles_are_ones_excel_accepts() -> None:
    assert xlsx.sheet_title("bank/with:odd*chars?[x]" + "x" * 40) == (
        "bank-with-odd-chars--x-" + "x" * 8)
