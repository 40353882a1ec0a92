"""Evidence of a questioned row: all of its lines, and no digits the text would mask."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from flows.review_evidence import SCALE, locate, picture
from parsers.api import page_reader
from parsers.limits import Limits
from reconcile.corrections import RowEvidence

REFERENCE = "4111111111111111"


def statement() -> bytes:
    """Three rows; the first wraps its description onto a second line, and the second
    carries a long reference number."""
    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(612, 792))
    c.setFont("Helvetica", 10)
    for y, (day, text, amount, balance) in enumerate([
            ("01/02/2026", "SEPA TRANSFER MILLER", "-12.50", "987.50"),
            ("", "GMBH INVOICE SEVEN", "", ""),
            ("02/02/2026", f"CARD PAYMENT REF {REFERENCE}", "-2.50", "985.00"),
            ("03/02/2026", "COFFEE", "-4.00", "981.00")]):
        top = 700 - 16 * y
        c.drawString(50, top, day)
        c.drawString(130, top, text)
        c.drawRightString(450, top, amount)
        c.drawRightString(540, top, balance)
    c.save()
    return buf.getvalue()


def row(n: int, description: str, amount: str, balance: str) -> RowEvidence:
    return RowEvidence(1, n, f"2026-02-0{n}", description, amount, balance, balance, ())


ROWS = [row(1, "SEPA TRANSFER MILLER GMBH INVOICE SEVEN", "-12.50", "987.50"),
        row(2, f"CARD PAYMENT REF {REFERENCE}", "-2.50", "985.00")]


@pytest.fixture
def _prefect() -> None:
    """Evidence is found without the Prefect server."""


def test_a_row_of_two_lines_is_outlined_whole() -> None:
    data = statement()
    seen = locate(data, ROWS, page_reader("pdfium"), Limits())
    first, second = seen[(1, 1)], seen[(1, 2)]
    # the row spans its wrapped line: from the first line's top to the second's bottom
    assert first.bottom > first.top + 16
    assert first.text == "01/02/2026 SEPA TRANSFER MILLER -12.50 987.50 GMBH INVOICE SEVEN"
    assert first.bottom < second.top, "the next row is not part of it"
    assert first.context_bottom == second.bottom


def test_digits_the_text_masks_are_blacked_out_in_the_picture() -> None:
    data = statement()
    seen = locate(data, ROWS, page_reader("pdfium"), Limits())
    s = seen[(1, 2)]
    assert REFERENCE not in s.text and "****1111" in s.text
    [box] = s.hidden  # the reference number alone: amounts and dates stay readable
    assert box[0] > 200 and box[2] < 400
    png = picture(data, s, Limits())
    assert png is not None
    image = Image.open(io.BytesIO(png)).convert("L")
    pad = 4 * SCALE
    crop_top = max(0.0, s.context_top * SCALE - pad)
    x0, y0, x1, y1 = (int(box[0] * SCALE) + 2, int(box[1] * SCALE - crop_top) + 2,
                      int(box[2] * SCALE) - 2, int(box[3] * SCALE - crop_top) - 2)
    inside = image.crop((x0, y0, x1, y1)).getextrema()
    assert inside[1] < 40, "every pixel over the number is black"
    amount = image.crop((int(400 * SCALE), y0, int(450 * SCALE), y1)).getextrema()
    assert amount[1] > 200, "the amount is printed, not blacked out"


def test_no_picture_of_a_page_over_the_pixel_limit() -> None:
    data = statement()
    s = locate(data, ROWS, page_reader("pdfium"), Limits())[(1, 1)]
    assert picture(data, s, Limits(max_pixels=100_000)) is None
