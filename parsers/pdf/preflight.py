"""Cheap checks that classify a bad file before any parser spends time on it.

Three steps, in the order a file meets them: the bytes alone (`check_bytes`); the file's
streams, read from the raw bytes without any PDF library (`inspect_streams`: images over the
pixel limit wherever they sit, streams that inflate like bombs, streams damaged so that data
is lost); then the document PDFium opens for the reader (`open_document`: a password, a
broken structure, too many pages). pypdfium2 opens a document in about a millisecond and
tells a password apart from a broken structure, so every deterministic "this file is not a
readable statement" reason is decided here, once, with its own code.

A password-protected file is opened by `unlock` with the caller's candidate passwords
right after `check_bytes`, and read from then on as the plain PDF PDFium writes back.
"""

from __future__ import annotations

import io
import re
import struct
import zlib
from collections.abc import Sequence

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, EmptyFile, EncryptedPdf, NotPdf, TooLarge, TruncatedPdf
from parsers.limits import Limits
from parsers.pdf.pdfium import LOCK

_STREAM = re.compile(rb">>\s*stream(?:\r\n|\n|\r)")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
_FILTERS = re.compile(rb"/Filter\s*(\[[^\]]*\]|/\w+)")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_SIZE = re.compile(rb"/(Width|Height)\s+(\d+)(?!\s+\d+\s+R)")
#: What `\s` matches in a bytes pattern: the whitespace an ASCII85 stream may hold.
_WHITESPACE = b" \t\n\r\x0b\x0c"
#: The weight of each of a group's five ASCII85 digits.
_POWERS = np.array([85**4, 85**3, 85**2, 85, 1], dtype=np.uint64)
#: Largest piece of a stream inflated at once while checking it.
_CHUNK = 1 << 20


def check_bytes(data: bytes, limits: Limits) -> None:
    """What the bytes alone tell: empty, too large, not a PDF, cut short."""
    if not data:
        raise EmptyFile("the file is empty (0 bytes)")
    if len(data) > limits.max_bytes:
        raise TooLarge(f"{len(data)} bytes is over the limit of {limits.max_bytes} bytes")
    if b"%PDF-" not in data[:1024]:
        raise NotPdf("the file does not start with a PDF header, nor is it a bank export "
                     "stmtflow reads")
    if b"%%EOF" not in data[-2048:]:
        raise TruncatedPdf("the file ends before the PDF end-of-file marker")


def unlock(data: bytes, passwords: Sequence[str]) -> bytes:
    """`data` as a plain PDF: unchanged when no password locks it, else opened with the
    first of `passwords` that fits and written back without its encryption.

    No password is ever part of an error or a message: a file none of them opens is
    `encrypted`, saying only how many were tried.
    """
    if not passwords:
        return data
    with LOCK:
        try:
            pdfium.PdfDocument(data).close()
            return data
        except pdfium.PdfiumError as exc:
            if exc.err_code not in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
                return data  # not a password: `open_document` classifies it
        for password in passwords:
            try:
                doc = pdfium.PdfDocument(data, password=password)
            except pdfium.PdfiumError:
                continue
            try:
                plain = io.BytesIO()
                doc.save(plain, flags=pdfium_c.FPDF_REMOVE_SECURITY)
                return plain.getvalue()
            finally:
                doc.close()
    raise EncryptedPdf(f"the PDF is password-protected and none of the {len(passwords)} "
                       "password(s) configured for it opens it")


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


def inspect_streams(data: bytes, limits: Limits) -> int:
    """Refuse bombs before any library decodes them; return how many streams lose data.

    Every image is held to the pixel limit by its declared size (and a JPEG 2000 image by
    the size its own header gives), wherever it sits: on a page, in a form, in an
    annotation's appearance. Every Flate stream is inflated piecewise and thrown away: one
    that inflates past four bytes per allowed pixel is a bomb; one that does not inflate
    cleanly to its end has lost data. PDF libraries read what they can of a damaged stream
    and carry on (pdfminer warns of "data-loss" or silently keeps nothing, PDFium says
    nothing), so a statement may then miss rows or carry garbled text: the caller must not
    validate it. An encrypted file's streams are ciphertext: only its images are checked.
    """
    encrypted = b"/Encrypt" in data[-4096:] or b"/Encrypt" in data[:4096]
    damaged = 0
    for m in _STREAM.finditer(data):
        head = data[max(0, m.start() - 2048): m.start()]
        head = head[max(0, head.rfind(b"obj")):]
        found = _FILTERS.search(head)
        filters = re.findall(rb"/(\w+)", found.group(1)) if found else []
        if _IMAGE.search(head):
            _check_image(head, filters, data, m.end(), limits)
        ascii85 = filters[:1] == [b"ASCII85Decode"]
        chain = filters[1:] if ascii85 else filters
        if encrypted or chain[:1] not in ([b"FlateDecode"], [b"Fl"]):
            continue
        body = _body(data, m.end(), head)
        if ascii85:
            body = _ascii85(body)
        damaged += body is None or not _inflates(body, 4 * limits.max_pixels)
    return damaged


def _check_image(head: bytes, filters: list[bytes], data: bytes, start: int,
                 limits: Limits) -> None:
    size = dict(_SIZE.findall(head))
    width, height = int(size.get(b"Width", 0)), int(size.get(b"Height", 0))
    if b"JPXDecode" in filters:
        siz = data.find(b"\xff\x4f\xff\x51", start, start + 4096)
        if siz >= 0 and len(data) >= siz + 24:
            x, y, x0, y0 = struct.unpack(">IIII", data[siz + 8: siz + 24])
            width, height = max(width, x - x0), max(height, y - y0)
    if width * height > limits.max_pixels:
        raise TooLarge(f"the file holds a {width}x{height} image, over {limits.max_pixels} "
                       "pixels")


def _body(data: bytes, start: int, head: bytes) -> bytes:
    length = _LENGTH.search(head)
    if length is not None:
        end = start + int(length.group(1))
        if data[end: end + 30].lstrip(b"\r\n ").startswith(b"endstream"):
            return data[start:end]
    end = data.find(b"endstream", start)
    return data[start: end if end >= 0 else len(data)].rstrip(b"\r\n")


def _ascii85(body: bytes) -> bytes | None:
    """ASCII85 as PDF writes it (no `<~`, ends `~>`), decoded in bulk; None when malformed."""
    # (whitespace deleted by `translate`, not a regular expression, and characters checked
    # as bytes before they are widened: each about ten times cheaper on a page's stream)
    body = body.translate(None, _WHITESPACE)
    if not body.endswith(b"~>"):
        return None
    body = body[:-2].replace(b"z", b"!!!!!")
    pad = -len(body) % 5
    chars = np.frombuffer(body + b"u" * pad, dtype=np.uint8)
    if chars.size and (int(chars.min()) < ord("!") or int(chars.max()) > ord("u")):
        return None
    values = (chars.reshape(-1, 5).astype(np.uint64) - 33) @ _POWERS
    if values.size and int(values.max()) > 0xFFFFFFFF:
        return None
    out = values.astype(">u4").tobytes()
    return out[: len(out) - pad]


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
