"""The one error taxonomy: every exception maps to (class, reason code), here and only here.

Retries, the ledger, batch state, status output and accounting all ask `classify`. An
exception this module does not know is deterministic `unclassified`: it is not retried
blindly, and it stands out in every report as a bug to classify.
"""

from __future__ import annotations

import socket
import sqlite3
from dataclasses import dataclass

from sqlalchemy.exc import DBAPIError, OperationalError

from parsers.errors import StatementError
from reconcile.storage import IntegrityError

TRANSIENT, DETERMINISTIC = "transient", "deterministic"


@dataclass(frozen=True)
class Classified:
    error_class: str
    reason: str

    @property
    def transient(self) -> bool:
        return self.error_class == TRANSIENT


class TransientError(Exception):
    """Raised by stmtflow itself for a condition that another attempt may cure."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class JobExcluded(Exception):
    """The job already ended without a result (failed or expired); a rerun task reports it."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(f"{status}: {reason}")
        self.reason = reason


class LeaseLost(Exception):
    """Another worker took this job over after the lease ran out; this one commits nothing."""


class ChainMismatch(Exception):
    """The worker's pinned identities differ from the job's: it must refuse the job."""


def classify(exc: BaseException) -> Classified:
    if isinstance(exc, StatementError):
        return Classified(TRANSIENT if exc.transient else DETERMINISTIC, exc.reason)
    if isinstance(exc, TransientError):
        return Classified(TRANSIENT, exc.reason)
    if isinstance(exc, JobExcluded):
        return Classified(DETERMINISTIC, exc.reason)
    if isinstance(exc, LeaseLost):
        return Classified(DETERMINISTIC, "lease_lost")
    if isinstance(exc, ChainMismatch):
        return Classified(DETERMINISTIC, "chain_mismatch")
    if isinstance(exc, IntegrityError):
        return Classified(TRANSIENT, "output_unverified")
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return Classified(TRANSIENT, "timeout")
    if isinstance(exc, (ConnectionError, BrokenPipeError)):
        return Classified(TRANSIENT, "connection")
    if isinstance(exc, (OperationalError, sqlite3.OperationalError)) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        return Classified(TRANSIENT, "database_unavailable")
    if _is_s3_retryable(exc):
        return Classified(TRANSIENT, "storage_unavailable")
    if isinstance(exc, FileNotFoundError):
        return Classified(DETERMINISTIC, "input_missing")
    if isinstance(exc, OSError):
        return Classified(TRANSIENT, "io_error")
    return Classified(DETERMINISTIC, "unclassified")


def _is_s3_retryable(exc: BaseException) -> bool:
    """S3 5xx and SlowDown, as botocore reports them (s3fs passes most through as OSError)."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        code = response.get("Error", {}).get("Code", "")
        return status >= 500 or code in {"SlowDown", "RequestTimeout", "InternalError"}
    return False
