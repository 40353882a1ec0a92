"""One taxonomy: real failures of real components land in the right class."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from flows.taxonomy import ChainMismatch, JobExcluded, LeaseLost, TransientError, classify
from parsers.errors import CorruptPdf, OcrTimeout
from reconcile.storage import IntegrityError


def test_database_is_locked_is_transient(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05})
    with pytest.raises(OperationalError) as info, engine.begin() as c:
        c.execute(text("INSERT INTO t VALUES (1)"))
    assert "locked" in str(info.value)
    assert classify(info.value).transient
    holder.rollback()


def test_unreachable_postgresql_is_transient() -> None:
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none",
                           connect_args={"connect_timeout": 2})
    with pytest.raises(OperationalError) as info:
        engine.connect()
    assert classify(info.value).transient


def test_s3_server_errors_are_transient_and_client_errors_are_not() -> None:
    from botocore.exceptions import ClientError

    def error(status: int, code: str) -> ClientError:
        return ClientError({"Error": {"Code": code},
                            "ResponseMetadata": {"HTTPStatusCode": status}}, "PutObject")

    assert classify(error(503, "SlowDown")).transient
    assert classify(error(500, "InternalError")).transient
    assert classify(error(403, "AccessDenied")).reason == "unclassified"


@pytest.mark.parametrize(("exc", "error_class", "reason"), [
    (CorruptPdf("x"), "deterministic", "corrupt"),
    (OcrTimeout("x"), "transient", "ocr_timeout"),
    (TimeoutError("read"), "transient", "timeout"),
    (ConnectionResetError("reset"), "transient", "connection"),
    (IntegrityError("digest"), "transient", "output_unverified"),
    (ChainMismatch("x"), "deterministic", "chain_mismatch"),
    (LeaseLost("x"), "deterministic", "lease_lost"),
    (JobExcluded("FAILED", "encrypted"), "deterministic", "encrypted"),
    (TransientError("claimed_elsewhere", "x"), "transient", "claimed_elsewhere"),
    (FileNotFoundError("gone"), "deterministic", "input_missing"),
    (KeyError("surprise"), "deterministic", "unclassified"),
])
def test_every_error_has_one_class_and_reason(exc: BaseException, error_class: str,
                                              reason: str) -> None:
    c = classify(exc)
    assert (c.error_class, c.reason) == (error_class, reason)
