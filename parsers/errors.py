"""Errors a statement can raise while being read, each with its reason code.

`transient` marks the few parser errors that another attempt may cure (an OCR page that
ran out of time); every other reason is a property of the file and never retried.
"""

from __future__ import annotations


class StatementError(Exception):
    reason: str = "unreadable"
    transient: bool = False

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.reason

    def __reduce__(self) -> tuple:
        """Keep the reason when pickled (a parse process sends its errors to the caller)."""
        return type(self), (self.message, self.reason)


class EmptyFile(StatementError):
    reason = "empty"


class NotPdf(StatementError):
    reason = "not_pdf"


class CorruptPdf(StatementError):
    reason = "corrupt"


class TruncatedPdf(StatementError):
    reason = "truncated"


class EncryptedPdf(StatementError):
    reason = "encrypted"


class TooLarge(StatementError):
    reason = "too_large"


class UnrecognisedLayout(StatementError):
    reason = "unrecognised_layout"


class UnreadableStatement(StatementError):
    """The layout was recognised, but a figure it needs (a balance, the period) was not read."""

    reason = "unreadable"


class BankMismatch(StatementError):
    reason = "bank_mismatch"


class EmptyStatement(StatementError):
    """A readable PDF with no statement text at all (blank pages, an unreadable scan)."""

    reason = "empty_statement"


class OcrTimeout(StatementError):
    reason = "ocr_timeout"
    transient = True


class ParseTimeout(StatementError):
    """The per-file budget ran out: the file is too slow to read, not unlucky."""

    reason = "too_slow"


class UnreadableScan(StatementError):
    """An image-only page with too few pixels for any text to be read."""

    reason = "too_small"


class ParserCrashed(StatementError):
    """The parse process died twice on the same bytes (a PDF library crashed on them)."""

    reason = "parser_crash"
