"""Descriptions parted where PDFium's text parts their words.

The word reader parts words as pdfplumber does: characters less than 1.5 pt apart are one
word, which keeps a figure drawn in pieces (`-` `2051`, `1 234` `,56`) whole. PDFium's text
page parts them by its own measure (a space or line break of its own between two drawings,
weighed by the font), and where the two differ inside a description, PDFium's is what the
page shows: a visible gap too narrow for the tolerance (`Cardarelli 54313097145`), or glyphs
of a stand-in font of other widths colliding (`RESTAURANTLA`, printed `RESTAURANT LA`). A
description changes no figure, so it takes PDFium's parting; figures, dates and labels keep
the word reader's. The words come with the pages (`Page.parted`, noted as they are read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from parsers.model import Statement
from parsers.pdf.page import Page


def part_descriptions(pages: Sequence[Page], statement: Statement, read_from: set[int]
                      ) -> int:
    """Give each description word the reader joined across a break of PDFium's the words
    PDFium parts it into, on the pages rows were read from (`read_from`; every page when
    empty); how many descriptions changed."""
    parted: dict[str, str] = {}
    for p in pages:
        if not read_from or p.number in read_from:
            parted.update(p.parted)
    if not parted:
        return 0
    changed = 0
    for account in statement.accounts:
        for i, t in enumerate(account.transactions):
            text = " ".join(parted.get(w, w) for w in t.description.split(" "))
            if text != t.description:
                account.transactions[i] = replace(t, description=text)
                changed += 1
    return changed
