"""A job's output objects, as `parsers.worker.statement_files` renders them for the job's
input and pins.

The rendering itself lives beside the parser (Prefect-free), so that a parse worker renders
and hashes an import's objects where it parsed them; this is the job-shaped face of it, for
the review's corrected versions, the tests and the benchmarks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from parsers.worker.statement_files import COLUMNS, SCHEMA_VERSION, document_files
from parsers.worker.statement_files import output_files as _output_files
from parsers.worker.statement_files import statement_document as _statement_document
from reconcile.records import Job

if TYPE_CHECKING:
    from parsers.api import ParseResult

__all__ = ["COLUMNS", "SCHEMA_VERSION", "document_files", "output_files", "statement_document"]


def statement_document(result: ParseResult, job: Job) -> dict[str, Any]:
    return _statement_document(result, job.sha256, job.pinned())


def output_files(result: ParseResult, job: Job) -> dict[str, bytes]:
    """A parse's objects (its document already carries the transaction ids)."""
    return _output_files(result, job.sha256, job.pinned())
