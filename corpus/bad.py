"""Bad inputs, each made to trip exactly one reason code (a `Reason` of `parsers/codes.py`)."""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable

import pypdf
from reportlab.pdfgen.canvas import Canvas

from corpus.scan import tiny_scan


def _simple_pdf(text: str = "Statement") -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    c.drawString(72, 720, text)
    c.save()
    return buf.getvalue()


def encrypted(data: bytes | None = None, password: str = "s3cret") -> bytes:
    """`data` (a one-line PDF by default) locked with `password`, as banks send them."""
    w = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data or _simple_pdf())))
    w.encrypt(user_password=password, owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def truncated(good: bytes) -> bytes:
    return good[: len(good) // 2]


def many_pages(count: int = 5000) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    for _ in range(count):
        c.showPage()
    c.save()
    return buf.getvalue()


def assemble(objects: list[bytes]) -> bytes:
    """A PDF of `objects` (numbered from 1) with a correct cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref))
    return out.getvalue()


def decompression_bomb(side: int = 20000) -> bytes:
    """A page whose one image inflates to side*side bytes (400 MB) from a few hundred KB."""
    z = zlib.compressobj(9)
    row_block = bytes(side * 100)
    stream = b"".join(z.compress(row_block) for _ in range(side // 100)) + z.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (
            side, side, len(stream)) + stream + b"\nendstream",
        b"<< /Length 35 >>\nstream\nq 612 0 0 792 0 0 cm /Im0 Do Q\nendstream",
    ]
    return assemble(objects)


#: name -> (reason code the parser must give, maker taking a good PDF's bytes)
BAD_INPUTS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "zero-bytes": ("empty", lambda good: b""),
    # (a note, not a CSV: a bank's CSV export is read like a statement)
    "not-a-pdf": ("not_pdf", lambda good: b"Your December statement is attached to this mail.\n"),
    "truncated": ("truncated", truncated),
    "password-protected": ("encrypted", lambda good: encrypted()),
    "decompression-bomb": ("too_large", lambda good: decompression_bomb()),
    "five-thousand-pages": ("too_large", lambda good: many_pages()),
    "tiny-scan": ("too_small", lambda good: tiny_scan()),
}
#: The four that every sample corpus gets with `--bad` (the slow-to-make ones are opt-in).
BASIC_BAD = ("zero-bytes", "not-a-pdf", "truncated", "password-protected")
