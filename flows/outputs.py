"""A statement's output objects: transactions as CSV and Parquet, and `statement.json`.

Everything here is deterministic in the input bytes and the job's pinned identities (nothing
of the job itself: its id, times and attempts are the ledger's), so the same input under the
same pins always gives the same bytes, a repeated delivery is a duplicate in the book, and a
changed output is a real change. The fields
and the version policy are documented in docs/output-schema.md.
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pandas as pd

from parsers.api import ParseResult
from parsers.model import Statement, transaction_ids
from reconcile.records import Job

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
    return with_transaction_ids(doc)


def with_transaction_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """Set every transaction's `txn_id` from what it says now (a correction may change it)."""
    st = Statement.from_dict(doc)
    for acct, acct_doc in zip(st.accounts, doc["accounts"], strict=True):
        for txn_id, t in zip(transaction_ids(st.bank, acct), acct_doc["transactions"],
                             strict=True):
            t["txn_id"] = txn_id
    return doc


def transactions_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per transaction; money stays text (exact) rather than float."""
    rows = [{"account_last4": a["account_last4"], "currency": a["currency"], **t}
            for a in doc["accounts"] for t in a["transactions"]]
    return pd.DataFrame(rows, columns=COLUMNS).astype("string")


def statement_document(result: ParseResult, job: Job) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        **statement_dict(result),
        "validation": result.validation.to_dict(),
        "layout": result.layout,
        "reading": result.reading(),
        "pages": result.pages,
        "ocr_pages": result.ocr_pages,
        "input_sha256": job.sha256,
        "pinned": dataclasses.asdict(job.identities),
    }


def output_files(result: ParseResult, job: Job) -> dict[str, bytes]:
    return document_files(statement_document(result, job))


def document_files(doc: dict[str, Any]) -> dict[str, bytes]:
    """A statement document's objects: itself, and its transactions as CSV and Parquet
    (also how a corrected statement's new version is written, its ids recomputed)."""
    doc = with_transaction_ids(doc)
    frame = transactions_frame(doc)
    parquet = io.BytesIO()
    frame.to_parquet(parquet, index=False)
    return {
        "statement.json": json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n",
        "transactions.csv": frame.to_csv(index=False).encode(),
        "transactions.parquet": parquet.getvalue(),
    }
