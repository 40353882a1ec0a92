"""Specks of scanner noise told from printed marks by the ink, on real pixels and the real
tesseract binary: a printed stop stays however a speck beside a word goes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from parsers.ocr.ink import _components, despeckled, holds_ink, speck_mark
from parsers.ocr.reread import Read, apart, reread
from parsers.ocr.tesseract import tesseract_env

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


def joined(left: str, right: str, size: int, mark: str) -> tuple[Image.Image, Read]:
    """`left` and `right` printed a space apart at `size` pixels, as OCR read them when it
    joined them with a `.`: with `mark` "speck", a one-pixel speck in the space between
    them; with "stop", the two printed as one word with a stop between them."""
    font = ImageFont.truetype(FONT, size)
    text = f"{left}.{right}" if mark == "stop" else f"{left} {right}"
    img = Image.new("L", (40 + size * len(text), 3 * size), 255)
    draw = ImageDraw.Draw(img)
    draw.text((20, size), text, fill=0, font=font)
    x0, top, x1, bottom = draw.textbbox((20, size), text, font=font)
    if mark == "speck":
        gap = draw.textbbox((20, size), f"{left} ", font=font)[2] - size // 6
        pixels = np.asarray(img).copy()
        pixels[bottom - 2, gap] = 40
        img = Image.fromarray(pixels, mode="L")
    return img, Read(f"{left}.{right}", 96.0, x0, top, x1 - x0, bottom - top)


@pytest.mark.parametrize("size", [18, 24])
def test_words_joined_across_a_speck_are_read_apart(size: int) -> None:
    img, r = joined("STORE", "0912", size, "speck")
    kept = reread(img, [r], 90.0, 60.0, tesseract_env())
    assert [k.text for k in kept] == ["STORE", "0912"] and all(k.twice for k in kept)


@pytest.mark.parametrize("size", [18, 24])
def test_a_printed_stop_between_words_is_not_read_as_a_speck(size: int) -> None:
    img, r = joined("NO", "123", size, "stop")
    [kept] = reread(img, [r], 90.0, 60.0, tesseract_env())
    assert kept.text == "NO.123"


@pytest.mark.parametrize(("third", "parts"), [
    ("ID 7781-ALPHA", ["ID", "7781-ALPHA"]),
    ("ID7781-ALPHA", None),  # the mark gone but no space: a speck inside a word, maybe
    ("ID. 7781-ALPHA", None),  # the mark stays on the page without specks: printed
    ("IO 7781-ALPHA", None),  # a glyph read otherwise
    (None, None),
])
def test_a_word_joined_across_a_speck_is_split_only_where_the_clean_page_reads_a_space(
        third: str | None, parts: list[str] | None) -> None:
    first = Read("ID.7781-ALPHA", 95.0, 100, 10, 130, 20)
    kept = apart(first, ("ID.7781-ALPHA", 80.0), (third, 91.0) if third else None)
    assert (kept and [k.text for k in kept]) == parts
    assert kept is None or (all(k.twice and k.conf == 80.0 for k in kept)
                            and kept[0].left == 100 and kept[-1].left + kept[-1].width == 230)


@pytest.mark.parametrize("size", [18, 24])
def test_a_printed_dash_at_a_word_s_edge_stays_and_a_speck_read_as_one_goes(size: int) -> None:
    img, printed = word("REF-", size)
    [kept] = reread(img, [printed], 90.0, 60.0, tesseract_env())
    assert kept.text == "REF-"
    img, specked = word("88231", size, speck=True)
    [kept] = reread(img, [replace(specked, text="88231-")], 90.0, 60.0, tesseract_env())
    assert kept.text == "88231"


def test_a_page_cleaned_only_within_boxes_is_cleaned_there_as_the_whole_page_is() -> None:
    """The third reading cleans only its words' crops: there, and at the page's edges,
    exactly as the whole page cleaned; elsewhere the specks stay."""
    rng = np.random.default_rng(7)
    img = Image.fromarray(np.where(rng.random((90, 160)) < 0.3, 20, 240).astype(np.uint8),
                          mode="L")
    whole = np.asarray(despeckled(img))
    boxes = [(0, 0, 30, 20), (50, 40, 90, 65), (70, 50, 160, 90), (5, 70, 6, 71)]
    part = np.asarray(despeckled(img, boxes))
    inside = np.zeros(whole.shape, dtype=bool)
    for x0, y0, x1, y1 in boxes:
        inside[y0:y1, x0:x1] = True
    assert (whole != np.asarray(img)).any()  # it does clean something
    assert (part[inside] == whole[inside]).all()
    assert (part[~inside] == np.asarray(img)[~inside]).all()


def test_ink_is_grouped_into_touching_pixels_diagonals_included() -> None:
    dark = np.array([[1, 0, 0, 1, 1, 0, 0],
                     [0, 1, 0, 0, 0, 0, 1],
                     [0, 0, 0, 1, 0, 1, 0],
                     [1, 1, 0, 1, 0, 0, 0],
                     [0, 1, 1, 1, 0, 0, 1]], dtype=bool)
    # (x0, x1, y0, y1, pixels), in the order of their first pixel
    assert _components(dark) == [(0, 1, 0, 1, 2), (3, 4, 0, 0, 2), (5, 6, 1, 2, 2),
                                 (0, 3, 2, 4, 7), (6, 6, 4, 4, 1)]
