"""The two PDF producers a statement can come from: reportlab and fpdf2.

`Sheet` lays a statement out as a display list of `Text`; a pen measures strings while it
lays out and writes the pages at the end. The producers differ the way real ones do: fonts
(standard Type 1 or an embedded TrueType subset), word spacing (a space glyph or a gap
between separately placed words), and the order of the text in the file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

#: Bitstream Vera ships with reportlab: an embedded TrueType font for the second producer.
VERA = Path(reportlab.__file__).parent / "fonts"


@dataclass(frozen=True)
class Text:
    """One string drawn at (x, y) from the bottom left, in points."""

    x: float
    y: float
    s: str
    bold: bool
    size: float
    align: str = "left"  # "left": x is the left edge; "right": the right edge; "center"
    angle: float = 0.0
    gray: float = 0.0


class Pen(Protocol):
    def width(self, s: str, bold: bool, size: float) -> float: ...

    def write(self, pages: list[list[Text]], size: tuple[float, float]) -> bytes: ...


class ReportlabPen:
    """Standard Type 1 fonts, text in drawing order, spaces as glyphs; the pages numbered
    in `turned` (from 1) are set sideways with `/Rotate 90`, their text drawn turned back
    so that each reads upright as displayed (as a scanner's software or a landscape
    export writes them)."""

    def __init__(self, font: tuple[str, str], turned: frozenset[int] = frozenset()) -> None:
        self.font, self.bold = font
        self.turned = turned

    def width(self, s: str, bold: bool, size: float) -> float:
        return stringWidth(s, self.bold if bold else self.font, size)

    def write(self, pages: list[list[Text]], size: tuple[float, float]) -> bytes:
        buf = io.BytesIO()
        c = Canvas(buf, pagesize=size, invariant=1)
        for n, ops in enumerate(pages, start=1):
            turned = n in self.turned
            c.setPageSize((size[1], size[0]) if turned else size)
            c.setPageRotation(90 if turned else 0)
            if turned:
                # the media box lies on its side; displayed turned 90 degrees clockwise,
                # a point (x, y) of the upright page is (width of the box - y, x) in it
                c.saveState()
                c.translate(size[1], 0)
                c.rotate(90)
            for t in ops:
                c.setFont(self.bold if t.bold else self.font, t.size)
                if t.angle or t.gray:
                    c.saveState()
                    c.setFillGray(t.gray)
                    c.translate(t.x, t.y)
                    c.rotate(t.angle)
                    c.drawCentredString(0, 0, t.s)
                    c.restoreState()
                elif t.align == "right":
                    c.drawRightString(t.x, t.y, t.s)
                elif t.align == "center":
                    c.drawCentredString(t.x, t.y, t.s)
                else:
                    c.drawString(t.x, t.y, t.s)
            if turned:
                c.restoreState()
            c.showPage()
        c.save()
        return buf.getvalue()


def narrow_space_fonts() -> tuple[str, str]:
    """Vera and Vera Bold, embedded, knowing U+202F (a narrow no-break space, which some
    producers group thousands with) as a blank three fifths of a space wide: Vera itself
    has no glyph for it, so the space's is lent."""
    names = ("Vera-NNBSP", "VeraBd-NNBSP")
    for name, file in zip(names, ("Vera.ttf", "VeraBd.ttf"), strict=True):
        if name in pdfmetrics.getRegisteredFontNames():
            continue
        font = TTFont(name, str(VERA / file))
        face = font.face
        face.charToGlyph[0x202F] = face.charToGlyph[0x20]
        face.charWidths[0x202F] = face.charWidths[0x20] * 0.6
        pdfmetrics.registerFont(font)
    return names


#: reportlab's standard fonts by the core family fpdf2 knows them as
CORE = {"Helvetica": "helvetica", "Times-Roman": "times", "Courier": "courier"}


class Fpdf2Pen:
    """fpdf2: a core or embedded TrueType font, optional letter spacing, words placed one by
    one with a gap instead of a space glyph (`word_gap` > 0), and each page's text written
    column by column (`by_column`) rather than line by line."""

    def __init__(self, font: tuple[str, str], embedded: bool, spacing: float = 0.0,
                 word_gap: float = 0.0, by_column: bool = False) -> None:
        from fpdf import FPDF

        self.pdf = FPDF(unit="pt")
        self.pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))
        self.pdf.set_producer("fpdf2")
        self.pdf.set_auto_page_break(False)
        if embedded:
            self.family = "vera"
            self.pdf.add_font("vera", "", str(VERA / "Vera.ttf"))
            self.pdf.add_font("vera", "B", str(VERA / "VeraBd.ttf"))
        else:
            self.family = CORE[font[0]]
        self.spacing = spacing
        self.word_gap = word_gap
        self.by_column = by_column

    def _font(self, bold: bool, size: float) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)
        self.pdf.set_char_spacing(self.spacing)

    def width(self, s: str, bold: bool, size: float) -> float:
        self._font(bold, size)
        if not self.word_gap:
            return self.pdf.get_string_width(s)
        words = s.split()
        gap = self.word_gap * self.pdf.get_string_width(" ")
        return sum(self.pdf.get_string_width(w) for w in words) + gap * max(len(words) - 1, 0)

    def write(self, pages: list[list[Text]], size: tuple[float, float]) -> bytes:
        pdf = self.pdf
        for ops in pages:
            pdf.add_page(format=size)
            if self.by_column:
                ops = sorted(ops, key=lambda t: (not t.angle, round(self._left(t)), -t.y))
            for t in ops:
                self._draw(t, size[1])
        return bytes(pdf.output())

    def _left(self, t: Text) -> float:
        w = self.width(t.s, t.bold, t.size)
        return t.x - w if t.align == "right" else t.x - w / 2 if t.align == "center" else t.x

    def _draw(self, t: Text, height: float) -> None:
        pdf = self.pdf
        self._font(t.bold, t.size)
        if t.angle or t.gray:
            pdf.set_text_color(round(255 * t.gray))
            with pdf.rotation(t.angle, t.x, height - t.y):
                pdf.text(t.x - pdf.get_string_width(t.s) / 2, height - t.y, t.s)
            pdf.set_text_color(0)
            return
        x = self._left(t)
        if not self.word_gap:
            pdf.text(x, height - t.y, t.s)
            return
        gap = self.word_gap * pdf.get_string_width(" ")
        for w in t.s.split():
            pdf.text(x, height - t.y, w)
            x += pdf.get_string_width(w) + gap
