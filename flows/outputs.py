"""A statement's output objects: transactions as CSV and Parquet, and `statement.json`.

Everything here is deterministic in the statement and the job's pinned identities, so an
identical re-run writes identical bytes and a changed output is a real change.
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pandas as pd

from parsers.api import ParseResult
from reconcile.records import Job

COLUMNS = ["account_last4", "currency", "date", "description", "amount", "balance"]


def transactions_frame(result: ParseResult) -> pd.DataFrame:
    """One row per transaction; money stays text (exact) rather than float."""
    rows = [
        {"account_last4": a["account_last4"], "currency": a["currency"], **t}
        for a in result.statement.to_dict()["accounts"] for t in a["transactions"]
    ]
    return pd.DataFrame(rows, columns=COLUMNS).astype("string")


def statement_document(result: ParseResult, job: Job) -> dict[str, Any]:
    return {
        **result.statement.to_dict(),
        "validation": result.validation.to_dict(),
        "layout": result.layout,
        "pages": result.pages,
        "ocr_pages": result.ocr_pages,
        "job_id": job.job_id,
        "input_sha256": job.sha256,
        "pinned": dataclasses.asdict(job.identities),
    }


def output_files(result: ParseResult, job: Job) -> dict[str, bytes]:
    frame = transactions_frame(result)
    parquet = io.BytesIO()
    frame.to_parquet(parquet, index=False)
    doc = json.dumps(statement_document(result, job), indent=1, sort_keys=True)
    return {
        "statement.json": doc.encode() + b"\n",
        "transactions.csv": frame.to_csv(index=False).encode(),
        "transactions.parquet": parquet.getvalue(),
    }
