"""Specks of scanner noise told from printed marks by the ink, on real pixels and the real
tesseract binary: a printed stop stays however a speck beside a word goes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from parsers.ink import despeckled, holds_ink, speck_mark
from parsers.ocr import tesseract_env
from parsers.reread import Read, reread

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def word(text: str, size: int, speck: bool = False) -> tuple[Image.Image, Read]:
    """`text` printed at `size` pixels (18 is 6.5 points at 200 dpi) on a white strip, as a
    word OCR read it; with `speck`, a one-pixel speck of noise after it, where a stop sits
    (the word as read then ends in a `.`)."""
    font = ImageFont.truetype(FONT, size)
    img = Image.new("L", (40 + size * len(text), 3 * size), 255)
    draw = ImageDraw.Draw(img)
    draw.text((20, size), text, fill=0, font=font)
    left, top, right, bottom = draw.textbbox((20, size), text, font=font)
    if speck:
        pixels = np.asarray(img).copy()
        pixels[bottom - 2, right + size // 4] = 40
        img = Image.fromarray(pixels, mode="L")
        right += size // 4 + 1
        text += "."
    return img, Read(text, 96.0, left, top, right - left, bottom - top)


@pytest.mark.parametrize("size", [18, 24, 32])
def test_a_printed_stop_is_no_speck(size: int) -> None:
    img, r = word("CORP.", size)
    box = (r.left, r.top, r.left + r.width, r.top + r.height)
    assert not speck_mark(img, box, right=True)
    assert holds_ink(despeckled(img), (r.left + r.width - size // 4, r.top,
                                       r.left + r.width, r.top + r.height))


@pytest.mark.parametrize("size", [18, 24, 32])
def test_a_speck_after_a_word_is_one(size: int) -> None:
    img, r = word("CORP", size, speck=True)
    box = (r.left, r.top, r.left + r.width, r.top + r.height)
    assert speck_mark(img, box, right=True)
    assert not holds_ink(img, (box[2] - 2, box[1], box[2], box[3]))


@pytest.mark.parametrize("size", [18, 24])
def test_a_second_and_third_reading_keep_a_printed_stop_and_drop_a_speck(size: int) -> None:
    img, printed = word("CORP.", size)
    [kept] = reread(img, [printed], 90.0, 60.0, tesseract_env())
    assert kept.text == "CORP."
    img, specked = word("CORP", size, speck=True)
    [kept] = reread(img, [specked], 90.0, 60.0, tesseract_env())
    assert kept.text == "CORP"


def test_a_lone_speck_read_as_a_glyph_is_dropped_and_a_printed_dash_is_not() -> None:
    img = Image.new("L", (200, 60), 255)
    draw = ImageDraw.Draw(img)
    draw.text((100, 20), "-", fill=0, font=ImageFont.truetype(FONT, 24))
    pixels = np.asarray(img).copy()
    pixels[30, 30] = 30
    img = Image.fromarray(pixels, mode="L")
    speck = Read("7", 36.0, 29, 29, 3, 3)
    left, top, right, bottom = ImageDraw.Draw(img).textbbox(
        (100, 20), "-", font=ImageFont.truetype(FONT, 24))
    dash = Read("-", 85.0, left, top, right - left, bottom - top)
    assert [r.text for r in reread(img, [speck, dash], 90.0, 60.0, tesseract_env())] == ["-"]
