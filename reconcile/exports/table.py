"""The book as a table (CSV or Parquet): one row per transaction, money and dates as text.

Text keeps every amount exact (no float ever touches it); `verified` says whether the
statement a row came from was verified (always true unless unreviewed rows were asked for).
"""

from __future__ import annotations

import io

import pandas as pd

from parsers.model import money
from reconcile.exports.source import BookExport

COLUMNS = ["txn_id", "bank", "account_last4", "currency", "date", "description", "amount",
           "balance", "decision_id", "verified"]


def frame(book: BookExport) -> pd.DataFrame:
    rows = [[t.txn_id, t.bank, t.account_last4, t.currency, t.date.isoformat(), t.description,
             money(t.amount), None if t.balance is None else money(t.balance), t.decision_id,
             t.verified] for t in book.transactions]
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.astype({c: "string" for c in COLUMNS[:-1]} | {"verified": "boolean"})


def render_csv(book: BookExport) -> bytes:
    return frame(book).to_csv(index=False).encode()


def render_parquet(book: BookExport) -> bytes:
    out = io.BytesIO()
    frame(book).to_parquet(out, index=False)
    return out.getvalue()
