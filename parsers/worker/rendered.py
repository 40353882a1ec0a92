"""What crosses back from a parse worker: a parse's output objects and what the ledger
records of its statement.

Light on purpose, like `identity.py`: the process that hands an import's files to parse
workers imports this to read their results (`task.py` names their work).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rendered:
    """A parse's output objects with their sha256 digests, and what the ledger records of
    the statement: all that crosses back from a parse worker (the bytes, not the parse)."""

    files: dict[str, bytes]
    digests: dict[str, str]
    needs_review: bool
    bank: str
    account_last4: tuple[str, ...]
    transactions: int
