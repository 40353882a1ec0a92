"""Columns of text beside the description that the header names: a reference or cheque
number, a value date (`Chq./Ref.No.`, `Value Dt`). What is printed under them is no part
of the row's description."""

from __future__ import annotations

from parsers.dates import fold
from parsers.generic.found import Table
from parsers.pdf.lines import Line

#: Header words (folded, the first of a label) of a column of references or value dates.
APART = frozenset(("ref", "ref.", "ref.no", "ref.no.", "refno", "reference", "chq", "chq.",
                   "chq./ref.no.", "chq/ref", "cheque", "value", "valuta", "wert",
                   "kenmerk", "referencia", "referência", "documento", "doc", "doc.", "branch"))


def set_apart(lines: list[Line], table: Table) -> None:
    """Take out of each row's description the words its own line prints under a header
    label of `APART` that stands right of the description and left of the figures."""
    if not table.rows or not table.rows[0].desc:
        return
    first = table.rows[0]
    header = _header(lines, first.line)
    desc_x0 = next((w.x0 for w in first.line.words if w.text == first.desc[0]), None)
    figures_x0 = min((t.x0 for r in table.rows for t in r.figures.values()), default=None)
    if header is None or desc_x0 is None or figures_x0 is None:
        return
    labels = _labels(header)
    slack = max(w.bottom - w.top for w in header.words)  # a word may start a letter left
    spans = [(x0 - slack, labels[k + 1][1] - slack if k + 1 < len(labels) else figures_x0)
             for k, (word, x0) in enumerate(labels)
             if word in APART and desc_x0 + 10 < x0 < figures_x0]
    if not spans:
        return
    for row in table.rows:
        for w in row.line.words:
            if w.x1 <= figures_x0 and any(a <= w.x0 < b for a, b in spans) and w.text in row.desc:
                row.desc.remove(w.text)


def _header(lines: list[Line], first: Line) -> Line | None:
    """The line of column labels right above the first row (within three lines)."""
    i = next(k for k, ln in enumerate(lines) if ln is first)
    for ln in reversed(lines[max(0, i - 3):i]):
        if ln.page == first.page and any(fold(w.text) in APART for w in ln.words):
            return ln
    return None


def _labels(header: Line) -> list[tuple[str, float]]:
    """The header's labels left to right, as (the first word folded, where it starts): words
    closer than about half a letter's height are one label (`Value Dt`)."""
    out: list[tuple[str, float]] = []
    prev = None
    for w in header.words:
        if prev is None or w.x0 - prev.x1 > 0.6 * (w.bottom - w.top):
            out.append((fold(w.text), w.x0))
        prev = w
    return out
