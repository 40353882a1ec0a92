"""What every use of PDFium shares: one lock, and direct calls for hot loops.

PDFium is not thread-safe, and in-process parsing (no worker pool) runs files on threads:
every use of pypdfium2 in stmtflow (opening, reading text, rendering pages for OCR) holds
`LOCK`; the calls are short (milliseconds), and tesseract and pdfplumber run outside it.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

LOCK = threading.RLock()


def direct(binding: Any, restype: Any = ctypes.c_int) -> Any:
    """The C function behind a pypdfium2 raw binding, called without argument conversion.

    pypdfium2's bindings check and convert every argument (about a microsecond a call);
    a reader that makes a few calls per word calls the same function through a prototype
    without argument types instead, passing pointers it built once (`c_void_p`, `byref`)
    and plain ints for C `int` parameters.
    """
    return ctypes.CFUNCTYPE(restype)(ctypes.cast(binding, ctypes.c_void_p).value)
