"""The codes: every status, error class, reason code, attempt outcome and review state, once.

The database, the JSON the CLI prints and Prefect events carry these exact strings, so each
enum is a `StrEnum` whose values are the strings already stored: no data migration, and a
member compares equal to its string. Nothing else spells a status or a reason code; the
error taxonomy (`flows/taxonomy.py`) maps exceptions onto these members, and a test fails on
a string literal of one of them anywhere else in the tree (migrations aside: each spells
the values stored at its revision).

Why here, in `parsers/`: the parser raises statement reason codes (`parsers/errors.py`) and
may import nothing outside `parsers/`, while `reconcile/` may import only `parsers`' leaf
modules (`parsers.model` and this one). The innermost room is the only place both can reach
without breaking a door, so the one vocabulary lives in it. It is a leaf: it imports nothing
but the standard library and holds no behaviour beyond naming. Records built from ledger
rows (`Job`, `Batch`, `Attempt`, `Review`) sit at the ledger's edge, in `reconcile/records.py`
and `reconcile/review.py`.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """A job's state; `reconcile/ledger.py` draws the lifecycle and owns every transition."""

    QUEUED = "QUEUED"
    PROCESSING = "PROCESSING"
    RETRYING = "RETRYING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    EXPIRED = "EXPIRED"
    #: the same bytes under the same pinned identities are another job's: never parsed again
    DUPLICATE = "DUPLICATE"

    @property
    def terminal(self) -> bool:
        """Terminal records never change."""
        return self in TERMINAL


TERMINAL = frozenset({Status.SUCCEEDED, Status.FAILED, Status.EXPIRED, Status.DUPLICATE})


class BatchState(StrEnum):
    """A batch's state in the ledger, derived from its task runs and checked against its jobs."""

    PROCESSING = "PROCESSING"
    COMPLETED = "COMPLETED"
    COMPLETED_WITH_WARNINGS = "COMPLETED_WITH_WARNINGS"
    #: the run ended while a job had no terminal record
    INCOMPLETE = "INCOMPLETE"
    #: the task run states and the ledger disagree
    INVALID = "INVALID"
    #: the batch's source could not be accepted for a reason another run would meet too (a
    #: missing inbox), recorded with that reason; also what `stmtflow import --json`
    #: reports for a run that could not complete (the ledger holding INCOMPLETE or INVALID)
    FAILED = "FAILED"
    #: an operator gave the batch up (`stmtflow batch abandon`, with a note): its unfinished
    #: jobs ended FAILED `abandoned`
    ABANDONED = "ABANDONED"


class ErrorClass(StrEnum):
    """Transient failures are retried (at most three attempts); deterministic ones never."""

    TRANSIENT = "transient"
    DETERMINISTIC = "deterministic"


class Outcome(StrEnum):
    """How one attempt ended, as its attempt row records it."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    RETRY = "retry"
    #: its worker stopped answering and the lease ran out (`reclaim`)
    CRASHED = "crashed"


class Reason(StrEnum):
    """Why a job or an attempt did not succeed."""

    # -- the file: raised by the parser (parsers/errors.py), a property of the bytes --------
    EMPTY = "empty"
    NOT_PDF = "not_pdf"
    CORRUPT = "corrupt"
    #: a bank export of a format, version or message stmtflow does not read (QIF, pain.001,
    #: an OFX without a bank or card statement, a CSV no template or guess can read)
    UNSUPPORTED_FORMAT = "unsupported_format"
    #: an XML export refused unread: a DTD, an entity declaration or an external reference
    #: (billion laughs, XXE), or a tree over the parser's limits
    XML_REJECTED = "xml_rejected"
    TRUNCATED = "truncated"
    ENCRYPTED = "encrypted"
    TOO_LARGE = "too_large"
    TOO_SLOW = "too_slow"
    TOO_SMALL = "too_small"
    EMPTY_STATEMENT = "empty_statement"
    UNRECOGNISED_LAYOUT = "unrecognised_layout"
    #: no template describes the file and two readings of its table reconcile differently
    AMBIGUOUS_LAYOUT = "ambiguous_layout"
    #: the layout was recognised, but a figure it needs was not read
    UNREADABLE = "unreadable"
    BANK_MISMATCH = "bank_mismatch"
    #: a template captured something that is not what its key reads (the line is named)
    TEMPLATE_ERROR = "template_error"
    #: the job names a bank no template in force describes
    UNKNOWN_BANK = "unknown_bank"
    OCR_TIMEOUT = "ocr_timeout"
    #: tesseract stopped while reading a page (its exit status and error are in the message)
    OCR_FAILED = "ocr_failed"
    #: a page needs OCR and no tesseract is installed where it was read: not the file's
    #: fault, and no retry cures it; once it is installed, `stmtflow rerun` reads the file
    OCR_UNAVAILABLE = "ocr_unavailable"
    #: the parse process died twice on the same bytes (a PDF library crashed on them)
    PARSER_CRASH = "parser_crash"
    # -- acceptance: the source file, before a byte of it is stored -----------------------
    #: the source could not be read (a dangling symlink, no permission, a link loop)
    UNREADABLE_SOURCE = "unreadable_source"
    #: a symlink that leads out of the source folder (followed only when allowed)
    OUTSIDE_SOURCE = "outside_source"
    #: the batch's source itself (an inbox folder, a glob's folder, a prefix) does not exist
    SOURCE_MISSING = "source_missing"
    # -- the job: raised by the worker around the parser --------------------------------------
    CHAIN_MISMATCH = "chain_mismatch"
    INPUT_MISSING = "input_missing"
    #: the stored input's bytes no longer have the digest the job pinned
    INPUT_CORRUPT = "input_corrupt"
    #: an output object read back does not have the digest it was written with
    OUTPUT_UNVERIFIED = "output_unverified"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    DATABASE_UNAVAILABLE = "database_unavailable"
    STORAGE_UNAVAILABLE = "storage_unavailable"
    IO_ERROR = "io_error"
    #: this worker's lease was taken over; it commits nothing (never a job's reason)
    LEASE_LOST = "lease_lost"
    #: another worker holds the job (never a job's reason)
    CLAIMED_ELSEWHERE = "claimed_elsewhere"
    #: an exception the taxonomy does not know: a bug to classify
    UNCLASSIFIED = "unclassified"
    # -- the ledger: written by its own transitions ---------------------------------------------
    EXPIRED = "expired"
    LEASE_EXPIRED = "lease_expired"
    RETRIES_EXHAUSTED = "retries_exhausted"
    #: an operator abandoned the job's batch before the job ran to its end
    ABANDONED = "abandoned"
    #: the job's batch ended FAILED before the job ran: its source could not be accepted
    BATCH_FAILED = "batch_failed"


class ReviewState(StrEnum):
    """A review's state; `reconcile/review.py` owns its one transition (`settle`)."""

    OPEN = "open"
    ACCEPTED = "accepted"
    CORRECTED = "corrected"
    REJECTED = "rejected"


#: the review states whose statement is in the book
VERIFIED = (ReviewState.ACCEPTED, ReviewState.CORRECTED)


class ReviewAction(StrEnum):
    """What an event of a review's audit trail records."""

    OPENED = "opened"
    ACCEPTED = "accepted"
    CORRECTED = "corrected"
    REJECTED = "rejected"
    #: a decision that was not applied (a correction that does not reconcile, say)
    REFUSED = "refused"
