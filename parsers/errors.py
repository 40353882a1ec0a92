"""Errors a statement can raise while being read, each with its reason code.

`transient` marks the few parser errors that another attempt may cure (an OCR page that
ran out of time, a tesseract killed while reading); every other reason is a property of
the file and never retried. Every code is a member of the one vocabulary
(`parsers/codes.py`).
"""

from __future__ import annotations

from typing import Any

from parsers.codes import Reason


class StatementError(Exception):
    reason: Reason = Reason.UNREADABLE
    transient: bool = False

    def __init__(self, message: str, reason: Reason | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason
        #: What the reader found and what it missed (a refused layout), for `--explain`
        #: and the refusal's JSON.
        self.details = details or {}

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.reason

    def __reduce__(self) -> tuple:
        """Keep the reason and details when pickled (a parse process sends its errors to
        the caller)."""
        return type(self), (self.message, self.reason, self.details)


class EmptyFile(StatementError):
    reason = Reason.EMPTY


class NotPdf(StatementError):
    reason = Reason.NOT_PDF


class CorruptPdf(StatementError):
    reason = Reason.CORRUPT


class CorruptExport(StatementError):
    """A bank export whose format was recognised but whose content breaks it (an OFX its
    reader cannot parse, a CAMT entry without an amount)."""

    reason = Reason.CORRUPT


class UnsupportedFormat(StatementError):
    """A bank file of a format stmtflow does not read: refused by name, not guessed at."""

    reason = Reason.UNSUPPORTED_FORMAT


class XmlRejected(StatementError):
    """An XML export refused before any entity is expanded or any reference fetched."""

    reason = Reason.XML_REJECTED


class TruncatedPdf(StatementError):
    reason = Reason.TRUNCATED


class EncryptedPdf(StatementError):
    reason = Reason.ENCRYPTED


class TooLarge(StatementError):
    reason = Reason.TOO_LARGE


class UnrecognisedLayout(StatementError):
    reason = Reason.UNRECOGNISED_LAYOUT


class AmbiguousLayout(StatementError):
    """Two readings of an unknown layout reconcile but disagree: refused, never guessed."""

    reason = Reason.AMBIGUOUS_LAYOUT


class UnreadableStatement(StatementError):
    """The layout was recognised, but a figure it needs (a balance, the period) was not read."""

    reason = Reason.UNREADABLE


class TemplateFault(StatementError):
    """The template read something that is not what its key says (a regex capturing a figure
    that is not an amount): a fault of the template, named with the line it read."""

    reason = Reason.TEMPLATE_ERROR


class BankMismatch(StatementError):
    reason = Reason.BANK_MISMATCH


class UnknownBank(StatementError):
    """The caller named a bank that no template in force describes."""

    reason = Reason.UNKNOWN_BANK


class EmptyStatement(StatementError):
    """A readable PDF with no statement text at all (blank pages, an unreadable scan)."""

    reason = Reason.EMPTY_STATEMENT


class OcrTimeout(StatementError):
    reason = Reason.OCR_TIMEOUT
    transient = True


class OcrFailed(StatementError):
    """Tesseract exited with an error while reading a page: the page makes it fail, again."""

    reason = Reason.OCR_FAILED


class OcrKilled(OcrFailed):
    """Tesseract was killed while reading a page (the OOM killer, an operator): a cause
    outside the file, which another attempt may not meet."""

    transient = True


class OcrUnavailable(StatementError):
    """No tesseract to run: the machine lacks the OCR engine, the file is not at fault."""

    reason = Reason.OCR_UNAVAILABLE


class ParseTimeout(StatementError):
    """The per-file budget ran out: the file is too slow to read, not unlucky."""

    reason = Reason.TOO_SLOW


class UnreadableScan(StatementError):
    """An image-only page with too few pixels for any text to be read."""

    reason = Reason.TOO_SMALL


class ParserCrashed(StatementError):
    """The parse process died twice on the same bytes (a PDF library crashed on them)."""

    reason = Reason.PARSER_CRASH
