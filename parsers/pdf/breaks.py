"""Descriptions whose word breaks the two readings of the page disagree on.

The word reader parts words as pdfplumber does: characters less than 1.5 pt apart are one
word. PDFium's text page parts them by its own measure (a space or line break of its own
between two drawings, weighed by the font). On a sound page the two agree wherever a
statement's rows are; they part ways where the file's glyphs no longer stand where its
drawing places them: a font the page does not define (drawn in a stand-in of other widths,
its words colliding), a character edited into a wider one. Then one reading holds a word
the other holds as two (`RESTAURANTLA`, printed `RESTAURANT LA`), and neither can say which
the page shows. A figure keeps its digits either way (the figures' check is
`crosscheck.py`'s); a description does not, so one holding such a word is not validated
silently: it goes to review with the word named. The words come with the pages
(`Page.parted`, noted as they are read): the check is a set lookup per description word.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.model import Statement
from parsers.pdf.page import Page

#: The most doubted words named in the problem.
_SHOWN = 3


def doubted_breaks(pages: Sequence[Page], statement: Statement,
                   read_from: set[int]) -> list[str]:
    """A problem when a description holds a word the word reader joined where PDFium's
    text parts it, on a page rows were read from (`read_from`; every page when empty)."""
    parted = set().union(*(p.parted for p in pages if not read_from or p.number in read_from))
    if not parted:
        return []
    doubted = list(dict.fromkeys(
        w for a in statement.accounts for t in a.transactions
        for w in t.description.split() if w in parted))
    if not doubted:
        return []
    shown = ", ".join(repr(w) for w in doubted[:_SHOWN])
    more = f" and {len(doubted) - _SHOWN} more" if len(doubted) > _SHOWN else ""
    return [f"descriptions hold {len(doubted)} word(s) PDFium's text parts in two where the "
            f"word reader reads one ({shown}{more}): where their words break is in doubt"]
