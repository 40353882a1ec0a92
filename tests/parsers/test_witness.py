"""The second OCR engine as a witness: what counts as two engines reading a word alike, and
what a page's words are after the real RapidOCR read them."""

from __future__ import annotations

from dataclasses import replace

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw, ImageFont

from corpus.banks import Printed
from parsers.limits import Limits
from parsers.ocr.reread import Read, kind
from parsers.ocr.tesseract import ocr_page, render_page
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.ocr.witness import (
    asked,
    cut_figures_joined,
    left_out,
    marked_numbers,
    read_apart,
    read_pairs,
    same,
    second_readings,
    weigh,
)

GATE = OCR_REVIEW_CONFIDENCE


@pytest.mark.parametrize(("first", "second", "verdict"), [
    ("1,234.56", "1,234.56", True),
    ("31-Jul-2024", "31-jul-2024", True),  # a month's case changes no date
    ("01-Oct-2026", "01-0ct-2026", True),  # a zero for the month's O
    ("11-Jan-2026", "1l-Jan-2026", True),  # an l for a digit one
    ("XXXXXX1167", "XXXXxX1167", True),  # a letter whose cases differ only in size
    ("Debit", "Debit.", True),  # a stop the second adds at the end
    ("PAYROLL", "PAY ROLL", True),  # spaces the second reads or drops say nothing
    ("4,001.05", "1,001.05", False),  # another digit
    ("356.79", "35.6.79", False),  # a mark more inside a figure
    ("STH", "5TH", False),  # letters or digits: no value tells which
    ("30-Nov-2024", "30-Noy-2024", True),  # no month, and November the only one near it
    ("10-Jun-2024", "10-Jvn-2024", False),  # June or January
    ("4,012.18", "4;012.18", True),  # a mark for a mark in a well-formed figure
    ("250.00", "250.00-", None),  # a sign, or a speck read as one
    ("CORP.", "CORP", None),  # a stop only the first read: its own rules weigh it
    ("ID", "D", None),  # the second drops an upright stroke starting a word
    ("ID", "1D", None),  # or reads it as another stroke
    ("4,011.05", "4,0I1.05", True),  # in a figure, a stroke where a digit stands is the digit
    ("1,234.56", "", None),  # the second read nothing
])
def test_which_readings_of_two_engines_agree(first: str, second: str,
                                             verdict: bool | None) -> None:
    assert same(first, second) is verdict


def read(text: str, conf: float) -> Read:
    return Read(text, conf, 10, 10, 60, 20)


def test_a_word_both_engines_read_alike_is_read_twice_at_the_review_confidence() -> None:
    got = weigh(read("14-Jun-2024", 71.0), "14-jun-2024", 0.97, GATE)
    assert got.twice and got.conf >= GATE and got.text == "14-Jun-2024"


def test_a_word_the_engines_read_differently_keeps_both_readings_below_the_gate() -> None:
    got = weigh(read("4,001.05", 97.0), "1,001.05", 0.99, GATE)
    assert not got.twice and got.conf < GATE
    assert (got.text, got.second) == ("4,001.05", "1,001.05")


def test_tesseract_s_second_reading_the_second_engine_reads_alike_stands() -> None:
    """`STH` read first (its dictionary pulls letters), `5TH` from the word's crop and by
    RapidOCR: two engines read `5TH`."""
    got = weigh(replace(read("STH", GATE - 1), again="5TH"), "5TH", 0.96, GATE)
    assert (got.text, got.twice) == ("5TH", True) and got.conf >= GATE
    got = weigh(replace(read("STH", GATE - 1), again="SIH"), "5TH", 0.96, GATE)
    assert (got.text, got.twice) == ("STH", False) and got.conf < GATE


def test_a_second_reading_holding_the_neighbouring_word_never_replaces_the_word() -> None:
    """Both crops of `MEMBERSHIP.` reached into the `DUES` beside it, which the page reads
    as a word of its own: taking them would print `DUES` twice in the description."""
    got = weigh(replace(read("MEMBERSHIP.", GATE - 1), again="MEMBERSHIP DUES"),
                "MEMBERSHIPDUES", 0.97, GATE)
    assert got.text == "MEMBERSHIP." and not got.twice and got.conf < GATE


def test_an_unsure_second_reading_vouches_for_nothing_and_disputes_nothing() -> None:
    got = weigh(read("ACME", 60.0), "ACME", 0.3, GATE)
    assert not got.twice and got.conf == 60.0
    got = weigh(read("ID", 95.0), "D", 0.49, GATE)
    assert got.conf == 95.0 and got.text == "ID"


def test_a_figure_tesseract_read_as_no_figure_takes_the_second_reading_doubted() -> None:
    """The running balance alone then pins it, or the statement goes to review."""
    got = weigh(read("2ATBIT", 96.0), "2,175.77", 0.97, GATE)
    assert (got.text, got.twice) == ("2,175.77", False) and got.conf < GATE


