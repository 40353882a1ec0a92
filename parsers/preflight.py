"""Cheap checks that classify a bad file before any parser spends time on it.

pypdfium2 opens a document in about a millisecond and tells a password apart from a broken
structure, so every deterministic "this file is not a readable statement" reason is decided
here, once, with its own code.
"""

from __future__ import annotations

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, EmptyFile, EncryptedPdf, NotPdf, TooLarge, TruncatedPdf
from parsers.limits import Limits
from parsers.pdfium import LOCK


def preflight(data: bytes, limits: Limits) -> int:
    """Return the page count of a PDF that is worth reading; raise a `StatementError` otherwise."""
    if not data:
        raise EmptyFile("the file is empty (0 bytes)")
    if len(data) > limits.max_bytes:
        raise TooLarge(f"{len(data)} bytes is over the limit of {limits.max_bytes}")
    if b"%PDF-" not in data[:1024]:
        raise NotPdf("the file does not start with a PDF header")
    if b"%%EOF" not in data[-2048:]:
        raise TruncatedPdf("the file ends before the PDF end-of-file marker")
    with LOCK:
        return _open_and_check(data, limits)


def _open_and_check(data: bytes, limits: Limits) -> int:
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise EncryptedPdf("the PDF is password-protected") from exc
        raise CorruptPdf(f"the PDF structure cannot be read ({exc})") from exc
    try:
        pages = len(doc)
        if pages == 0:
            raise CorruptPdf("the PDF has no pages")
        if pages > limits.max_pages:
            raise TooLarge(f"{pages} pages is over the limit of {limits.max_pages}")
        for index in range(pages):
            _check_images(doc[index], index, limits)
        return pages
    finally:
        doc.close()


def _check_images(page: pdfium.PdfPage, index: int, limits: Limits) -> None:
    """Refuse decompression bombs: an image's declared size is known before it is decoded."""
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        width, height = obj.get_px_size()
        if width * height > limits.max_pixels:
            raise TooLarge(
                f"page {index + 1} holds a {width}x{height} image, over {limits.max_pixels} pixels"
            )
