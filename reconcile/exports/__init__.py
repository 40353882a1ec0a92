"""Exports of the book into what bookkeeping tools read: one plain function per format.

Every format renders a `BookExport` (the book's transactions and statement balances as
records, and the ledger account names) to bytes. Money stays `Decimal` until it is text.
"""

from __future__ import annotations

from collections.abc import Callable

from reconcile.exports import beancount, journal, ofx, qif, table, xlsx
from reconcile.exports.accounts import AccountNames
from reconcile.exports.source import BookExport

FORMATS: dict[str, Callable[[BookExport], bytes]] = {
    "csv": table.render_csv,
    "parquet": table.render_parquet,
    "beancount": beancount.render,
    "ledger": journal.render,
    "ofx": ofx.render,
    "qif": qif.render,
    "xlsx": xlsx.render,
}
#: formats that are not text and so are written to a file, never to a terminal
BINARY = frozenset({"parquet", "xlsx"})


def render(fmt: str, book: BookExport) -> bytes:
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose from {', '.join(FORMATS)}")
    return FORMATS[fmt](book)


__all__ = ["BINARY", "FORMATS", "AccountNames", "BookExport", "render"]
