"""Ink left of a scanned word, level with it: a blank date cell tells itself apart from a
printed date OCR missed, on real pixels and the real tesseract binary."""

from __future__ import annotations

import io

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageDraw, ImageFont

from parsers.limits import Limits
from parsers.ocr.ink import ink_left
from parsers.ocr.tesseract import ocr_page

DPI = 200
FONT = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 30)


def page(rows: list[tuple[str | None, str]], specks: float = 0.0) -> Image.Image:
    """A white page at 200 dpi with one row per entry: a date cell (text, `None` blank,
    or `"smudge"`, ink no word reads from) and a description with a figure."""
    img = Image.new("L", (1400, 120 + 60 * len(rows)), 255)
    draw = ImageDraw.Draw(img)
    for n, (cell, text) in enumerate(rows):
        y = 80 + 60 * n
        if cell == "smudge":
            draw.rectangle((110, y + 12, 170, y + 22), fill=90)
        elif cell is not None:
            draw.text((100, y), cell, fill=0, font=FONT)
        draw.text((400, y), text, fill=0, font=FONT)
    if specks:
        rng = np.random.default_rng(7)
        pixels = np.asarray(img).copy()
        hit = rng.random(pixels.shape) < specks
        pixels[hit] = rng.integers(0, 160, int(hit.sum()))
        img = Image.fromarray(pixels, mode="L")
    return img


def test_specks_of_noise_are_no_ink_and_a_glyph_is() -> None:
    img = page([(None, "BOOK STORE"), ("03-Feb", "COFFEE")], specks=0.003)
    blank, printed = (400, 80 + 8, 80 + 40), (400, 140 + 8, 140 + 40)
    found = ink_left(img, [blank, printed], DPI)
    assert found[blank] == ()
    ((x0, x1),) = found[printed]
    assert 100 * 72 / DPI - 1 <= x0 < x1 <= 400 * 72 / DPI


def test_ink_of_the_lines_above_and_below_stays_out_of_a_line_s_band() -> None:
    img = page([("03-Feb", "COFFEE"), (None, "BOOK STORE"), ("04-Feb", "GROCER")])
    assert ink_left(img, [(400, 140 + 8, 140 + 40)], DPI)[(400, 148, 180)] == ()


def scanned(img: Image.Image) -> pdfium.PdfPage:
    out = io.BytesIO()
    img.save(out, "PDF", resolution=float(DPI))
    return pdfium.PdfDocument(out.getvalue())[0]


def test_ocr_words_carry_the_ink_left_of_them() -> None:
    img = page([("03-Feb-2026", "COFFEE SHOP 4.50"), (None, "BOOK STORE 12.00"),
                ("smudge", "GROCERIES 8.00")], specks=0.001)
    words = ocr_page(scanned(img), 0, Limits(ocr_dpi=DPI))
    ink = {w.text: w.ink for w in words}
    assert ink["BOOK"] == ()
    assert ink["GROCERIES"], "the smudge in the date cell is ink, whatever OCR read there"
    assert ink["03-Feb-2026"] == () and ink["COFFEE"], "the date is ink left of COFFEE"
