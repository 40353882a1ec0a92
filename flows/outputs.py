"""A job's output objects, as `parsers.outputs` renders them for the job's input and pins.

The rendering itself lives beside the parser (Prefect-free), so that a parse worker renders
and hashes an import's objects where it parsed them; this is the job-shaped face of it, for
the review's corrected versions, the tests and the benchmarks.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from parsers.api import ParseResult
from parsers.outputs import COLUMNS, SCHEMA_VERSION, document_files
from parsers.outputs import output_files as _output_files
from parsers.outputs import statement_document as _statement_document
from reconcile.records import Job

__all__ = ["COLUMNS", "SCHEMA_VERSION", "document_files", "output_files", "pinned",
           "statement_document"]


def pinned(job: Job) -> dict[str, str]:
    """The identities `job` pins, as its document names them."""
    return dataclasses.asdict(job.identities)


def statement_document(result: ParseResult, job: Job) -> dict[str, Any]:
    return _statement_document(result, job.sha256, pinned(job))


def output_files(result: ParseResult, job: Job) -> dict[str, bytes]:
    """A parse's objects (its document already carries the transaction ids)."""
    return _output_files(result, job.sha256, pinned(job))
