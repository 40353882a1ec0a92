"""The PDFium reader reads what pdfplumber reads: the same words, lines and statements."""

from __future__ import annotations

import io
from collections.abc import Callable

import pdfplumber
import pytest
from hostile_pdfs import glyphs_without_characters
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from corpus import ALL_LAYOUTS, Sample, generate
from parsers.api import page_reader, parse_pdf
from parsers.errors import StatementError
from parsers.limits import Limits
from parsers.pdf.lines import page_lines
from parsers.pdf.page import UNDECODABLE, Page
from parsers.pdf.pdfium_reader import PdfiumReader, _joined
from parsers.pdf.pdfplumber_reader import PdfplumberReader

PLUMBER, PDFIUM = PdfplumberReader(), PdfiumReader()


class _ReadOnce:
    """Keeps the pages of the last file read, so that comparing a statement's lines and its
    parse costs one reading per reader (pdfplumber's is the slow one)."""

    def __init__(self) -> None:
        self._last: tuple[bytes, list[Page]] | None = None

    def read(self, data: bytes, limits: Limits) -> list[Page]:
        if self._last is None or self._last[0] is not data:
            self._last = (data, super().read(data, limits))
        return self._last[1]


class PlumberOnce(_ReadOnce, PdfplumberReader):
    pass


class PdfiumOnce(_ReadOnce, PdfiumReader):
    pass


def outcome(data: bytes, reader: PdfiumReader | PdfplumberReader) -> dict | str:
    """What a reader makes of `data`, without how the generic reader found its table
    (column edges in points, header words grouped as each library groups a glyph run)."""
    try:
        result = parse_pdf(data, reader=reader).to_dict()
    except StatementError as exc:
        return exc.reason
    result.get("reading", {}).pop("table", None)
    return result


def lines(pages: list[Page]) -> list[list[str]]:
    return [[ln.text for ln in page_lines(p)] for p in pages]


def canvas_pdf(draw: Callable[[Canvas], None]) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf)
    draw(c)
    c.save()
    return buf.getvalue()


def gaps(c: Canvas) -> None:
    """Two drawings side by side at gaps around pdfplumber's 1.5 pt, in three sizes and in
    two orders, and the same gaps as kerning inside one drawing."""
    y = 800
    for font in ("Helvetica", "Courier", "Times-Bold"):
        for size in (6, 9, 12, 16):
            for gap in (0.3, 0.9, 1.2, 1.4, 1.6, 1.9, 2.5, 4.0):
                y -= size + 4
                if y < 40:
                    c.showPage()
                    y = 800 - size - 4
                c.setFont(font, size)
                left = stringWidth("Ab1", font, size)
                c.drawString(40, y, "Ab1")
                c.drawString(40 + left + gap, y, "Cd2")
                c.drawString(320 + left + gap, y, "Ef3")  # drawn right to left
                c.drawString(320, y, "Gh4")
                c._code.append(f"BT /F1 {size} Tf 200 {y} Td [(Ij5) {-gap * 1000 / size:.1f} "
                               f"(Kl6)] TJ ET")


def mixed_line(c: Canvas) -> None:
    """Sizes and fonts mixed on one baseline, a raised figure, spaces drawn as glyphs."""
    c.setFont("Helvetica-Bold", 12)
    c.drawString(40, 700, "Opening balance")
    c.setFont("Helvetica", 8)
    c.drawString(160, 700, "as of 01/02/2026")
    c.drawString(250, 702.5, "(1)")
    c.setFont("Times-Roman", 10)
    c.drawRightString(560, 700, "1,234.56 CR")


@pytest.mark.parametrize("draw", [gaps, mixed_line])
def test_words_are_split_and_joined_as_pdfplumber_does(draw: Callable[[Canvas], None]) -> None:
    data = canvas_pdf(draw)
    mine = PDFIUM.read(data, Limits())
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        theirs = [p.extract_words(x_tolerance=1.5, y_tolerance=3) for p in pdf.pages]
    for page, words in zip(mine, theirs, strict=True):
        ours = sorted((w.text, w.x0, w.x1) for w in page.words)
        pdfminer = sorted((w["text"], w["x0"], w["x1"]) for w in words)
        assert [w[0] for w in ours] == [w[0] for w in pdfminer]
        for a, b in zip(ours, pdfminer, strict=True):
            assert abs(a[1] - b[1]) < 0.5 and abs(a[2] - b[2]) < 0.5
    # Tops differ by a font's ascent (PDFium) against its size (pdfminer); lines must not.
    assert lines(mine) == lines(PLUMBER.read(data, Limits()))


