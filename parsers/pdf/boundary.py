"""The reader boundary: what a PDF library raises on bad bytes becomes a reason code.

pdfminer, pdfplumber and pypdfium2 raise dozens of types on a damaged file: their own
(`PdfminerException`, `PSException`, `PDFSyntaxError`, `PdfiumError`,
`MalformedPDFException`) and plain ones from deep inside (`TypeError`, `ValueError`,
`KeyError`, `AssertionError`, `struct.error`, `zlib.error`, and `RecursionError` on objects
that nest or refer to themselves). Each means the same thing to a statement importer: the
file's structure cannot be read (`corrupt`; `encrypted` where the library says password;
`too_large` where Pillow refuses an image over its pixel limit, `DecompressionBombError`).

Only an error raised in a library's own code is the file's fault. Where it was raised is
read from its traceback: the innermost frame outside the standard library (a library's
`struct.unpack` or `re` call raises from a C function or a standard module) must belong to
a PDF library. The same types raised in stmtflow's own code, a callback a library calls
included, are bugs: they pass through unchanged and stay `unclassified`.

A library that reads on past damage says so only in its log (pdfminer's "Data-loss while
decompressing corrupted data"); `data_loss` collects those warnings for the statement's
problems, so that such a statement is never validated.
"""

from __future__ import annotations

import logging
import sys
import sysconfig
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from PIL import Image

from parsers.errors import CorruptPdf, EncryptedPdf, StatementError, TooLarge

#: Top-level packages whose errors are the file's fault.
LIBRARIES = frozenset({"pdfminer", "pdfplumber", "pypdfium2", "pypdfium2_raw", "PIL"})
#: Messages that name a password (pdfminer's `PDFPasswordIncorrect`, PDFium's error code).
_PASSWORD = ("password", "PDFPasswordIncorrect", "PDFEncryptionError")
_STDLIB = str(Path(sysconfig.get_paths()["stdlib"]).resolve())


@contextmanager
def library_errors(library: str) -> Iterator[None]:
    """Turn an error a PDF library raised on the file's bytes into `CorruptPdf` (or
    `EncryptedPdf`), named after `library`; anything else passes through."""
    try:
        yield
    except (StatementError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:
        if not raised_in_library(exc):
            raise
        name = type(exc).__name__
        if isinstance(exc, Image.DecompressionBombError):
            raise TooLarge(f"{library}: {_short(exc)}"[:300]) from exc
        text = f"{library} cannot read the PDF ({name}: {_short(exc)})"[:300]
        if any(p in name or p in str(exc) for p in _PASSWORD):
            raise EncryptedPdf(text) from exc
        raise CorruptPdf(text) from exc


def raised_in_library(exc: BaseException) -> bool:
    """Whether the innermost frame of `exc` outside the standard library is a PDF
    library's."""
    frames = []
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        module = str(frame.f_globals.get("__name__", ""))
        if _standard(frame.f_code.co_filename, module):
            continue
        return module.split(".")[0] in LIBRARIES
    return False


def _standard(filename: str, module: str) -> bool:
    if module.split(".")[0] in sys.stdlib_module_names:
        return True
    path = str(Path(filename).resolve()) if filename and not filename.startswith("<") else ""
    return bool(path) and path.startswith(_STDLIB) and "-packages" not in path


def _short(exc: BaseException) -> str:
    """A RecursionError's message is fine; a library's may hold a whole object."""
    return " ".join(str(exc).split())[:160]


#: Loggers of the libraries that warn of data they could not read.
WARNING_LOGGERS = ("pdfminer",)
_LOSS = ("data-loss", "data loss", "corrupted")


class _Collector(logging.Handler):
    """Warnings of data loss logged by this thread (parses may run on several threads)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.thread == self.thread and any(w in message.lower() for w in _LOSS):
            self.found.append(f"{record.name}: {message}"[:200])


@contextmanager
def data_loss() -> Iterator[list[str]]:
    """The library warnings of data loss logged while the block runs, in a list that
    fills as they come."""
    collector = _Collector()
    loggers = [logging.getLogger(name) for name in WARNING_LOGGERS]
    for logger in loggers:
        logger.addHandler(collector)
    try:
        yield collector.found
    finally:
        for logger in loggers:
            logger.removeHandler(collector)
