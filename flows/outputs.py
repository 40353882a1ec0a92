"""A statement's output objects: transactions as CSV and Parquet, and `statement.json`.

Everything here is deterministic in the statement and the job's pinned identities, so an
identical re-run writes identical bytes and a changed output is a real change.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pandas as pd

from parsers.api import ParseResult

COLUMNS = ["account_last4", "currency", "date", "description", "amount", "balance"]


def transactions_frame(result: ParseResult) -> pd.DataFrame:
    """One row per transaction; money stays text (exact) rather than float."""
    return _frame(result.statement.to_dict())


def _frame(doc: dict[str, Any]) -> pd.DataFrame:
    rows = [
        {"account_last4": a["account_last4"], "currency": a["currency"], **t}
        for a in doc["accounts"] for t in a["transactions"]
    ]
    return pd.DataFrame(rows, columns=COLUMNS).astype("string")


def statement_document(result: ParseResult, job: dict[str, Any]) -> dict[str, Any]:
    return {
        **result.statement.to_dict(),
        "validation": result.validation.to_dict(),
        "layout": result.layout,
        "pages": result.pages,
        "ocr_pages": result.ocr_pages,
        "job_id": job["job_id"],
        "input_sha256": job["sha256"],
        "pinned": {"chain_revision": job["chain_revision"], "ocr_engine": job["ocr_engine"],
                   "policy_revision": job["policy_revision"]},
    }


def output_files(result: ParseResult, job: dict[str, Any]) -> dict[str, bytes]:
    return document_files(statement_document(result, job))


def document_files(doc: dict[str, Any]) -> dict[str, bytes]:
    """A statement document's objects: itself, and its transactions as CSV and Parquet
    (also how a corrected statement's new version is written)."""
    frame = _frame(doc)
    parquet = io.BytesIO()
    frame.to_parquet(parquet, index=False)
    return {
        "statement.json": json.dumps(doc, indent=1, sort_keys=True).encode() + b"\n",
        "transactions.csv": frame.to_csv(index=False).encode(),
        "transactions.parquet": parquet.getvalue(),
    }
