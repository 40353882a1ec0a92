"""A statement's output objects carry each transaction's stable id and a schema version."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from corpus import statement
from flows.job_files import SCHEMA_VERSION, output_files
from parsers.api import ParseResult
from parsers.codes import Status
from parsers.model import transaction_ids
from parsers.validate import Validation
from reconcile.book import Book, Delivery
from reconcile.db import make_engine
from reconcile.records import Job

T0 = datetime(2026, 11, 1, tzinfo=UTC)
JOB = Job(job_id="j-1", batch_id="b-1", source_uri="file:///s.pdf", input_uri="mem://i",
          size=1, sha256="d" * 64, submitted_at=T0, expires_at=T0, chain_revision="c",
          ocr_engine="o", policy_revision="p", status=Status.PROCESSING)


def result(bank: str, index: int = 1) -> ParseResult:
    st = statement(bank, index=index, seed=1).truth
    return ParseResult(st, Validation(ok=True), bank, 1, 0)


def test_every_output_carries_the_same_ids() -> None:
    r = result("bluebird")
    files = output_files(r, JOB)
    ids = [i for a in r.statement.accounts for i in transaction_ids("bluebird", a)]
    assert ids
    doc = json.loads(files["statement.json"])
    assert [t["txn_id"] for a in doc["accounts"] for t in a["transactions"]] == ids
    csv = pd.read_csv(io.BytesIO(files["transactions.csv"]), dtype=str)
    assert csv.columns[0] == "txn_id" and csv["txn_id"].tolist() == ids
    assert pd.read_parquet(io.BytesIO(files["transactions.parquet"]))["txn_id"].tolist() == ids


def test_statement_json_has_a_schema_version_and_the_period() -> None:
    r = result("harbor")
    doc = json.loads(output_files(r, JOB)["statement.json"])
    assert doc["schema_version"] == SCHEMA_VERSION == 2
    assert doc["period"] == {"start": None, "end": r.statement.period_end.isoformat()}


def test_the_book_gives_a_transaction_the_id_its_output_has(tmp_path: Path) -> None:
    files = output_files(result("northwind"), JOB)
    doc = json.loads(files["statement.json"])
    book = Book(make_engine(f"sqlite:///{tmp_path}/book.db"))
    assert book.consume(Delivery("j-1", "d", "o", doc)) == "imported"
    written = [t["txn_id"] for a in doc["accounts"] for t in a["transactions"]]
    assert sorted(r.txn_id for r in book.records()) == sorted(written)


def test_the_same_statement_writes_the_same_bytes() -> None:
    assert output_files(result("alpenbank"), JOB) == output_files(result("alpenbank"), JOB)
