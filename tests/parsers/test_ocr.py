"""OCR on the real tesseract binary: words with confidences, a per-page time limit, and the
second reading of the words one confidence figure cannot vouch for."""

from __future__ import annotations

import io
import math
import os
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw, ImageFont

from corpus import Sample, generate, statement
from corpus.variant import ScanQuality, Variant
from parsers.api import parse_pdf
from parsers.errors import OcrFailed, OcrKilled, OcrTimeout, OcrUnavailable, ParseTimeout
from parsers.limits import Limits
from parsers.ocr import lexicon
from parsers.ocr.reread import (
    READER,
    Read,
    date_value,
    doubtful,
    judge,
    kind,
    number_like,
    reread,
    settle,
    unspeck,
    well_formed,
)
from parsers.ocr.tesseract import FIRST, ocr_page, render_page, tesseract_env, tesseract_tsv
from parsers.ocr.tesseract_stream import TesseractStreams

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    return generate(tmp_path_factory.mktemp("scan"), ("meridian",), 1, seed=5)[0]


def first_page(sample: Sample) -> pdfium.PdfPage:
    return pdfium.PdfDocument(sample.pdf.read_bytes())[0]


def test_ocr_reads_words_with_confidences_in_page_points(scan: Sample) -> None:
    words = ocr_page(first_page(scan), 0, Limits())
    text = " ".join(w.text for w in words)
    assert "MERIDIAN" in text and "Particulars" in text
    assert all(w.conf is not None and 0 <= w.conf <= 100 for w in words)
    assert all(0 <= w.x0 < w.x1 <= 600 for w in words)  # an A4 page is 595 points wide


def test_ocr_page_timeout_is_transient(scan: Sample) -> None:
    with pytest.raises(OcrTimeout) as info:
        ocr_page(first_page(scan), 0, Limits(seconds_per_ocr_page=0.01))
    assert info.value.transient and info.value.reason == "ocr_timeout"


@pytest.fixture(scope="module")
def one_line() -> bytes:
    """A scan of one printed line, `PAYMENT TO ACME CORP.`: tesseract reads `TO` and
    `CORP.` a second time, and `CORP.` (a mark at its edge) a third."""
    img = Image.new("L", (900, 240), 255)
    ImageDraw.Draw(img).text((40, 60), "PAYMENT TO ACME CORP.", fill=0,
                             font=ImageFont.truetype(FONT, 24))
    out = io.BytesIO()
    img.save(out, "PDF", resolution=200)
    return out.getvalue()


