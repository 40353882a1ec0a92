"""A font whose character map is keyed by glyph ids is read by its encoding, exactly."""

from __future__ import annotations

import pypdfium2 as pdfium

from parsers.limits import Limits
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.pdf.pdfplumber_reader import PdfplumberReader
from parsers.pdf.textmaps import repair_text_maps

TEXT = "Postbank Kontoauszug 1.234,56"


def _pdf(offset: int) -> bytes:
    """A one-page PDF in Helvetica (WinAnsi) whose ToUnicode map sends code `c + offset`
    to character `c` for every printable character: offset 0 is a true map; a producer
    keyed by TrueType glyph ids writes offset -29."""
    pairs = "\n".join(f"<{c + offset:04x}> <{c:04x}>" for c in range(0x21, 0x7F)
                      if c + offset > 0)
    cmap = (f"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            f"1 begincodespacerange <00> <FF> endcodespacerange\n"
            f"{pairs.count(chr(10)) + 1} beginbfchar\n{pairs}\nendbfchar\n"
            f"endcmap end end\n").encode()
    content = f"BT /F1 12 Tf 72 700 Td ({TEXT}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 32 /LastChar 126 "
        b"/Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def _text(reader: PdfiumReader | PdfplumberReader, pdf: bytes) -> str:
    return " ".join(w.text for w in reader.read(pdf, Limits())[0].words)


def test_a_map_keyed_by_glyph_ids_is_dropped_and_the_encoding_reads_the_text() -> None:
    broken = _pdf(-29)
    doc = pdfium.PdfDocument(broken)
    try:  # what the file's map says, unrepaired: letters for letters, wrong
        assert doc[0].get_textpage().get_text_range().startswith("mostb")
    finally:
        doc.close()
    assert repair_text_maps(broken) != broken
    assert len(repair_text_maps(broken)) == len(broken)  # every offset stays valid
    assert _text(PdfiumReader(), broken) == TEXT
    assert _text(PdfplumberReader(), broken) == TEXT


def test_a_true_map_is_kept() -> None:
    good = _pdf(0)
    assert repair_text_maps(good) is good
    assert _text(PdfiumReader(), good) == TEXT
