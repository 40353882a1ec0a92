"""One lock for PDFium: it is not thread-safe, and the import flow parses files on threads.

Every use of pypdfium2 in stmtflow (preflight, rendering pages for OCR) holds `LOCK`; the
calls are short (milliseconds), and tesseract and pdfplumber run outside it.
"""

from __future__ import annotations

import threading

LOCK = threading.RLock()
