"""One taxonomy: real failures of real components land in the right class."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from corpus import generate
from flows.taxonomy import ChainMismatch, JobExcluded, LeaseLost, TransientError, classify
from parsers.api import parse_pdf
from parsers.codes import Reason, Status
from parsers.errors import (
    CorruptPdf,
    OcrFailed,
    OcrKilled,
    OcrTimeout,
    OcrUnavailable,
    TemplateFault,
    UnknownBank,
)
from parsers.layout.template import Field, load_templates
from reconcile.storage import InputCorrupt, OutputUnverified


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
    assert classify(error(403, "AccessDenied")).reason == Reason.UNCLASSIFIED


@pytest.mark.parametrize(("exc", "error_class", "reason"), [
    (CorruptPdf("x"), "deterministic", "corrupt"),
    (OcrTimeout("x"), "transient", "ocr_timeout"),
    (OcrKilled("x"), "transient", "ocr_failed"),
    (OcrFailed("x"), "deterministic", "ocr_failed"),
    (OcrUnavailable("x"), "deterministic", "ocr_unavailable"),
    (TimeoutError("read"), "transient", "timeout"),
    (ConnectionResetError("reset"), "transient", "connection"),
    (OutputUnverified("digest"), "transient", "output_unverified"),
    (InputCorrupt("digest"), "deterministic", "input_corrupt"),
    (UnknownBank("cedar"), "deterministic", "unknown_bank"),
    (ChainMismatch("x"), "deterministic", "chain_mismatch"),
    (LeaseLost("x"), "deterministic", "lease_lost"),
    (JobExcluded(Status.FAILED, Reason.ENCRYPTED), "deterministic", "encrypted"),
    (TransientError(Reason.CLAIMED_ELSEWHERE, "x"), "transient", "claimed_elsewhere"),
    (FileNotFoundError("gone"), "deterministic", "input_missing"),
    (KeyError("surprise"), "deterministic", "unclassified"),
])
def test_every_error_has_one_class_and_reason(exc: BaseException, error_class: str,
                                              reason: str) -> None:
    c = classify(exc)
    assert (c.error_class, c.reason) == (error_class, reason)


def test_a_bank_no_template_describes_is_deterministic_unknown_bank(tmp_path: Path) -> None:
    sample = generate(tmp_path, ("northwind",), 1, seed=3)[0]
    with pytest.raises(UnknownBank) as info:
        parse_pdf(sample.pdf.read_bytes(), bank="cedar")
    c = classify(info.value)
    assert (c.error_class, c.reason) == ("deterministic", "unknown_bank")


def test_a_template_capture_that_is_not_an_amount_is_a_template_error(tmp_path: Path) -> None:
    """The template's author made a mistake: say so (file, field, what was captured),
    deterministically, instead of guessing another layout or calling it our bug."""
    sample = generate(tmp_path, ("northwind",), 1, seed=3)[0]
    northwind = next(t for t in load_templates() if t.bank == "northwind")
    broken = dataclasses.replace(northwind,
                                 opening=Field(pattern=r"^(?P<opening>Beginning) Balance"))
    with pytest.raises(TemplateFault) as info:
        parse_pdf(sample.pdf.read_bytes(), bank="northwind", templates=[broken])
    assert "opening captured 'Beginning'" in str(info.value)
    failure = classify(info.value)
    assert (failure.transient, failure.reason) == (False, Reason.TEMPLATE_ERROR)