def test_glyph_without_a_character_never_reaches_a_word_and_is_noted() -> None:
    data = glyphs_without_characters()
    for reader in (PLUMBER, PDFIUM):
        page = reader.read(data, Limits())[0]
        text = " ".join(w.text for w in page.words)
        assert "(cid:" not in text and UNDECODABLE in text and "Caf" in text
        assert page.problems and "no reader maps" in page.problems[0]


def test_pdfium_is_the_default_and_pdfplumber_stays_selectable() -> None:
    assert isinstance(page_reader(), PdfiumReader)
    assert isinstance(page_reader("pdfplumber"), PdfplumberReader)


@pytest.mark.slow
def test_every_generated_statement_reads_as_with_pdfplumber(corpus: list[Sample]) -> None:
    pdfium, plumber = PdfiumOnce(), PlumberOnce()
    for s in corpus:
        if s.bank == "meridian":
            continue  # scans: both readers hand the same pages to OCR
        data = s.pdf.read_bytes()
        assert lines(pdfium.read(data, Limits())) == lines(plumber.read(data, Limits())), \
            s.pdf.name
        assert outcome(data, pdfium) == outcome(data, plumber), s.pdf.name


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return generate(tmp_path_factory.mktemp("varied"), ALL_LAYOUTS, 150, seed=11, varied=True)


@pytest.mark.slow
def test_every_varied_statement_reads_as_with_pdfplumber(varied: list[Sample]) -> None:
    text = [s for s in varied if s.bank != "meridian"]
    assert any("producer:fpdf2" in s.variant.get("kinds", ()) for s in text)
    pdfium, plumber = PdfiumOnce(), PlumberOnce()
    for s in text:
        data = s.pdf.read_bytes()
        same_lines = lines(pdfium.read(data, Limits())) == lines(plumber.read(data, Limits()))
        assert outcome(data, pdfium) == outcome(data, plumber), s.pdf.name
        # a rotated letter's box: pdfminer spans two corners, PDFium all four; a narrow
        # no-break space is drawn with the space's own glyph, which a font subset made
        # after other statements in the process may map back to either character
        kinds = s.variant.get("kinds", ())
        assert same_lines or "furniture:watermark" in kinds \
            or "trait:narrow-space-grouping" in kinds, s.pdf.name


@pytest.mark.parametrize(("gap", "parted"), [(0.3, False), (1.4, True), (2.5, False)])
def test_a_word_joined_where_pdfiums_text_breaks_is_noted(gap: float, parted: bool) -> None:
    """Two drawings 1.4 pt apart: PDFium's text page puts a space of its own between them,
    pdfplumber's 1.5 pt tolerance joins them; the page notes the joined word with PDFium's
    parting of it. Nearer, both join; further, both part: nothing is noted."""
    def draw(c: Canvas) -> None:
        c.setFont("Courier", 8)
        c.drawString(110, 700, "RESTAURANT")
        c.drawString(110 + stringWidth("RESTAURANT", "Courier", 8) + gap, 700, "LA")

    page = PDFIUM.read(canvas_pdf(draw), Limits())[0]
    joined = [w.text for w in page.words] == ["RESTAURANTLA"]
    assert joined == (gap < 1.5)
    assert page.parted == ({"RESTAURANTLA": "RESTAURANT LA"} if parted else {})


@pytest.mark.parametrize(("text", "marked", "broken"), [
    ("ABCD", {}, {}),                # the runs follow each other in PDFium's text
    ("AB\rCD", {}, {0: [2]}),        # PDFium's text breaks the line between them
    ("ABCD", {1: [1]}, {0: [3]}),    # a run already joined across a break (interleaved)
])
def test_a_join_keeps_where_pdfiums_text_breaks(text: str, marked: dict[int, list[int]],
                                                broken: dict[int, list[int]]) -> None:
    """Two runs 0.5 pt apart join into one word; where in it PDFium's text breaks is noted:
    between them, or inside a run joined that carries such a break already."""
    end = len(text)
    runs = [("AB", 0.0, 10.0, 0.0, 8.0, 5.0, 0.0, 2), ("CD", 10.5, 20.0, 0.0, 8.0, 15.0, 0.0, end)]
    out: list = []
    noted: dict[int, list[int]] = {}
    assert _joined(None, text, runs, out, noted, check=False, marked=marked)
    assert [r[0] for r in out] == ["ABCD"] and noted == broken
