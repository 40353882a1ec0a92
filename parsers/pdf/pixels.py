"""Pixel limits for a page PDFium is about to render, checked before it spends the memory.

Rendering a page allocates the page bitmap (its size in points times the scale) and
decodes every image it draws: images on the page, in forms, and in annotations'
appearances (which `render` draws too). The preflight reads declared sizes from the raw
bytes; this reads them from the document PDFium opened, so that a size given by reference,
an image in an object stream or a JPEG 2000 codestream behind another filter cannot slip
past. A JPEG 2000 decoder allocates for the size its own codestream header gives, whatever
the image dictionary says, so that header is read here too (from a JP2 file's `jp2c` box,
or a bare codestream).
"""

from __future__ import annotations

import ctypes
import struct
import zlib
from collections.abc import Iterator

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from parsers.errors import CorruptPdf, TooLarge
from parsers.limits import Limits

#: Start of a JPEG 2000 codestream: SOC then the SIZ marker.
_SIZ = b"\xff\x4f\xff\x51"
_JP2 = b"\x00\x00\x00\x0cjP  \r\n\x87\n"
#: Most of a filtered JPEG 2000 stream inflated to find its header.
_HEADER_BYTES = 1 << 20
#: Most objects (forms and what they hold) looked at on one page.
_MOST_OBJECTS = 100_000


def check_render(page: pdfium.PdfPage, index: int, scale: float, limits: Limits) -> None:
    """Refuse (`too_large`) a page whose bitmap at `scale`, or any image it draws, is over
    the pixel limit; the caller holds `parsers.pdf.pdfium.LOCK`."""
    width_pt, height_pt = page.get_size()
    if width_pt * scale * height_pt * scale > limits.max_pixels:
        raise TooLarge(f"page {index + 1} would render over {limits.max_pixels} pixels")
    for image in _images(page.raw):
        width, height = image_size(image)
        if width * height > limits.max_pixels:
            raise TooLarge(f"page {index + 1} draws a {width}x{height} image, over "
                           f"{limits.max_pixels} pixels")


def image_size(image: pdfium_c.FPDF_PAGEOBJECT) -> tuple[int, int]:
    """The pixels a decoder allocates for: the dictionary's size, or a JPEG 2000
    codestream's own where it is larger."""
    w, h = ctypes.c_uint(), ctypes.c_uint()
    if not pdfium_c.FPDFImageObj_GetImagePixelSize(image, w, h):
        raise CorruptPdf("an image on the page has no readable size")
    width, height = w.value, h.value
    filters = _filters(image)
    if "JPXDecode" in filters:
        jw, jh = jpx_size(_jpx_stream(image, filters[: filters.index("JPXDecode")]))
        width, height = max(width, jw), max(height, jh)
    return width, height


def jpx_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG 2000 codestream's SIZ marker (bare, or in a JP2 file)."""
    start = _codestream(data) if data.startswith(_JP2) else 0
    if data[start: start + 4] != _SIZ or len(data) < start + 24:
        raise CorruptPdf("a JPEG 2000 image has no readable size header")
    x, y, x0, y0 = struct.unpack(">IIII", data[start + 8: start + 24])
    return max(0, x - x0), max(0, y - y0)


def _codestream(data: bytes) -> int:
    """Offset of the codestream in a JP2 file: the content of its `jp2c` box."""
    at = 0
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at: at + 8])
        head = 8
        if length == 1 and at + 16 <= len(data):
            length, head = struct.unpack(">Q", data[at + 8: at + 16])[0], 16
        if kind == b"jp2c":
            return at + head
        if length < head:
            break
        at += length
    return -1


class _Budget:
    """The objects (annotations included) looked at on one page, bounded."""

    def __init__(self) -> None:
        self.seen = 0

    def spend(self) -> None:
        self.seen += 1
        if self.seen > _MOST_OBJECTS:
            raise TooLarge(f"the page draws over {_MOST_OBJECTS} objects")


def _images(page: pdfium_c.FPDF_PAGE) -> Iterator[pdfium_c.FPDF_PAGEOBJECT]:
    """Every image object a render of the page draws: on the page, in annotations'
    appearances, and inside their forms at any depth. An annotation's objects live as long
    as its handle, so each is walked before the handle is closed."""
    budget = _Budget()
    yield from _within([pdfium_c.FPDFPage_GetObject(page, i)
                        for i in range(pdfium_c.FPDFPage_CountObjects(page))], budget)
    for a in range(pdfium_c.FPDFPage_GetAnnotCount(page)):
        budget.spend()
        annot = pdfium_c.FPDFPage_GetAnnot(page, a)
        if not annot:
            continue
        try:
            yield from _within([pdfium_c.FPDFAnnot_GetObject(annot, i)
                                for i in range(pdfium_c.FPDFAnnot_GetObjectCount(annot))],
                               budget)
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)


def _within(stack: list[pdfium_c.FPDF_PAGEOBJECT],
            budget: _Budget) -> Iterator[pdfium_c.FPDF_PAGEOBJECT]:
    """The images among `stack` and inside its forms."""
    while stack:
        obj = stack.pop()
        budget.spend()
        kind = pdfium_c.FPDFPageObj_GetType(obj) if obj else None
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            yield obj
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            stack += [pdfium_c.FPDFFormObj_GetObject(obj, i)
                      for i in range(pdfium_c.FPDFFormObj_CountObjects(obj))]


def _filters(image: pdfium_c.FPDF_PAGEOBJECT) -> list[str]:
    out = []
    for i in range(pdfium_c.FPDFImageObj_GetImageFilterCount(image)):
        size = pdfium_c.FPDFImageObj_GetImageFilter(image, i, None, 0)
        buf = ctypes.create_string_buffer(size)
        pdfium_c.FPDFImageObj_GetImageFilter(image, i, buf, size)
        out.append(buf.value.decode("latin-1"))
    return out


def _jpx_stream(image: pdfium_c.FPDF_PAGEOBJECT, before: list[str]) -> bytes:
    """The JPEG 2000 data of an image stream: its raw bytes, inflated (at most the first
    MiB, where the header is) when Flate comes first; another filter in front is refused."""
    size = pdfium_c.FPDFImageObj_GetImageDataRaw(image, None, 0)
    buf = (ctypes.c_ubyte * size)()
    pdfium_c.FPDFImageObj_GetImageDataRaw(image, buf, size)
    data = bytes(buf)
    for name in before:
        if name not in ("FlateDecode", "Fl"):
            raise CorruptPdf(f"a JPEG 2000 image behind a {name} filter cannot be checked")
        try:
            data = zlib.decompressobj().decompress(data, _HEADER_BYTES)
        except zlib.error as exc:
            raise CorruptPdf("a JPEG 2000 image's Flate data is damaged") from exc
    return data
