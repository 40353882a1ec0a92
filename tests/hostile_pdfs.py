"""Hostile and damaged PDFs, built in the test that uses them (never committed as files)."""

from __future__ import annotations

import base64
import io
import re
import zlib

import pypdf
from PIL import Image
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from corpus.bad import assemble

CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
PAGES = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"


def stream(head: bytes, body: bytes) -> bytes:
    return b"<< %s /Length %d >>\nstream\n" % (head, len(body)) + body + b"\nendstream"


def zeros(size: int) -> bytes:
    """`size` zero bytes, Flate-compressed (about a thousandth of the size)."""
    z = zlib.compressobj(9)
    block = bytes(1 << 20)
    return b"".join(z.compress(block) for _ in range(size >> 20)) + z.flush()


def zero_filled_content(size: int) -> bytes:
    """One page whose content stream inflates to `size` zero bytes."""
    return assemble([CATALOG, PAGES,
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                     stream(b"/Filter /FlateDecode", zeros(size))])


def stuck_while_opening(size: int) -> bytes:
    """A one-page PDF followed by `size` bytes without a line break before its end marker:
    pdfminer searches backwards for the cross-reference line by line, in quadratic time."""
    good = assemble([CATALOG, PAGES, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"])
    return good[: good.rindex(b"startxref")] + b"%" + b"x" * size + b"\n%%EOF\n"


def image_in_annotation(side: int) -> bytes:
    """A page with no image of its own; an annotation's appearance draws a side*side one."""
    return assemble([
        CATALOG, PAGES,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>",
        b"<< /Type /Annot /Subtype /Stamp /Rect [0 0 612 792] /AP << /N 5 0 R >> >>",
        stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
               b"/Resources << /XObject << /Im0 6 0 R >> >>", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
               b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side), zeros(side * side)),
    ])


def lying_jpeg2000(declared: int, real: int) -> bytes:
    """A page image whose dictionary says declared*declared pixels and whose JPEG 2000
    header (the size a decoder allocates for) says real*real."""
    siz = (b"\xff\x4f\xff\x51" + b"\x00\x29\x00\x00"
           + real.to_bytes(4, "big") * 2 + bytes(8) + b"\x00\x00\x01\x00" * 2 + bytes(8))
    return assemble([
        CATALOG, PAGES,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>",
        stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
               b"/BitsPerComponent 8 /Filter /JPXDecode" % (declared, declared), siz),
        stream(b"", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
    ])


def image_by_reference_in_annotation(side: int, bits: int = 1) -> bytes:
    """A page that draws only a line, and an annotation whose appearance draws a side*side
    image whose size is given by reference (out of reach of a look at the raw bytes), its
    `bits`-per-pixel data zeros that stay under the stream check's bound."""
    return assemble([
        CATALOG, PAGES,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] "
        b"/Contents 8 0 R >>",
        b"<< /Type /Annot /Subtype /Stamp /Rect [0 0 612 792] /AP << /N 5 0 R >> >>",
        stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
               b"/Resources << /XObject << /Im0 6 0 R >> >>", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        stream(b"/Type /XObject /Subtype /Image /Width 7 0 R /Height 7 0 R "
               b"/ColorSpace /DeviceGray /BitsPerComponent %d /Filter /FlateDecode" % bits,
               zeros(side * side * bits // 8)),
        b"%d" % side,
        stream(b"", b"72 72 m 540 720 l S"),
    ])


def jpeg2000(side: int, real: int, *, jp2: bool = False) -> bytes:
    """A side*side JPEG 2000 image (a bare codestream, or a JP2 file) whose SIZ header is
    edited to claim real*real pixels in one tile."""
    out = io.BytesIO()
    Image.new("L", (side, side), 200).save(out, "JPEG2000", no_jp2=not jp2)
    data = bytearray(out.getvalue())
    at = data.find(b"\xff\x4f\xff\x51")
    for offset in (8, 12, 24, 28):  # Xsiz, Ysiz, XTsiz, YTsiz
        data[at + offset: at + offset + 4] = real.to_bytes(4, "big")
    return bytes(data)


def jpeg2000_behind_flate(declared: int, real: int) -> bytes:
    """A page drawing a JPEG 2000 image whose dictionary says declared*declared pixels and
    whose codestream, Flate-compressed (so its header is not in the raw bytes), says
    real*real: what the decoder allocates for."""
    return assemble([
        CATALOG, PAGES,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>",
        stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
               b"/BitsPerComponent 8 /Filter [/FlateDecode /JPXDecode]" % (declared, declared),
               zlib.compress(jpeg2000(declared, real))),
        stream(b"", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
    ])


def checksum_broken(pdf: bytes, page: int = -1) -> bytes:
    """`pdf` with the zlib checksum of one page's content stream (ASCII85 and Flate, as
    reportlab writes them) broken: every byte inflates, then the check fails, which is
    what pdfminer reports as "data-loss while decompressing corrupted data"."""
    spans = [m.span(1) for m in re.finditer(
        rb"/Filter \[ /ASCII85Decode /FlateDecode \] /Length \d+\s*>>\s*stream\r?\n(.*?)~>",
        pdf, re.S)]
    start, end = spans[page]
    raw = bytearray(base64.a85decode(pdf[start:end], adobe=False,
                                     ignorechars=b" \t\n\r\x0b"))
    raw[-1] ^= 0xFF
    encoded = base64.a85encode(bytes(raw), wrapcol=0)
    assert len(encoded) == end - start, "the broken stream must keep its length"
    return pdf[:start] + encoded + pdf[end:]


def glyphs_without_characters() -> bytes:
    """Text in an embedded TrueType font without a ToUnicode map: the non-ASCII letters
    have no known character (pdfminer writes `(cid:N)`, PDFium the raw code)."""
    pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))
    buf = io.BytesIO()
    c = Canvas(buf)
    c.setFont("Vera", 10)
    c.drawString(72, 720, "Café Müller Straße 12,50")
    c.save()
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(buf.getvalue())))
    for page in writer.pages:
        for font in page["/Resources"]["/Font"].values():
            font.get_object().pop("/ToUnicode", None)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def one_page(page: bytes = b"/MediaBox [0 0 612 792]", *, pages: bytes = PAGES,
             content: bytes = b"BT /F1 12 Tf 72 720 Td (Balance 12.50) Tj ET",
             head: bytes = b"") -> bytes:
    """One page of text; `page` is the rest of the page dictionary, `pages` the page tree
    node, `head` the content stream's dictionary entries (a filter, say)."""
    return assemble([CATALOG, pages,
                     b"<< /Type /Page /Parent 2 0 R %s /Contents 4 0 R >>" % page,
                     stream(head, content)])


def self_referencing_length() -> bytes:
    """A content stream whose /Length is the stream object itself."""
    return assemble([CATALOG, PAGES,
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                     b"<< /Length 4 0 R >>\nstream\nBT ET\nendstream"])


def nested_mediabox(depth: int) -> bytes:
    """A MediaBox of arrays nested `depth` deep."""
    return one_page(b"/MediaBox " + b"[" * depth + b"0 0 612 792" + b"]" * depth)


def page_count_lies() -> bytes:
    """A page tree that counts two pages and holds one."""
    return one_page(pages=b"<< /Type /Pages /Kids [3 0 R] /Count 2 >>")


def without_root() -> bytes:
    """A trailer that names no document catalog."""
    return one_page().replace(b"/Root 1 0 R", b"")


def broken_lzw() -> bytes:
    """A content stream whose LZW codes run past the table."""
    return one_page(head=b"/Filter /LZWDecode", content=b"\xff\xff\xff\xff\xff\x00\x01")