def test_broken_punctuation_the_second_engine_reads_well_formed_is_mended() -> None:
    got = weigh(read("224:10", 89.0), "224.10", 0.98, GATE)
    assert (got.text, got.twice) == ("224.10", True) and got.conf >= GATE


def test_only_confident_plain_words_of_the_language_are_not_read_again() -> None:
    words = frozenset({"PAYMENT", "ATM"})
    assert not asked(read("PAYMENT", 96.0), GATE, words)
    assert asked(read("PAYMENT", 70.0), GATE, words)  # tesseract was unsure
    assert asked(read("ACME", 96.0), GATE, words)  # no word of the language
    assert asked(read("ATM", 96.0), GATE, words)  # short
    assert asked(read("1,234.56", 99.0), GATE, words)  # every figure and date
    assert not asked(read("|", 40.0), GATE, words)  # no letter or digit


def test_the_second_engine_reads_a_scanned_page_s_figures_and_dates(plain: Printed) -> None:
    """The real RapidOCR on the words tesseract found on a clean scan: every figure and
    date is read alike by both."""
    page = pdfium.PdfDocument(plain.pdf)[0]
    words = ocr_page(page, 0, Limits())
    values = [w for w in words if kind(w.text) != "text"]
    assert len(values) >= 10
    assert all(w.second is not None and same(w.text, w.second) for w in values), [
        (w.text, w.second) for w in values if not same(w.text, w.second or "")]
    assert all(w.twice and w.conf >= GATE for w in values)


def test_the_second_engine_reads_each_box_it_is_given(plain: Printed) -> None:
    """Boxes of the page read in one batch, each on its own: the balance box reads the
    balance, a box of blank paper reads nothing."""
    image = render_page(pdfium.PdfDocument(plain.pdf)[0], 0, Limits())
    words = ocr_page(pdfium.PdfDocument(plain.pdf)[0], 0, Limits(), engines="first")
    figure = next(w for w in words if kind(w.text) == "figure")
    to_px = Limits().ocr_dpi / 72
    box = Read(figure.text, 99.0, round(figure.x0 * to_px), round(figure.top * to_px),
               round((figure.x1 - figure.x0) * to_px), round((figure.bottom - figure.top) * to_px))
    blank = Read("x", 99.0, 5, image.height - 60, 80, 30)
    (text, score), (nothing, _) = second_readings(image, [box, blank])
    assert same(figure.text, text) and score > 0.8
    assert not nothing.strip(".-_ ")


def test_a_stop_after_a_reference_number_is_doubted_however_many_read_it() -> None:
    """A speck after a number reads as a stop to both engines: such a word stays below the
    review confidence; a figure's or a full date's marks are weighed by their own rules."""
    words = [Read(t, 97.0, 0, 0, 50, 20, twice=True) for t in
             ("2025110400193.", "11/02.", "1,234.56.", "14-Jun-2024.", "CORP.")]
    got = {r.text: r.conf < GATE and not r.twice for r in marked_numbers(words, GATE)}
    assert got == {"2025110400193.": True, "11/02.": True, "1,234.56.": False,
                   "14-Jun-2024.": False, "CORP.": False}


def _printed(text: str, split: int, x: int, y: int, draw: ImageDraw.ImageDraw,
             font: ImageFont.FreeTypeFont | ImageFont.ImageFont, line: int) -> list[Read]:
    """`text` drawn at (x, y), and the two words tesseract would give, cut at `split`."""
    draw.text((x, y), text, font=font, fill=0)
    first, rest = text[:split], text[split:]
    left = x + round(font.getlength(text[:split] + rest[:len(rest) - len(rest.lstrip())]))
    height = font.size + 4
    return [Read(first, 95.0, x, y, round(font.getlength(first)), height, line),
            Read(rest.strip(), 95.0, left, y, x + round(font.getlength(text)) - left, height,
                 line)]


def test_two_numbers_read_in_one_crop_show_whether_the_space_is_printed() -> None:
    """The real RapidOCR reads two numbers side by side in one crop: printed apart, it
    reads the space; one number that tesseract cut in two, it reads whole."""
    font = ImageFont.load_default(30)
    image = Image.new("L", (900, 200), 255)
    draw = ImageDraw.Draw(image)
    reads = (_printed("20251 10400193", 5, 40, 40, draw, font, 1)
             + _printed("2025110400193", 5, 40, 120, draw, font, 2))
    got = read_pairs(image, reads)
    apart, joined = got[1].pair, got[3].pair
    assert got[0].pair is None and got[2].pair is None  # kept on the second of the two
    assert read_apart(("20251", "10400193"), [apart or ""]), apart
    assert not read_apart(("20251", "10400193"), [joined or ""]), joined


