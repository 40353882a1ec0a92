"""The one error taxonomy: every exception maps to (class, reason code), here and only here.

Retries, the ledger, batch state, status output and accounting all ask `classify`; its
answers are members of the vocabulary (`parsers/codes.py`). How long a transient failure
waits before its next attempt is here too (`backoff`). An exception this module
does not know is deterministic `unclassified`: it is not retried blindly, and it stands out
in every report as a bug to classify.
"""

from __future__ import annotations

import errno
import socket
import sqlite3
from dataclasses import dataclass

from botocore.exceptions import ConnectionError as BotoConnectionError
from botocore.exceptions import HTTPClientError
from sqlalchemy.exc import DBAPIError, OperationalError

from parsers.codes import ErrorClass, Reason, Status
from parsers.errors import StatementError
from reconcile.storage import InputCorrupt, OutputUnverified

#: Each retry of a transient failure waits this many times longer than the one before...
BACKOFF_GROWTH = 4.0
#: ...and never longer than this (before jitter).
BACKOFF_CAP_SECONDS = 120.0
#: Prefect draws each delay at random between about 0.63 and 1 + this times its value
#: (`retry_jitter_factor`), so that tasks that failed together do not retry together.
BACKOFF_JITTER = 0.5


def backoff(first: float, retries: int) -> list[float]:
    """The delays before each retry: exponential from `first`, capped. With the default
    20 s the two retries wait about 20 s and 80 s, and even the shortest jitter draws
    (about 0.63 of each) add up to over 60 s: an outage of the database or of storage of a
    minute is outlasted within the three attempts."""
    return [min(BACKOFF_CAP_SECONDS, first * BACKOFF_GROWTH**k) for k in range(retries)]


@dataclass(frozen=True)
class Classified:
    error_class: ErrorClass
    reason: Reason

    @property
    def transient(self) -> bool:
        return self.error_class == ErrorClass.TRANSIENT


class TransientError(Exception):
    """Raised by stmtflow itself for a condition that another attempt may cure."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class JobExcluded(Exception):
    """The job already ended without a result (failed or expired); a rerun task reports it."""

    def __init__(self, status: Status, reason: Reason | None) -> None:
        super().__init__(f"{status}: {reason}")
        self.reason = reason or Reason.UNCLASSIFIED


class LeaseLost(Exception):
    """Another worker took this job over after the lease ran out; this one commits nothing."""


class ChainMismatch(Exception):
    """The worker's pinned identities differ from the job's: it must refuse the job."""


def classify(exc: BaseException) -> Classified:
    transient, deterministic = ErrorClass.TRANSIENT, ErrorClass.DETERMINISTIC
    if isinstance(exc, StatementError):
        return Classified(transient if exc.transient else deterministic, exc.reason)
    if isinstance(exc, TransientError):
        return Classified(transient, exc.reason)
    if isinstance(exc, JobExcluded):
        return Classified(deterministic, exc.reason)
    if isinstance(exc, LeaseLost):
        return Classified(deterministic, Reason.LEASE_LOST)
    if isinstance(exc, ChainMismatch):
        return Classified(deterministic, Reason.CHAIN_MISMATCH)
    if isinstance(exc, InputCorrupt):
        return Classified(deterministic, Reason.INPUT_CORRUPT)
    if isinstance(exc, OutputUnverified):
        return Classified(transient, Reason.OUTPUT_UNVERIFIED)
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return Classified(transient, Reason.TIMEOUT)
    if isinstance(exc, (ConnectionError, BrokenPipeError)):
        return Classified(transient, Reason.CONNECTION)
    if isinstance(exc, (OperationalError, sqlite3.OperationalError)) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        return Classified(transient, Reason.DATABASE_UNAVAILABLE)
    if _is_s3_retryable(exc) or isinstance(exc, (BotoConnectionError, HTTPClientError)):
        return Classified(transient, Reason.STORAGE_UNAVAILABLE)
    if isinstance(exc, FileNotFoundError):
        return Classified(deterministic, Reason.INPUT_MISSING)
    if isinstance(exc, OSError):
        return Classified(transient, Reason.IO_ERROR)
    return Classified(deterministic, Reason.UNCLASSIFIED)


def classify_source(exc: BaseException) -> Classified:
    """A source file that could not be read at acceptance: `unreadable_source` when the file
    itself is the cause (missing, a dangling link, no permission, a link loop), otherwise
    what `classify` says (a transient cause fails acceptance; a resume lists it again)."""
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError,
                        NotADirectoryError)) or (
            isinstance(exc, OSError) and exc.errno == errno.ELOOP):
        return Classified(ErrorClass.DETERMINISTIC, Reason.UNREADABLE_SOURCE)
    return classify(exc)


def classify_acceptance(exc: BaseException) -> Classified:
    """A batch's source that could not be listed or accepted: `source_missing` when the
    folder, glob or prefix itself is not there, `unreadable_source` without permission to
    it, otherwise what `classify` says (transient: a resume lists it again)."""
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return Classified(ErrorClass.DETERMINISTIC, Reason.SOURCE_MISSING)
    if isinstance(exc, PermissionError):
        return Classified(ErrorClass.DETERMINISTIC, Reason.UNREADABLE_SOURCE)
    return classify(exc)


def _is_s3_retryable(exc: BaseException) -> bool:
    """S3 5xx and SlowDown, as botocore reports them (s3fs passes most through as OSError)."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        code = response.get("Error", {}).get("Code", "")
        return status >= 500 or code in {"SlowDown", "RequestTimeout", "InternalError"}
    return False
