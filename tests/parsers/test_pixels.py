"""Pixel limits read from the document PDFium opened, before a page is rendered."""

from __future__ import annotations

import pytest
from hostile_pdfs import image_by_reference_in_annotation, jpeg2000, jpeg2000_behind_flate, one_page

from parsers.api import parse_pdf
from parsers.errors import CorruptPdf, StatementError
from parsers.limits import Limits
from parsers.pdf.pixels import check_render, jpx_size
from parsers.pdf.preflight import inspect_streams


def reason_and_message(data: bytes) -> tuple[str, str]:
    with pytest.raises(StatementError) as info:
        parse_pdf(data)
    return info.value.reason, info.value.message


def test_image_sized_by_reference_in_an_annotation_is_too_large_before_rendering() -> None:
    data = image_by_reference_in_annotation(20_000)
    assert inspect_streams(data, Limits()) == 0  # the raw bytes show neither size nor bomb
    reason, message = reason_and_message(data)
    assert reason == "too_large" and "draws a 20000x20000 image" in message


def test_jpeg2000_whose_header_hides_behind_flate_is_too_large_by_its_header() -> None:
    data = jpeg2000_behind_flate(declared=500, real=30_000)
    assert inspect_streams(data, Limits()) == 0
    reason, message = reason_and_message(data)
    assert reason == "too_large" and "draws a 30000x30000 image" in message


def test_the_same_files_within_the_limit_are_rendered() -> None:
    # a scan-sized image passes the check and is read by OCR (nothing on it to read)
    for data in (image_by_reference_in_annotation(2_000), jpeg2000_behind_flate(600, 600)):
        assert reason_and_message(data)[0] == "empty_statement"


def test_jpeg2000_size_is_read_from_a_bare_codestream_and_from_a_jp2_file() -> None:
    assert jpx_size(jpeg2000(100, 30_000)) == (30_000, 30_000)
    jp2 = jpeg2000(100, 30_000, jp2=True)
    assert jpx_size(jp2) == (30_000, 30_000)
    # a large box before the codestream moves its header far from the start
    box = (8 + 10_000).to_bytes(4, "big") + b"xml " + b" " * 10_000
    at = jp2.index(b"jp2h") - 4
    assert jpx_size(jp2[:at] + box + jp2[at:]) == (30_000, 30_000)


def test_jpeg2000_without_a_size_header_is_corrupt() -> None:
    with pytest.raises(CorruptPdf):
        jpx_size(b"\x00\x00\x00\x0cjP  \r\n\x87\n" + b"\x00" * 40)


def test_page_larger_than_the_pixel_limit_at_the_scale_is_too_large() -> None:
    import pypdfium2 as pdfium

    from parsers.errors import TooLarge
    from parsers.pdf.pdfium import LOCK

    with LOCK:
        doc = pdfium.PdfDocument(one_page(b"/MediaBox [0 0 7000 7000]"))
        try:
            check_render(doc[0], 0, 1.0, Limits())  # 49 MP at 72 dpi: within the limit
            with pytest.raises(TooLarge, match="would render over"):
                check_render(doc[0], 0, 200 / 72, Limits())
        finally:
            doc.close()


def test_a_page_of_more_objects_than_are_looked_at_is_too_large() -> None:
    import pypdfium2 as pdfium

    from parsers.errors import TooLarge
    from parsers.pdf.pdfium import LOCK
    from parsers.pdf.pixels import _MOST_OBJECTS

    with LOCK:
        doc = pdfium.PdfDocument(one_page(content=b"0 0 m 1 1 l S\n" * (_MOST_OBJECTS + 1)))
        try:
            with pytest.raises(TooLarge, match="draws over"):
                check_render(doc[0], 0, 1.0, Limits())
        finally:
            doc.close()