@pytest.mark.parametrize("slow", [FIRST, READER], ids=["first", "second"])
def test_the_readings_of_a_page_share_its_time(
        one_line: bytes, slow: TesseractStreams, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading that takes all the time it was given leaves the page's next reading none
    (tesseract reads this page in a blink: the slowness is made)."""
    real, readings = slow.read, []

    def until_its_time_is_up(images: list[str], timeout: float, env: dict[str, str]
                             ) -> list[list[list[str]]]:
        began = time.monotonic()
        out = real(images, timeout, env)
        readings.append(images)
        if len(readings) == 1:
            time.sleep(max(began + timeout - time.monotonic(), 0.0))
        return out

    page = pdfium.PdfDocument(one_line)[0]
    # the page's budget: well over what all its readings take on this machine now (a busy
    # machine may take seconds), so that only the made slowness can use it up
    began = time.monotonic()
    ocr_page(page, 0, Limits())
    budget = max(2, math.ceil(4 * (time.monotonic() - began)))
    monkeypatch.setattr(slow, "read", until_its_time_is_up)
    with pytest.raises(OcrTimeout) as info:
        ocr_page(page, 0, Limits(seconds_per_ocr_page=float(budget)))
    assert f"page 1, its second and third readings included, took over {budget} s" \
        in info.value.message
    assert len(readings) == 1  # no reading after it


def test_a_tesseract_that_fails_is_a_deterministic_ocr_failure_with_its_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # no language data: it cannot start
    with pytest.raises(OcrFailed) as info:
        tesseract_tsv(Image.new("L", (200, 100), 255), 1, Limits())
    assert type(info.value) is OcrFailed and not info.value.transient
    assert info.value.reason == "ocr_failed"
    assert "the first OCR reading of page 2" in info.value.message
    assert "Error opening data file" in info.value.message


def test_a_tesseract_killed_while_reading_is_a_transient_ocr_failure() -> None:
    """The OOM killer ends tesseract, not the file: another attempt may read it."""
    noise = Image.frombytes("L", (4000, 4000), os.urandom(4000 * 4000)) \
        .point(lambda v: 255 if v > 128 else 0)

    def kill() -> None:
        for stream in FIRST._all:
            if stream._proc is not None:
                os.kill(stream._proc.pid, signal.SIGKILL)

    killer = threading.Timer(1.0, kill)
    killer.start()
    with pytest.raises(OcrKilled) as info:
        tesseract_tsv(noise, 0, Limits(seconds_per_ocr_page=60))
    killer.join()
    assert info.value.transient and info.value.reason == "ocr_failed"
    assert "the first OCR reading of page 1 failed: tesseract stopped (killed by SIGKILL)" \
        in info.value.message


def test_file_time_budget_stops_reading(tmp_path) -> None:
    sample = generate(tmp_path, ("northwind",), 1, seed=2026)[0]
    with pytest.raises(ParseTimeout) as info:
        parse_pdf(sample.pdf.read_bytes(), limits=Limits(seconds_per_file=0.0))
    assert info.value.reason == "too_slow" and not info.value.transient


# The second reading (reread.py), on crops of a real scan at 200 dpi: the first reading of
# one word is replaced by the fault to test (OCR cannot be made to misread on demand).

@pytest.fixture(scope="module")
def page() -> tuple[Image.Image, list[Read]]:
    """A blurred 200-dpi scan of a statement with `ATM WITHDRAWAL 5TH AVE`, and its words."""
    drawn = statement("meridian", Variant(scan=ScanQuality(dpi=200, noise=0.001, blur=0.5,
                                                           jpeg=70)), index=1, seed=15)
    image = render_page(pdfium.PdfDocument(drawn.pdf)[0], 0, Limits())
    rows = [r for r in tesseract_tsv(image, 0, Limits()) if len(r) >= 12 and r[11].strip()]
    return image, [Read(r[11].strip(), float(r[10]), *map(int, r[6:10])) for r in rows]


def second(page: tuple[Image.Image, list[Read]], printed: str, read: str, conf: float,
           timeout: float = 60.0) -> list[Read]:
    """The word printed `printed` after its second reading, had the first read `read`."""
    image, words = page
    word = next(w for w in words if w.text == printed)
    return reread(image, [replace(word, text=read, conf=conf)], 90.0, timeout, tesseract_env())


def test_a_word_read_with_low_confidence_is_confirmed_by_a_second_reading(page) -> None:
    [word] = second(page, "15-Aug-2026", "15-Aug-2026", 40.0)
    assert word.text == "15-Aug-2026" and word.conf >= 90


def test_a_confident_lookalike_misread_goes_to_review(page) -> None:
    [word] = second(page, "5TH", "STH", 93.0)
    assert word.text == "STH" and word.conf < 90


def test_a_malformed_figure_is_replaced_by_a_confident_well_formed_reading(page) -> None:
    [word] = second(page, "304.65", "304:65", 60.0)
    assert word.text == "304.65" and word.conf >= 90


def test_a_reading_that_disagrees_with_a_well_formed_figure_sends_it_to_review(page) -> None:
    [word] = second(page, "304.65", "304.85", 80.0)
    assert word.text == "304.85" and word.conf < 90


def test_a_speck_read_as_a_mark_at_a_word_s_edge_is_dropped(page) -> None:
    [word] = second(page, "VETERINARY", "VETERINARY.", 96.0)
    assert word.text == "VETERINARY" and word.conf >= 90


def test_words_the_first_reading_ran_together_are_split(page) -> None:
    image, words = page
    atm, withdrawal = (next(w for w in words if w.text == t) for t in ("ATM", "WITHDRAWAL"))
    both = Read("ATMWITHDRAWAL", 50.0, atm.left, atm.top,
                withdrawal.left + withdrawal.width - atm.left, atm.height)
    split = reread(image, [both], 90.0, 60.0, tesseract_env())
    assert [w.text for w in split] == ["ATM", "WITHDRAWAL"]
    assert split[0].left == atm.left and split[1].left + split[1].width == both.left + both.width


def test_words_run_together_are_read_again_however_sure_the_first_reading_was(page) -> None:
    image, words = page
    atm, withdrawal = (next(w for w in words if w.text == t) for t in ("ATM", "WITHDRAWAL"))
    both = Read("ATMWITHDRAWAL", 96.0, atm.left, atm.top,
                withdrawal.left + withdrawal.width - atm.left, atm.height)
    assert not doubtful(both, 90.0) and doubtful(both, 90.0, lexicon.words())
    split = reread(image, [both], 90.0, 60.0, tesseract_env(), lexicon.words())
    assert [w.text for w in split] == ["ATM", "WITHDRAWAL"]


def test_a_long_word_of_the_language_is_not_read_again() -> None:
    word = Read("WITHDRAWAL", 96.0, 0, 0, 100, 20)
    assert not doubtful(word, 90.0, lexicon.words())


def test_confident_plain_words_start_no_second_reading(page) -> None:
    image, words = page
    plain = [replace(w, conf=96.0) for w in words if w.text in ("MERIDIAN", "VETERINARY")]
    # a second tesseract could not start within no time at all
    assert reread(image, plain, 90.0, 0.0, tesseract_env()) == plain


@pytest.mark.parametrize(("text", "what", "formed"), [
    ("2,562.76", "figure", True), ("304:65", "figure", False), ("1,013.27-", "figure", True),
    ("14-Dec-2024", "date", True), ("14-Dez-2024", "date", True), ("14-Dxc-2024", "date", False),
    ("2024-01-31", "date", True), ("31/01/24", "date", True), ("5TH", "text", True),
    ("7781-ALPHA", "text", True),
])
def test_kinds_and_well_formed_readings(text: str, what: str, formed: bool) -> None:
    assert kind(text) == what and well_formed(text, what) is formed


@pytest.mark.parametrize(("text", "conf", "wanted"), [
    ("04-Jan-2025", 60.0, True), ("VETERINARY", 89.0, True), ("STH", 97.0, True),
    ("ST", 97.0, True), ("5TH", 97.0, True), ("AVE", 97.0, False), ("CLINIC", 97.0, False),
    ("2,562.76", 97.0, False), ("***", 60.0, False), ("AUTOPAY.", 97.0, True),
    ("AUTOPAY", 97.0, False), ("Period:", 97.0, False),
])
def test_which_words_are_read_again(text: str, conf: float, wanted: bool) -> None:
    assert doubtful(Read(text, conf, 0, 0, 10, 10), 90.0) is wanted


@pytest.mark.parametrize(("first", "conf", "second", "kept"), [
    ("06-Jan-2025", 60.0, ("06-Jan-2025", 96.0), [("06-Jan-2025", 96.0)]),
    ("06-Jan-2025", 60.0, ("06-Jan-2025", 80.0), [("06-Jan-2025", 80.0)]),
    ("06-Jan-2025", 60.0, ("08-Jan-2025", 96.0), [("06-Jan-2025", 60.0)]),
    ("06-Jan-2025", 60.0, None, [("06-Jan-2025", 60.0)]),
    ("5TH", 97.0, ("STH", 96.0), [("5TH", 89.0)]),
    ("102.95.", 95.0, ("102.95", 70.0), [("102.95", 70.0)]),  # the chain still weighs it
    ("4.50-", 80.0, ("4.50", 96.0), [("4.50-", 80.0)]),  # a trailing minus is a sign
    ("3,783.84.Cr", 75.0, ("3,783.84 Cr", 93.0), [("3,783.84", 93.0), ("Cr", 93.0)]),
    ("-CLINIC", 3.0, ("CLINIC", 96.0), [("CLINIC", 96.0)]),
    ("FEE.", 67.0, ("ree.", 61.0), [("FEE.", 67.0)]),
    ("GYMMEMBERSHIP", 55.0, ("GYM MEMBERSHIP", 96.0), [("GYM", 96.0), ("MEMBERSHIP", 96.0)]),
    ("2025110400193", 86.0, ("20251 10400193", 96.0), [("2025110400193", 86.0)]),  # not a gap
])
def test_what_a_second_reading_keeps(first: str, conf: float, second: tuple[str, float] | None,
                                     kept: list[tuple[str, float]]) -> None:
    assert [(r.text, r.conf) for r in judge(Read(first, conf, 0, 0, 130, 20), second, 90.0)] \
        == kept


@pytest.mark.parametrize(("text", "ambiguous"), [
    ("STH", True), ("SO", True), ("5TH", False), ("ST", False), ("ON", False), ("AVE", False),
])
def test_a_word_that_reads_as_a_number_with_digits_for_its_lookalikes_is_ambiguous(
        text: str, ambiguous: bool) -> None:
    """Two readings agreeing on `STH` do not make it `STH`: the glyphs may be `5TH`
    (`reread` keeps such a word below the review confidence whatever it reads)."""
    assert number_like(text) is ambiguous


def test_only_a_second_reading_that_agrees_marks_a_word_read_twice() -> None:
    first = Read("06-Jan-2025", 60.0, 0, 0, 130, 20)
    assert judge(first, ("06-Jan-2025", 80.0), 90.0)[0].twice
    assert not any(r.twice for second in (("08-Jan-2025", 96.0), None)
                   for r in judge(first, second, 90.0))


@pytest.mark.parametrize(("first", "second", "twice"), [
    ("14-Jun-2024.", "14-Jun-2024:", True), ("\u201809-Sep-2026", "09-Sep-2026.", True),
    ("16-Sep-2026.", "~ 16-Sep-2026", True), ("46-Dec-2024.", "16-Dec-2024", False),
    ("11/02,", "11/02.", False),  # no month name or year: a word of a description
])
def test_a_date_read_alike_but_for_a_speck_beside_it_is_read_twice(first: str, second: str,
                                                                    twice: bool) -> None:
    [kept] = judge(Read(first, 70.0, 0, 0, 130, 20), (second, 80.0), 90.0)
    assert kept.twice is twice and kept.conf < 90
    assert (date_value(first) == date_value(second) is not None) is twice


@pytest.mark.parametrize(("first", "second", "third", "kept"), [
    # two readings of three agree: the one they agree on, read twice, still below the gate
    (("12-Aug-2025.", 77.0), ("12-Aug-2025", 88.0), ("12-Aug-2025", 79.0),
     ("12-Aug-2025.", 79.0, True)),
    (("TO", 83.0), None, ("TO", 90.0), ("TO", 89.0, True)),
    (("RFF", 83.0), ("REF", 70.0), ("REF", 90.0), ("REF", 89.0, True)),
    (("2025110400193", 89.0), ("20251 10400193", 87.0), ("2025110400193", 92.0),
     ("2025110400193", 89.0, True)),
    # look-alike glyphs split at random: no vote settles them
    (("STH", 93.0), ("5TH", 96.0), ("5TH", 96.0), None),
    (("5TH", 75.0), ("STH", 82.0), ("STH", 67.0), None),
    # only a word of letters and digits alone is settled, and only by agreeing readings
    (("0912", 72.0), ("09:12", 73.0), ("09:12", 83.0), None),
    (("AIC", 77.0), ("A/C", 93.0), ("A/C", 94.0), None),
    (("41-Apr-2026", 75.0), ("11-Apr-2026", 78.0), ("17-Apr-2026", 83.0), None),
    # digits read otherwise: the third is the same engine on the same pixels, no witness
    (("4471", 80.0), ("4477", 82.0), ("4471", 85.0), None),
    (("03-Jan-2026", 80.0), ("08-Jan-2026", 82.0), ("08-Jan-2026", 85.0), None),
    # unless one of them is no date at all: the third confirms the one date read
    (("46-Dec-2024.", 70.0), ("16-Dec-2024", 88.0), ("16-Dec-2024", 96.0),
     ("16-Dec-2024", 89.0, True)),
    (("12-Aug-2025.", 77.0), ("42-Aug-2025", 88.0), ("12-Aug-2025", 79.0),
     ("12-Aug-2025.", 79.0, True)),
    (("12-Aug-2025.", 77.0), ("42-Aug-2025", 88.0), ("17-Aug-2025", 79.0), None),
    (("1ST", 77.0), ("IST", 88.0), ("1ST", 79.0), None),
    (("A1B", 77.0), ("1AB", 88.0), ("A1B", 79.0), None),
])
def test_what_a_third_reading_settles(first: tuple[str, float], second: tuple[str, float] | None,
                                      third: tuple[str, float],
                                      kept: tuple[str, float, bool] | None) -> None:
    got = settle(Read(first[0], first[1], 0, 0, 130, 20), second, third, 90.0)
    assert (None if got is None else (got[0].text, got[0].conf, got[0].twice)) == kept


@pytest.mark.parametrize(("second", "twice"), [
    (None, True), (("A4471", 70.0), True),
    (("A4477.", 82.0), False),  # a digit read otherwise: the third's vote settles nothing
])
def test_a_word_unspecked_is_read_twice_only_where_no_reading_read_a_digit_otherwise(
        second: tuple[str, float] | None, twice: bool) -> None:
    kept = unspeck(Read("A4471.", 80.0, 0, 0, 130, 20), second, ("A4471", 85.0),
                   Image.new("L", (200, 60), 255))
    assert (kept.text, kept.twice) == ("A4471", twice)


@pytest.mark.parametrize(("first", "second", "twice"), [
    ("7781-ALPHA", "7781-ALPHA.", True),  # a speck beside it read as a mark by the second
    ("REF", "'REF", True),
    ("5TH", "STH.", False),  # letters read otherwise
    ("304.65", "304.65.", False),  # a figure: the running balance weighs it
    ("CORP.", "CORP", False),  # the first's mark: `unspeck` weighs it
])
def test_a_word_the_second_reading_reads_with_a_mark_more_is_read_twice(
        first: str, second: str, twice: bool) -> None:
    [kept] = judge(Read(first, 80.0, 0, 0, 60, 20), (second, 40.0), 90.0)
    assert kept.twice is twice and (kept.text == first or not twice)


def test_a_machine_without_tesseract_says_so_rather_than_blaming_the_file(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A fresh install without the OCR engine: the scan's error names what to install and is
    not retried (no attempt cures it), and it is not `input_missing`, which would send the
    user looking for a file that is there."""
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH on which no tesseract is found
    FIRST.close()
    with pytest.raises(OcrUnavailable) as info:
        tesseract_tsv(Image.new("L", (200, 100), 255), 0, Limits())
    assert info.value.reason == "ocr_unavailable" and not info.value.transient
    assert "page 1 has no text layer" in info.value.message
    assert "apt-get install tesseract-ocr" in info.value.message
