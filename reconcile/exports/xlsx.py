"""The book as a spreadsheet for a bookkeeper: one sheet per account, and the statements.

Columns follow the statements' own convention: `Debit` is money out of the account and
`Credit` money in, both positive. Dates are real dates and money real numbers with two
decimals (a spreadsheet stores numbers as binary floating point; the cents read back exact).
"""

from __future__ import annotations

import io

from openpyxl import Workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from reconcile.exports.source import BookExport

COLUMNS = ["Date", "Description", "Debit", "Credit", "Balance", "Currency", "Transaction id",
           "Source job", "Verified"]
STATEMENT_COLUMNS = ["Account", "Period start", "Period end", "Opening balance",
                     "Closing balance", "Currency", "Source job", "Verified"]
MONEY, DAY = "#,##0.00", "yyyy-mm-dd"
WIDTHS = {"Description": 48, "Transaction id": 34, "Source job": 24, "Account": 24}


def render(book: BookExport) -> bytes:
    wb = Workbook()
    for empty in wb.worksheets:  # the sheet a new workbook starts with
        wb.remove(empty)
    for key in book.accounts():
        ws = _sheet(wb, sheet_title(f"{key.bank} {key.last4}"), COLUMNS)
        for t in book.transactions_of(key):
            ws.append([t.date, t.description, -t.amount if t.amount < 0 else None,
                       t.amount if t.amount >= 0 else None, t.balance, t.currency, t.txn_id,
                       t.decision_id, t.verified])
        _formats(ws, money_columns=(3, 4, 5), day_columns=(1,))
    ws = _sheet(wb, "Statements", STATEMENT_COLUMNS)
    for b in book.balances:
        ws.append([book.names.name(b.account), b.period_start, b.period_end,
                   b.opening_balance, b.closing_balance, b.currency, b.decision_id, b.verified])
    _formats(ws, money_columns=(4, 5), day_columns=(2, 3))
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def sheet_title(text: str) -> str:
    """A title Excel accepts: 31 characters at most, none of `[]:*?/\\`."""
    return "".join("-" if ch in "[]:*?/\\" else ch for ch in text)[:31]


def _sheet(wb: Workbook, title: str, columns: list[str]) -> Worksheet:
    ws = wb.create_sheet(title)
    ws.append(columns)
    ws.freeze_panes = "A2"
    for i, label in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(i)].width = WIDTHS.get(label, 14)
    return ws


def _formats(ws: Worksheet, money_columns: tuple[int, ...], day_columns: tuple[int, ...]) -> None:
    for row in ws.iter_rows(min_row=2):
        for i in money_columns:
            row[i - 1].number_format = MONEY
        for i in day_columns:
            row[i - 1].number_format = DAY
