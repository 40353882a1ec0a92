"""OCR for pages without a text layer: pypdfium2 renders, the tesseract binary reads.

Pages are rendered in memory and handed to tesseract as an 8-bit PGM file, its TSV read
from its output (PNG encoding alone cost more than the recognition). Tesseract runs
single-threaded (`OMP_THREAD_LIMIT=1`): its OpenMP default is several times slower on
small machines and fights the task runner for cores. It is started once per process, not
per page (`tesseract_stream.py`): its start costs about a sixth of a page's reading.
Word boxes are returned in PDF points, so layouts see scans and text pages alike. A page is
squared and evened out first where it needs it (`straighten.py`), and a second engine then
reads the same image's words as an independent witness (`witness.py`).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from parsers.errors import (
    CorruptPdf,
    OcrFailed,
    OcrKilled,
    OcrTimeout,
    OcrUnavailable,
    UnreadableScan,
)
from parsers.limits import Limits
from parsers.ocr.ink import ink_left
from parsers.ocr.lexicon import words as lexicon
from parsers.ocr.reread import Read, reread
from parsers.ocr.straighten import straighten
from parsers.ocr.tesseract_stream import TesseractStopped, TesseractStreams
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE
from parsers.ocr.witness import left_out, marked_numbers, substitute, witness
from parsers.pdf.page import Word
from parsers.pdf.pdfium import LOCK
from parsers.pdf.pixels import check_render

#: Which engines read a page: tesseract with the second engine as its witness, or either
#: alone (`second`: the second engine's readings of tesseract's words), to measure each.
ENGINES = ("both", "first", "second")

#: Page segmentation "single column of variable sizes": mode 6 merges ruled table rows.
TESSERACT_CONFIG = "--psm 4"
#: The process that reads pages, kept for every page (`tesseract_stream.py`).
FIRST = TesseractStreams(TESSERACT_CONFIG.split())
#: What a scan's job says where no tesseract can be started.
MISSING = ("page {page} has no text layer and needs OCR, but tesseract is not installed "
           "(no `tesseract` on PATH): install it (Debian and Ubuntu: apt-get install "
           "tesseract-ocr; macOS: brew install tesseract), then read it again (an "
           "imported file: `stmtflow rerun BATCH`)")
#: Below this confidence a word without any letter or digit is treated as a speck of noise.
NOISE_CONFIDENCE = 80.0


def ocr_page(page: pdfium.PdfPage, index: int, limits: Limits,
             engines: str = "both") -> list[Word]:
    """Words of a loaded page without a text layer, read by tesseract; the words it was
    unsure of are read a second time (`reread.py`), and the second engine reads the same
    image's words as a witness (`witness.py`; `engines` other than `both` measure each
    engine alone: see ENGINES), and a word beside a glyph neither read is doubted
    (`witness.left_out`); each keeps the ink the page holds left of it, level with it
    (`ink.py`). All tesseract's readings share the page's time: a reading gets what the
    ones before it left, so a page never takes twice its budget."""
    deadline = time.monotonic() + limits.seconds_per_ocr_page
    image = straighten(render_page(page, index, limits))
    reads = []
    for row in tesseract_tsv(image, index, limits, deadline):
        if len(row) < 12 or _is_speck(row[11], float(row[10])):
            continue
        block, par, line_num, left, top, width, height = map(int, (*row[2:5], *row[6:10]))
        reads.append(Read(row[11].strip(), float(row[10]), left, top, width, height,
                          (block * 1000 + par) * 1000 + line_num))
    try:
        reads = reread(image, reads, OCR_REVIEW_CONFIDENCE, deadline - time.monotonic(),
                       tesseract_env(), lexicon())
    except subprocess.TimeoutExpired as exc:
        raise OcrTimeout(f"OCR of page {index + 1}, its second and third readings "
                         f"included, took over {limits.seconds_per_ocr_page:.0f} s") from exc
    except TesseractStopped as exc:
        raise _ocr_failed(exc, f"the second OCR reading of page {index + 1}") from exc
    if engines != "first":
        weigh = witness if engines == "both" else substitute
        reads = weigh(image, reads, OCR_REVIEW_CONFIDENCE, lexicon())
    reads = left_out(image, marked_numbers(reads, OCR_REVIEW_CONFIDENCE), OCR_REVIEW_CONFIDENCE)
    ink = ink_left(image, [(r.left, r.top, r.top + r.height) for r in reads], limits.ocr_dpi)
    to_pt = 72 / limits.ocr_dpi
    return [Word(r.text, r.left * to_pt, (r.left + r.width) * to_pt, r.top * to_pt,
                 (r.top + r.height) * to_pt, r.conf, r.line,
                 ink[r.left, r.top, r.top + r.height], r.twice, r.second, r.pair)
            for r in reads]


def tesseract_tsv(image: Image.Image, index: int, limits: Limits,
                  deadline: float | None = None) -> list[list[str]]:
    """Tesseract's TSV rows of the words of an 8-bit image, read by the process's
    first-reading tesseract by `deadline` (`time.monotonic`; by default the page's time
    from now). It reads a page from a file about a fifth faster than from its standard
    input, so the image goes as a file."""
    if deadline is None:
        deadline = time.monotonic() + limits.seconds_per_ocr_page
    with tempfile.NamedTemporaryFile(prefix="stmtflow-ocr-", suffix=".pgm") as pgm:
        gray = image if image.mode == "L" else image.convert("L")
        pgm.write(b"P5\n%d %d\n255\n" % gray.size + gray.tobytes())
        pgm.flush()
        try:
            [rows] = FIRST.read([pgm.name], deadline - time.monotonic(), tesseract_env())
        except subprocess.TimeoutExpired as exc:
            raise OcrTimeout(f"OCR of page {index + 1} took over "
                             f"{limits.seconds_per_ocr_page:.0f} s") from exc
        except TesseractStopped as exc:
            raise _ocr_failed(exc, f"the first OCR reading of page {index + 1}") from exc
        except FileNotFoundError as exc:
            if exc.filename != "tesseract":
                raise
            raise OcrUnavailable(MISSING.format(page=index + 1)) from exc
    return rows


def _ocr_failed(exc: TesseractStopped, reading: str) -> OcrFailed:
    """The error of a tesseract that stopped during `reading`: transient if it was killed."""
    return (OcrKilled if exc.killed else OcrFailed)(f"{reading} failed: {exc}")


def tesseract_env() -> dict[str, str]:
    """Tesseract's environment: one OpenMP thread unless the operator chose otherwise."""
    return {**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1")}


def render_page(page: pdfium.PdfPage, index: int, limits: Limits) -> Image.Image:
    """The page as a grayscale image at the OCR resolution, refusing absurd sizes (the
    page's and its images')."""
    with LOCK:
        scale = limits.ocr_dpi / 72
        check_render(page, index, scale, limits)
        _check_scan_resolution(page, index, limits)
        try:
            return page.render(scale=scale, grayscale=True).to_pil()
        except pdfium.PdfiumError as exc:
            raise CorruptPdf(f"page {index + 1} cannot be rendered ({exc})") from exc


def _is_speck(text: str, conf: float) -> bool:
    """Scanner noise read as a glyph: no letter or digit and not confidently read."""
    t = text.strip()
    return not t or conf < 0 or (not any(c.isalnum() for c in t) and conf < NOISE_CONFIDENCE)


def _check_scan_resolution(page: pdfium.PdfPage, index: int, limits: Limits) -> None:
    """A scan whose pixels are too few for any glyph to be read is refused, not guessed at."""
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        width, height = obj.get_px_size()
        if max(width, height) < limits.min_ocr_side:
            raise UnreadableScan(
                f"page {index + 1} is a {width}x{height} pixel scan, too small to read"
            )
