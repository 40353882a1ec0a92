"""Small statements drawn for tests: lines of positioned words, and the PDF they print.

A cell is `(x, text)`; a negative x right-aligns the text at -x, as statements print
figures. Widths come from the Helvetica metrics reportlab draws with, so `line(...)` gives
the words a page reader would return for `pdf(...)` of the same cells.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from pypdf import PdfWriter
from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from parsers.layout.template import Template, load_template
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

FONT, SIZE = "Helvetica", 9.0
Cell = tuple[float, str]


def words(top: float, *cells: Cell, size: float = SIZE) -> list[Word]:
    out = []
    space = stringWidth(" ", FONT, size)
    for x, text in cells:
        start = -x - stringWidth(text, FONT, size) if x < 0 else x
        for w in text.split():
            width = stringWidth(w, FONT, size)
            out.append(Word(w, start, start + width, top, top + size))
            start += width + space
    return out


def line(top: float, *cells: Cell, page: int = 1, size: float = SIZE) -> Line:
    return Line(page, sorted(words(top, *cells, size=size), key=lambda w: w.x0))


def lines(*rows: tuple[float, list[Cell]], page: int = 1) -> list[Line]:
    return [line(top, *cells, page=page) for top, cells in rows]


def pdf(pages: list[list[tuple[float, list[Cell]]]]) -> bytes:
    """A PDF of `pages`, each a list of (top, cells) lines."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=letter, invariant=1)
    height = letter[1]
    for page in pages:
        c.setFont(FONT, SIZE)
        for top, cells in page:
            y = height - top - SIZE * 0.8
            for x, text in cells:
                if x < 0:
                    c.drawRightString(-x, y, text)
                else:
                    c.drawString(x, y, text)
        c.showPage()
    c.save()
    return buf.getvalue()


def misprinted(pdf: bytes, old: str, new: str) -> bytes:
    """The PDF with `old` printed as `new` wherever its pages draw it."""
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    found = 0
    for page in writer.pages:
        contents = page.get_contents()
        data = contents.get_data()
        found += data.count(old.encode())
        contents.set_data(data.replace(old.encode(), new.encode()))
        page.replace_contents(contents)
    assert found, f"{old!r} is not drawn"
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def template(tmp_path: Path, toml: str, name: str = "teal.toml") -> Template:
    path = tmp_path / name
    path.write_text(textwrap.dedent(toml))
    return load_template(path)


#: A small bank used across the engine tests: day-first dates, money out and in, a balance.
TEAL = """
    bank = "teal"
    name = "Teal Savings Bank"
    currency = "USD"
    locale = "en"

    [detect]
    markers = ["Paid out"]

    [period]
    date_format = "%d %b %Y"

    [table]
    columns = [
      { label = "Date", role = "date" },
      { label = "Details", role = "description" },
      { label = "Paid out", role = "debit" },
      { label = "Paid in", role = "credit" },
      { label = "Balance", role = "balance", optional = true },
    ]
    date_format = "%d %b"
"""
HEAD = [(30, [(50, "TEAL SAVINGS BANK")]),
        (45, [(50, "Statement period: 1 Feb 2026 to 28 Feb 2026")]),
        (60, [(50, "Account No. 12-34-5678")])]
HEADER = [(50, "Date"), (95, "Details"), (-410, "Paid out"), (-480, "Paid in"),
          (-560, "Balance")]
