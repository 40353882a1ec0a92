"""Cheap checks that classify a bad file before any parser spends time on it.

pypdfium2 opens a document in about a millisecond and tells a password apart from a broken
structure, so every deterministic "this file is not a readable statement" reason is decided
here, once, with its own code. The checks come in the order a reader meets them: the bytes
(`check_bytes`), the open document (`open_document`), then each page as the reader loads it
(`check_page`), so that a page is loaded once for its checks and its text.
"""

from __future__ import annotations

import re
import zlib

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, EmptyFile, EncryptedPdf, NotPdf, TooLarge, TruncatedPdf
from parsers.limits import Limits
from parsers.pdfium import LOCK

_STREAM = re.compile(rb">>\s*stream(?:\r\n|\n|\r)")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
_FLATE_FIRST = re.compile(rb"/Filter\s*\[?\s*/Fl(?:ateDecode)?\b")
#: Largest piece of a stream inflated at once while checking it.
_CHUNK = 1 << 20


def preflight(data: bytes, limits: Limits) -> int:
    """Return the page count of a PDF that is worth reading; raise a `StatementError` otherwise."""
    check_bytes(data, limits)
    with LOCK:
        doc = open_document(data, limits)
        try:
            for index in range(len(doc)):
                page = doc[index]
                try:
                    check_page(page, index, limits)
                finally:
                    page.close()
            return len(doc)
        finally:
            doc.close()


def check_bytes(data: bytes, limits: Limits) -> None:
    """What the bytes alone tell: empty, too large, not a PDF, cut short."""
    if not data:
        raise EmptyFile("the file is empty (0 bytes)")
    if len(data) > limits.max_bytes:
        raise TooLarge(f"{len(data)} bytes is over the limit of {limits.max_bytes}")
    if b"%PDF-" not in data[:1024]:
        raise NotPdf("the file does not start with a PDF header")
    if b"%%EOF" not in data[-2048:]:
        raise TruncatedPdf("the file ends before the PDF end-of-file marker")


def open_document(data: bytes, limits: Limits) -> pdfium.PdfDocument:
    """The open document, refused when locked, broken or too long; the caller holds `LOCK`."""
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise EncryptedPdf("the PDF is password-protected") from exc
        raise CorruptPdf(f"the PDF structure cannot be read ({exc})") from exc
    pages = len(doc)
    if pages == 0 or pages > limits.max_pages:
        doc.close()
        if pages == 0:
            raise CorruptPdf("the PDF has no pages")
        raise TooLarge(f"{pages} pages is over the limit of {limits.max_pages}")
    return doc


def check_page(page: pdfium.PdfPage, index: int, limits: Limits) -> None:
    """Refuse decompression bombs: an image's declared size is known before it is decoded."""
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        width, height = obj.get_px_size()
        if width * height > limits.max_pixels:
            raise TooLarge(
                f"page {index + 1} holds a {width}x{height} image, over {limits.max_pixels} pixels"
            )


def damaged_streams(data: bytes, limits: Limits) -> int:
    """How many Flate streams do not inflate cleanly to their end (data lost in them).

    PDF libraries read what they can of a damaged stream and carry on (pdfminer warns of
    "data-loss", or silently keeps nothing; PDFium says nothing), so a statement read from
    such a file may miss rows or carry garbled text: it must not validate. Streams are
    inflated piecewise and never kept; one that inflates past four bytes per pixel of the
    largest image allowed is refused as a bomb before any library decodes it. Encrypted
    files are not checked here (their streams are ciphertext).
    """
    if b"/Encrypt" in data[-4096:] or b"/Encrypt" in data[:4096]:
        return 0
    damaged = 0
    for m in _STREAM.finditer(data):
        head = data[max(0, m.start() - 2048): m.start()]
        head = head[head.rfind(b"obj"):]
        if not _FLATE_FIRST.search(head):
            continue
        damaged += not _inflates(_stream_body(data, m.end(), head), 4 * limits.max_pixels)
    return damaged


def _stream_body(data: bytes, start: int, head: bytes) -> bytes:
    length = _LENGTH.search(head)
    if length is not None:
        end = start + int(length.group(1))
        if data[end: end + 30].lstrip(b"\r\n ").startswith(b"endstream"):
            return data[start:end]
    end = data.find(b"endstream", start)
    return data[start: end if end >= 0 else len(data)].rstrip(b"\r\n")


def _inflates(body: bytes, most: int) -> bool:
    inflate = zlib.decompressobj()
    total = 0
    try:
        while True:
            out = inflate.decompress(body, _CHUNK)
            total += len(out)
            if total > most:
                raise TooLarge(f"a compressed stream inflates past {most} bytes")
            body = inflate.unconsumed_tail
            if inflate.eof or (not body and len(out) < _CHUNK):
                return inflate.eof
    except zlib.error:
        return False
