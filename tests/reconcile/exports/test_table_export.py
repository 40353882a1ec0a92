"""The CSV and Parquet exports: a row per transaction, exact money as text, the id first."""

from __future__ import annotations

import io

import pandas as pd

from parsers.model import money
from reconcile.exports import table


def test_csv_rows_are_the_books_with_exact_money(books) -> None:
    export = books.export()
    frame = pd.read_csv(io.BytesIO(table.render_csv(export)), dtype=str, keep_default_na=False)
    assert list(frame.columns) == table.COLUMNS
    assert [tuple(r) for r in frame[["txn_id", "date", "amount", "balance"]].itertuples(
        index=False)] == [(t.txn_id, t.date.isoformat(), money(t.amount),
                           "" if t.balance is None else money(t.balance))
                          for t in export.transactions]
    assert set(frame["verified"]) == {"True"}


def test_parquet_holds_the_same_table_with_text_money(books) -> None:
    export = books.export()
    parquet = pd.read_parquet(io.BytesIO(table.render_parquet(export)))
    csv = pd.read_csv(io.BytesIO(table.render_csv(export)), dtype=str, keep_default_na=False)
    assert list(parquet.columns) == table.COLUMNS
    assert str(parquet["amount"].dtype) == "string" and str(parquet["verified"].dtype) == \
        "boolean"
    assert parquet["amount"].tolist() == csv["amount"].tolist()
