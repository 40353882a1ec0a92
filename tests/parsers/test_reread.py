"""A second reading of unsure words, by the real tesseract: agreement confirms, nothing else."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from parsers.limits import Limits
from parsers.ocr import _tesseract
from parsers.ocr_labels import mend
from parsers.reread import reread


def page() -> tuple[Image.Image, list[int]]:
    """A white page with one date printed on it, and the date's box (left, top, w, h)."""
    image = Image.new("L", (900, 200), 255)
    font = ImageFont.load_default(size=40)
    ImageDraw.Draw(image).text((100, 70), "05-Jan-2026", font=font, fill=0)
    left, top, right, bottom = ImageDraw.Draw(image).textbbox((100, 70), "05-Jan-2026",
                                                              font=font)
    return image, [left, top, right - left, bottom - top]


def row(box: list[int], text: str, conf: float) -> list[str]:
    return ["5", "1", "1", "1", "1", "1", *map(str, box), f"{conf}", text]


def second(image: Image.Image, config: str) -> list[list[str]]:
    return _tesseract(image, 0, Limits(), config)


def test_an_unsure_word_read_the_same_again_is_confirmed() -> None:
    image, box = page()
    [out] = reread(image, [row(box, "05-Jan-2026", 41.0)], second)
    assert out[11] == "05-Jan-2026" and float(out[10]) > 41.0


def test_an_unsure_word_read_differently_again_keeps_its_low_confidence() -> None:
    image, box = page()
    [out] = reread(image, [row(box, "06-Jan-2026", 41.0)], second)
    assert out[11] == "06-Jan-2026" and float(out[10]) == 41.0


def test_sure_words_are_not_read_again() -> None:
    image, box = page()
    calls = []
    rows = [row(box, "06-Jan-2026", 97.0)]
    assert reread(image, rows, lambda img, cfg: calls.append(cfg) or []) == rows
    assert calls == []


def test_mend_restores_figures_and_masks_ocr_garbled() -> None:
    assert [mend(t) for t in ("495:95", "2,028.50.", "2,631.79.Dr", "XXXXKXX8915")] == \
        ["495.95", "2,028.50", "2,631.79Dr", "XXXXXXX8915"]
    assert [mend(t) for t in ("12:30", "KEEP", "1,234.56", "REF 88231")] == \
        ["12:30", "KEEP", "1,234.56", "REF 88231"]