@pytest.mark.parametrize(("printed", "joined"), [
    ("1,278.91", "1,278.91"),  # a stop tesseract read as a space
    ("1,278 91", None),  # printed apart: no stop to read
])
def test_a_figure_cut_at_its_stop_is_one_figure_doubted_where_the_joint_reading_shows_it(
        printed: str, joined: str | None) -> None:
    """Tesseract gives `1,278` and `91`; the real RapidOCR reads both in one crop. Where it
    reads the stop, the two are one figure, below the gate for the running balance to pin."""
    font = ImageFont.load_default(30)
    image = Image.new("L", (500, 120), 255)
    ImageDraw.Draw(image).text((40, 40), printed, font=font, fill=0)
    left = 40 + round(font.getlength(printed[:6]))
    reads = [Read("1,278", 95.0, 40, 40, round(font.getlength("1,278")), 34, 1),
             Read("91", 95.0, left, 40, round(font.getlength("91")), 34, 1)]
    got = cut_figures_joined(read_pairs(image, reads), GATE)
    if joined is None:
        assert [r.text for r in got] == ["1,278", "91"], got
    else:
        [figure] = got
        assert figure.text == joined and figure.conf < GATE and not figure.twice
        assert (figure.left, figure.left + figure.width) == (40, left + reads[1].width)


@pytest.mark.parametrize(("first", "second", "joint", "joined"), [
    ("132", "76", "132.76", True),
    ("L278", "91", "1,278.91", True),  # a letter for a digit
    ("132", "76", "13276", False),  # no stop read: two numbers
    ("9,699", "239:", "9,699.39", False),  # other digits
    ("1,2", "78.91", "1,278.91", False),  # not cut at the stop
    ("20251", "10400193", "2025110400193", False),
])
def test_which_two_words_make_one_cut_figure(first: str, second: str, joint: str,
                                             joined: bool) -> None:
    reads = [Read(first, 95.0, 10, 10, 60, 20, 1), Read(second, 95.0, 80, 10, 20, 20, 1,
                                                          pair=joint)]
    assert (len(cut_figures_joined(reads, GATE)) == 1) is joined


def test_look_alike_glyphs_in_tesseract_s_date_the_second_reads_well_formed_agree() -> None:
    got = weigh(read("O1/15", 87.0), "01/15", 0.97, GATE)
    assert (got.text, got.twice) == ("01/15", True) and got.conf >= GATE


def test_a_figure_both_rereadings_give_but_for_a_speck_after_it_is_read_twice() -> None:
    """`S4415.933:` at first, `311.93.` from the word's crop, `311.93` by RapidOCR."""
    got = weigh(replace(read("S4415.933:", 0.0), again="311.93."), "311.93", 0.97, GATE)
    assert (got.text, got.twice) == ("311.93", True) and got.conf >= GATE


def test_a_malformed_figure_takes_the_second_s_well_formed_reading_doubted() -> None:
    got = weigh(read("S4415.933:", 0.0), "311.93", 0.97, GATE)
    assert (got.text, got.twice) == ("311.93", False) and got.conf < GATE


@pytest.mark.parametrize(("readings", "apart"), [
    (["20251 10400193"], True),
    (["20251 10400193."], True),  # a speck read as a stop at the edge changes no digit
    (["20251 1O400193"], False),  # a letter where tesseract read a digit
    (["2025110400193"], False),  # one number
    (["2025 110400193"], False),  # the space elsewhere
    (["20251 10400193", "2025110400193"], False),  # apart in one place only
    ([""], False),  # nothing read
    ([], False),  # never read together
])
def test_numbers_side_by_side_stand_where_every_joint_reading_prints_the_space(
        readings: list[str], apart: bool) -> None:
    assert read_apart(("20251", "10400193"), readings) is apart


@pytest.mark.parametrize(("printed", "read", "doubted"), [
    ("BRANCH 221", "22", True),  # a digit neither engine read into the word
    ("BRANCH 221", "221", False),
    ("BRANCH 22.", "22", False),  # a stop beside it is no glyph left out
    ("BRANCH 22 NEXT", "22", False),  # a neighbour a space off is its own word
])
def test_a_glyph_beside_a_word_that_no_engine_read_doubts_it(printed: str, read: str,
                                                             doubted: bool) -> None:
    """Words as tesseract boxes them (their ink), the second holding `read` only."""
    font = ImageFont.load_default(30)
    image = Image.new("L", (700, 120), 255)
    draw = ImageDraw.Draw(image)
    draw.text((20, 40), printed, font=font, fill=0)
    words, at = [], 0
    for n, text in enumerate(printed.split()):
        at = printed.index(text, at)
        shown = read if n == 1 else text
        left, top, right, bottom = draw.textbbox((20 + font.getlength(printed[:at]), 40),
                                                 shown, font=font)
        words.append(Read(shown, 96.0, round(left), round(top), round(right - left),
                          round(bottom - top), 1, twice=True))
        at += len(text)
    got = left_out(image, words, GATE)[1]
    assert (got.conf < GATE and not got.twice) is doubted
