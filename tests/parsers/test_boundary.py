"""What PDF libraries raise on bad bytes becomes a reason code; our own bugs stay bugs."""

from __future__ import annotations

import io
from collections.abc import Callable

import pdfplumber
import pytest
from hostile_pdfs import (
    broken_lzw,
    checksum_broken,
    nested_mediabox,
    page_count_lies,
    self_referencing_length,
    without_root,
)

from corpus import statement
from parsers.api import page_reader, parse_pdf
from parsers.codes import Reason
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.pdf.boundary import data_loss, library_errors, raised_in_library
from parsers.pdf.crosscheck import pdfminer_digits
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.pdf.pdfplumber_reader import PdfplumberReader


def plumber(data: bytes) -> object:
    return PdfplumberReader().read(data, Limits())


def pdfium(data: bytes) -> object:
    return PdfiumReader().read(data, Limits())


@pytest.mark.parametrize(("make", "read", "family"), [
    (self_referencing_length, pdfminer_digits, "RecursionError"),
    (self_referencing_length, plumber, "PdfminerException"),
    (lambda: nested_mediabox(3_000), plumber, "RecursionError"),
    (lambda: nested_mediabox(2), plumber, "MalformedPDFException"),
    (without_root, pdfminer_digits, "PDFSyntaxError"),
    (broken_lzw, pdfminer_digits, "IndexError"),
    (page_count_lies, pdfium, "Failed to load page"),
], ids=["RecursionError", "PdfminerException", "deep-RecursionError", "MalformedPDFException",
        "PDFSyntaxError", "IndexError-in-pdfminer", "PdfiumError"])
def test_each_library_exception_family_is_corrupt(make: Callable[[], bytes],
                                                   read: Callable[[bytes], object],
                                                   family: str) -> None:
    with pytest.raises(StatementError) as info:
        read(make())
    assert info.value.reason == Reason.CORRUPT
    assert family in info.value.message


def test_an_error_raised_in_our_own_code_inside_a_library_call_stays_ours() -> None:
    def ours(obj: dict) -> bool:  # a callback pdfplumber calls: its KeyError is our bug
        return obj["no such key"]

    with pdfplumber.open(io.BytesIO(nested_mediabox(1))) as pdf, \
            pytest.raises(KeyError) as info, library_errors("pdfplumber"):
        pdf.pages[0].filter(ours).extract_words()
    assert not raised_in_library(info.value)


def test_the_same_type_raised_in_a_library_frame_is_the_file_s_fault() -> None:
    from pdfminer.utils import apply_matrix_pt

    with pytest.raises(StatementError) as info, library_errors("pdfminer"):
        apply_matrix_pt(None, (0, 0))  # type: ignore[arg-type]
    assert info.value.reason == Reason.CORRUPT and "TypeError" in info.value.message


def test_an_image_over_pillow_s_pixel_limit_is_too_large_not_corrupt() -> None:
    import struct
    import zlib

    from PIL import Image

    out = io.BytesIO()
    Image.new("L", (10, 10)).save(out, "PNG")
    # the header edited to claim 30000x30000 pixels: Pillow refuses it on opening
    head = b"IHDR" + struct.pack(">II", 30_000, 30_000) + out.getvalue()[24:29]
    png = out.getvalue()[:12] + head + struct.pack(">I", zlib.crc32(head)) + \
        out.getvalue()[33:]
    with pytest.raises(StatementError) as info, library_errors("Pillow"):
        Image.open(io.BytesIO(png))
    assert info.value.reason == Reason.TOO_LARGE and "900000000 pixels" in info.value.message


def test_every_hostile_page_tree_ends_with_a_reason_through_the_whole_parser() -> None:
    for make in (self_referencing_length, lambda: nested_mediabox(3_000), page_count_lies,
                 without_root, broken_lzw):
        for name in ("pdfium", "pdfplumber"):
            try:
                result = parse_pdf(make(), reader=page_reader(name))
            except StatementError as exc:
                assert exc.reason != Reason.UNCLASSIFIED
            else:
                assert not result.validation.ok


def test_a_data_loss_warning_is_collected_and_the_statement_is_not_validated() -> None:
    damaged = checksum_broken(statement("northwind").pdf)
    with data_loss() as lost:
        pdfminer_digits(damaged)
    assert lost and "Data-loss" in lost[0]
    result = parse_pdf(damaged, reader=page_reader("pdfplumber"))
    assert not result.validation.ok
    assert any("lost data" in p and "Data-loss" in p for p in result.validation.problems)
