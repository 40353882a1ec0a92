"""A table row's date as it is printed, and as OCR may misprint it.

Stray punctuation a scan leaves at either end is forgiven, and (on a scanned row with its
figures) a date whose digits OCR read as their look-alike letters is read, doubted.
"""

from __future__ import annotations

import functools
from datetime import date

from parsers.dates import parse_date

_STRAY = " .,;:|_~»«'`\""


@functools.lru_cache(maxsize=4096)
def reads_date(text: str, formats: tuple[str, ...], period_end: date) -> bool:
    """Whether `text` reads as a row's date (`row_date`), kept."""
    try:
        row_date(text, formats, period_end)
    except ValueError:
        return False
    return True


#: Letters OCR reads for the digit they look like, in a word that holds a digit.
_AS_DIGIT = str.maketrans("IlOo|", "11001")


def as_digits(text: str, formats: tuple[str, ...], period_end: date) -> date | None:
    """The date `text` reads once the look-alike letters of its words that hold a digit are
    digits (`May I1`, `O3/12`), or None: a row's figures say it is a row, and its date so
    read is doubted, for the dates read confidently around it to pin or not."""
    folded = " ".join(w.translate(_AS_DIGIT) if any(c.isdigit() for c in w) else w
                      for w in text.split())
    if folded == text:
        return None
    try:
        return row_date(folded, formats, period_end)
    except ValueError:
        return None


def row_date(text: str, formats: tuple[str, ...], period_end: date) -> date:
    """The row's date; stray punctuation a scan leaves at either end is forgiven. Readings
    are kept (a statement prints each day on several rows, and its period's days again)."""
    try:
        return parse_date(text, formats, period_end)
    except ValueError:
        return parse_date(text.strip(_STRAY), formats, period_end)
