"""A statement's output objects: transactions as CSV and Parquet, and `statement.json`.

Everything here is deterministic in the input bytes and the job's pinned identities (nothing
of the job itself: its id, times and attempts are the ledger's), so the same input under the
same pins always gives the same bytes, a repeated delivery is a duplicate in the book, and a
changed output is a real change. The fields and the version policy are documented in
docs/output-schema.md.

It lives beside the parser, free of Prefect and of the ledger, because an import renders and
hashes a file's objects in the parse worker that read it (`task.parse_and_render`): the
command's process, whose threads share one interpreter lock, then only writes and records them.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from parsers.api import ParseResult
from parsers.model import Statement, transaction_ids
from parsers.worker.rendered import Rendered

#: Version of the `statement.json` layout; raised only when a field is removed, renamed or
#: changes meaning (docs/output-schema.md). Documents without it predate versioning.
SCHEMA_VERSION = 2

COLUMNS = ["txn_id", "account_last4", "currency", "date", "description", "amount", "balance"]


def statement_dict(result: ParseResult) -> dict[str, Any]:
    """The normalised statement with each transaction's id and the statement period."""
    st = result.statement
    doc = st.to_dict()
    doc["period"] = {"start": st.period_start and st.period_start.isoformat(),
                     "end": st.period_end and st.period_end.isoformat()}
    return _with_ids(doc, st)  # ids from the parsed statement: its document says the same


def with_transaction_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """Set every transaction's `txn_id` from what it says now (a correction may change it)."""
    return _with_ids(doc, Statement.from_dict(doc))


def _with_ids(doc: dict[str, Any], st: Statement) -> dict[str, Any]:
    """`doc`, the document of `st`, with each transaction's id set."""
    for acct, acct_doc in zip(st.accounts, doc["accounts"], strict=True):
        for txn_id, t in zip(transaction_ids(st.bank, acct), acct_doc["transactions"],
                             strict=True):
            t["txn_id"] = txn_id
    return doc


def transaction_rows(doc: dict[str, Any]) -> list[list[str | None]]:
    """One row per transaction in `COLUMNS` order; money stays text (exact), never float."""
    rows = []
    for a in doc["accounts"]:
        for t in a["transactions"]:
            row = {"account_last4": a["account_last4"], "currency": a["currency"], **t}
            rows.append([None if row.get(c) is None else str(row[c]) for c in COLUMNS])
    return rows


def transactions_csv(rows: list[list[str | None]]) -> bytes:
    """The rows as CSV with a header, minimal quoting, `\\n` line ends, empty for null."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return out.getvalue().encode()


def transactions_parquet(rows: list[list[str | None]]) -> bytes:
    """The rows as Parquet, every column a string: written by pyarrow, no data frame between."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(COLUMNS)
    table = pa.table({name: pa.array(col, pa.string()) for name, col in zip(
        COLUMNS, columns, strict=True)})
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def statement_document(result: ParseResult, input_sha256: str | None,
                       pinned: Mapping[str, str]) -> dict[str, Any]:
    """The `statement.json` document of a parse of the input `input_sha256` under the
    identities `pinned` (chain revision, OCR engine, policy revision)."""
    return {
        "schema_version": SCHEMA_VERSION,
        **statement_dict(result),
        "validation": result.validation.to_dict(),
        "layout": result.layout,
        "reading": result.reading(),
        "pages": result.pages,
        "ocr_pages": result.ocr_pages,
        "input_sha256": input_sha256,
        "pinned": dict(pinned),
    }


def output_files(result: ParseResult, input_sha256: str | None,
                 pinned: Mapping[str, str]) -> dict[str, bytes]:
    """A parse's objects (its document already carries the transaction ids)."""
    return files_of(statement_document(result, input_sha256, pinned))


def document_files(doc: dict[str, Any]) -> dict[str, bytes]:
    """A statement document's objects: itself, and its transactions as CSV and Parquet
    (also how a corrected statement's new version is written, its ids recomputed)."""
    return files_of(with_transaction_ids(doc))


def files_of(doc: dict[str, Any]) -> dict[str, bytes]:
    """The objects of a document whose transactions carry their ids."""
    rows = transaction_rows(doc)
    return {
        "statement.json": json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n",
        "transactions.csv": transactions_csv(rows),
        "transactions.parquet": transactions_parquet(rows),
    }


def render(result: ParseResult, input_sha256: str | None,
           pinned: Mapping[str, str]) -> Rendered:
    """A parse's objects, their digests and the statement's summary for the ledger."""
    files = output_files(result, input_sha256, pinned)
    st = result.statement
    return Rendered(files, {name: hashlib.sha256(data).hexdigest()
                            for name, data in files.items()},
                    needs_review=not result.validation.ok, bank=st.bank,
                    account_last4=tuple(a.account_last4 for a in st.accounts),
                    transactions=st.transaction_count)
