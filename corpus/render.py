"""Laying out statements: pages, repeated table headers, wrapped cells, page furniture.

A bank's renderer describes its page header, its columns and its rows; `Sheet` does the
page breaks (repeating the bank's page header and the table header, and, where the variant
asks, printing balance carried/brought forward rows and page furniture) so that every layout
breaks across pages the way real statements do. What is drawn is kept as a display list and
written at the end by the variant's pen, so a footer can say "Page 2 of 3".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from reportlab.lib.pagesizes import A4, letter

from corpus.pens import Fpdf2Pen, Pen, ReportlabPen, Text
from corpus.variant import PLAIN, Variant

FONTS = [("Helvetica", "Helvetica-Bold"), ("Times-Roman", "Times-Bold"),
         ("Courier", "Courier-Bold")]
PAGE_SIZES = {"letter": letter, "a4": A4}
BOTTOM = 60.0


@dataclass(frozen=True)
class Col:
    label: str
    x: float
    align: str = "left"  # "left": x is the left edge; "right": x is the right edge
    width: float = 0.0  # wrap width for text columns
    key: str = ""  # "balance" marks the running balance column


@dataclass(frozen=True)
class Furniture:
    """What a bank prints as page furniture, drawn when the variant asks for it."""

    footer: str = "Member FDIC."
    continued: str = "Continued on page {next}"
    page_of: str = "Page {n} of {total}"
    watermark: str = "COPY"
    repeated: str = ""


#: cells of a balance carried forward ("carried") or brought forward ("brought") row
CarryRow = Callable[[str, Decimal], list[str]]


def make_pen(variant: Variant, font: tuple[str, str]) -> Pen:
    if variant.producer == "fpdf2":
        return Fpdf2Pen(font, variant.embedded_font, variant.char_spacing, variant.word_gap,
                        variant.by_column)
    return ReportlabPen(font)


class Sheet:
    """A multi-page document with a cursor, a font and a page-header callback."""

    def __init__(self, page: str, font: tuple[str, str], size: float,
                 page_header: Callable[[Sheet, int], None], footer: str = "Page {n}",
                 variant: Variant = PLAIN, furniture: Furniture | None = None,
                 pen: Pen | None = None) -> None:
        self.width, self.height = PAGE_SIZES[page]
        self.variant = variant
        self.pen = pen or make_pen(variant, font)
        self.furniture = furniture or Furniture()
        # Vera is about a tenth wider than the standard fonts: keep the same line lengths
        self.size = round(size * 0.9, 2) if variant.embedded_font else size
        self.leading = self.size * 1.45
        self.pages: list[list[Text]] = [[]]
        self.y = self.height - 50
        self._page_header = page_header
        self._footer = footer
        self.table: list[Col] | None = None
        self.carry: CarryRow | None = None
        self.running: Decimal | None = None
        #: the variations that actually reached the page (a break in a table, furniture)
        self.drawn: set[str] = set()
        page_header(self, 1)

    @property
    def page(self) -> int:
        return len(self.pages)

    def text(self, x: float, s: str, bold: bool = False, align: str = "left",
             size: float | None = None) -> None:
        if s:
            self.pages[-1].append(Text(x, self.y, s, bold, size or self.size, align))

    def line(self, *parts: tuple[float, str], bold: bool = False, gap: float = 1.0) -> None:
        """One printed line: (x, text) pairs; negative x means right-aligned at -x."""
        self.ensure(1)
        for x, s in parts:
            self.text(abs(x), s, bold=bold, align="right" if x < 0 else "left")
        self.y -= self.leading * gap

    def skip(self, lines: float = 1.0) -> None:
        self.y -= self.leading * lines

    def ensure(self, lines: int) -> None:
        """Start a new page unless `lines` more lines fit on this one."""
        if self.y - lines * self.leading < BOTTOM:
            self.new_page()

    def new_page(self) -> None:
        in_table = self.table is not None
        if in_table and self.carry and self.running is not None:
            self._cells(self.carry("carried", self.running))
            self.drawn.add("carry-rows")
        if in_table and "continued" in self.variant.furniture:
            self.text(50, self.furniture.continued.format(next=self.page + 1), size=self.size - 1)
            self.y -= self.leading
            self.drawn.add("furniture:continued")
        self._end_page()
        self.pages.append([])
        self.y = self.height - 50
        self._page_header(self, self.page)
        if self.table is not None:
            self._header_row(self.table)
            if self.furniture.repeated and "repeated-header" in self.variant.furniture:
                self.text(50, self.furniture.repeated, size=self.size - 1)
                self.y -= self.leading
                self.drawn.add("furniture:repeated-header")
            if self.carry and self.running is not None:
                self._cells(self.carry("brought", self.running))

    def _end_page(self) -> None:
        """Page furniture: a footer line under the last row, a watermark across the page."""
        small = self.size - 1
        if "footer" in self.variant.furniture:
            self.pages[-1].append(Text(50, max(self.y - 0.3 * self.leading, 44),
                                       self.furniture.footer, False, small))
            self.drawn.add("furniture:footer")
        if "watermark" in self.variant.furniture:
            # under the text, as a watermark is: drawn first
            self.pages[-1].insert(0, Text(self.width / 2, self.height / 2,
                                          self.furniture.watermark, True, 90, "center",
                                          angle=35, gray=0.88))
            self.drawn.add("furniture:watermark")

    def table_header(self, cols: list[Col], carry: CarryRow | None = None,
                     opening: Decimal | None = None) -> None:
        """Start a table; with `carry`, page breaks print carried/brought forward rows."""
        self.table = cols
        self.carry = carry if self.variant.carry_rows else None
        self.running = opening
        self.ensure(2)
        self._header_row(cols)

    def _header_row(self, cols: list[Col]) -> None:
        v = self.variant
        for c in cols:
            if c.key == "balance" and v.missing_header:
                continue
            x, align = c.x, c.align
            if c.align == "right" and v.header_align == "left":
                # starts over the figures, yet never runs past its column into the next one
                width = self.pen.width(v.cased(c.label), True, self.size)
                x = min(c.x - 0.8 * self.pen.width("0,000.00", False, self.size), c.x - width)
                align = "left"
            elif c.align == "right" and v.header_align == "center":
                x, align = c.x - 0.4 * self.pen.width("0,000.00", False, self.size), "center"
            elif v.header_align == "shifted":
                x = c.x + v.header_shift
            self.text(x, v.cased(c.label), bold=True, align=align)
        self.y -= self.leading

    def _cells(self, cells: list[str]) -> None:
        for c, s in zip(self.table or [], cells, strict=True):
            if s:
                self.text(c.x, s, align=c.align)
        self.y -= self.leading

    def row(self, cells: list[str], wrapped: list[str] | None = None,
            running: Decimal | None = None) -> None:
        """A table row; `wrapped` are the continuation lines of the description column and
        `running` the account's balance after it (printed or not)."""
        if self.table is None:
            raise RuntimeError("a row outside a table")
        extra = wrapped or []
        if self.variant.centred:
            self._centred(cells, extra)
        else:
            self.ensure(1 + len(extra) + self._reserve())
            self._cells(cells)
            desc = next(c for c in self.table if c.width)
            for s in extra:
                self.text(desc.x, s)
                self.y -= self.leading
        if running is not None:
            self.running = running

    def _centred(self, cells: list[str], wrapped: list[str]) -> None:
        """A row as a web page's table prints it: its cells centred down the row, so that
        the date and figures stand beside the middle line of a description of several
        lines, with padding between rows wider than the space between a cell's lines."""
        table = self.table or []
        desc = next(c for c in table if c.width)
        text = [cells[table.index(desc)], *wrapped]
        middle = (len(text) - 1) // 2
        self.ensure(len(text) + 1 + self._reserve())
        self.y -= 0.3 * self.leading  # the cell's top padding
        for k, line in enumerate(text):
            if k == middle:
                for c, cell in zip(table, cells, strict=True):
                    if c is not desc and cell:
                        self.text(c.x, cell, align=c.align)
            self.text(desc.x, line)
            self.y -= self.size * 1.15
        self.y -= 0.3 * self.leading  # the cell's bottom padding

    def _reserve(self) -> int:
        """Lines kept free under a row for what a page break inside the table prints."""
        return ((1 if self.carry else 0) + ("continued" in self.variant.furniture)
                + ("footer" in self.variant.furniture))

    def end_table(self) -> None:
        self.table = None
        self.carry = None

    def wrap(self, text: str, width: float, max_lines: int = 3) -> list[str]:
        """Split `text` into at most `max_lines` lines that fit `width` in the current font."""
        words, lines, current = text.split(), [], ""
        for w in words:
            trial = f"{current} {w}".strip()
            if self.pen.width(trial, False, self.size) <= width or not current:
                current = trial
            else:
                lines.append(current)
                current = w
        lines.append(current)
        if len(lines) > max_lines:
            raise ValueError(f"description too long for {max_lines} lines: {text!r}")
        return lines

    def finish(self) -> bytes:
        self._end_page()
        total = len(self.pages)
        footer = (self.furniture.page_of if "page-of" in self.variant.furniture
                  else self._footer)
        if "page-of" in self.variant.furniture:
            self.drawn.add("furniture:page-of")
        for n, ops in enumerate(self.pages, start=1):
            ops.append(Text(50, 30, footer.format(n=n, total=total), False, self.size - 1))
        return self.pen.write(self.pages, (self.width, self.height))
