"""Drawing statements with reportlab: pages, repeated table headers, wrapped cells.

A bank's renderer describes its page header, its columns and its rows; `Sheet` does the
page breaks (repeating the bank's page header and the table header) so that every layout
breaks across pages the way real statements do.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

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


class Sheet:
    """A multi-page document with a cursor, a font and a page-header callback."""

    def __init__(self, page: str, font: tuple[str, str], size: float,
                 page_header: Callable[[Sheet, int], None], footer: str = "Page {n}") -> None:
        self.buf = io.BytesIO()
        self.width, self.height = PAGE_SIZES[page]
        self.canvas = Canvas(self.buf, pagesize=(self.width, self.height), invariant=1)
        self.font, self.bold = font
        self.size = size
        self.leading = size * 1.45
        self.page = 1
        self.y = self.height - 50
        self._page_header = page_header
        self._footer = footer
        self.table: list[Col] | None = None
        page_header(self, 1)

    def text(self, x: float, s: str, bold: bool = False, align: str = "left",
             size: float | None = None) -> None:
        font = self.bold if bold else self.font
        self.canvas.setFont(font, size or self.size)
        if align == "right":
            self.canvas.drawRightString(x, self.y, s)
        else:
            self.canvas.drawString(x, self.y, s)

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

    def _draw_footer(self) -> None:
        self.canvas.setFont(self.font, self.size - 1)
        self.canvas.drawString(50, 30, self._footer.format(n=self.page))

    def new_page(self) -> None:
        self._draw_footer()
        self.canvas.showPage()
        self.page += 1
        self.y = self.height - 50
        self._page_header(self, self.page)
        if self.table is not None:
            self.table_header(self.table)

    def table_header(self, cols: list[Col]) -> None:
        self.table = cols
        self.ensure(2)
        for c in cols:
            self.text(c.x, c.label, bold=True, align=c.align)
        self.y -= self.leading

    def row(self, cells: list[str], wrapped: list[str] | None = None) -> None:
        """A table row; `wrapped` are the continuation lines of the description column."""
        assert self.table is not None
        extra = wrapped or []
        self.ensure(1 + len(extra))
        for c, s in zip(self.table, cells, strict=True):
            if s:
                self.text(c.x, s, align=c.align)
        self.y -= self.leading
        desc = next(c for c in self.table if c.width)
        for s in extra:
            self.text(desc.x, s)
            self.y -= self.leading

    def end_table(self) -> None:
        self.table = None

    def wrap(self, text: str, width: float, max_lines: int = 3) -> list[str]:
        """Split `text` into at most `max_lines` lines that fit `width` in the current font."""
        words, lines, current = text.split(), [], ""
        for w in words:
            trial = f"{current} {w}".strip()
            if stringWidth(trial, self.font, self.size) <= width or not current:
                current = trial
            else:
                lines.append(current)
                current = w
        lines.append(current)
        if len(lines) > max_lines:
            raise ValueError(f"description too long for {max_lines} lines: {text!r}")
        return lines

    def finish(self) -> bytes:
        self._draw_footer()
        self.canvas.save()
        return self.buf.getvalue()
