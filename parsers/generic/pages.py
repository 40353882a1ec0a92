"""Page headers and footers: lines repeated at the same height on most pages."""

from __future__ import annotations

import re

from parsers.dates import fold
from parsers.layout.vocabulary import BALANCE_ROWS, starts_with_label
from parsers.pdf.lines import Line


def clean(lines: list[Line], forms: dict[int, dict[str, int]]) -> list[Line]:
    """The lines a table may hold: none repeated at the same height on most pages above or
    below its page's dated lines and what continues them (a page header or footer; inside
    the table a repeated description is a row). `forms` holds each line's `lead_forms`, by
    id."""
    keep = lines
    if len({ln.page for ln in keep}) < 2:
        return keep
    #: each line's text without its figures, and its height: where a repeated line stands
    #: (a line that starts with a date and prints an amount is a row wherever it stands: a
    #: header or footer prints no dated amount, two pages may print one payment alike)
    keys = [(_digitless(ln.text), round(ln.top / 3)) if not (forms[id(ln)] and _MONEY.search(
        ln.text)) else (ln.text, -id(ln)) for ln in keep]
    seen: dict[tuple[str, int], set[int]] = {}
    for ln, key in zip(keep, keys, strict=True):
        seen.setdefault(key, set()).add(ln.page)
    pages = len({ln.page for ln in keep})
    repeated = max(2, 0.8 * pages)
    band: dict[int, tuple[float, float]] = {}
    for ln, key in zip(keep, keys, strict=True):
        if len(seen[key]) >= repeated:
            continue  # a page header that starts with a date (the period) is not a row
        if forms[id(ln)]:
            top, bottom = band.get(ln.page, (ln.top, ln.bottom))
            band[ln.page] = (min(top, ln.top), max(bottom, ln.bottom))
    for ln, key in zip(keep, keys, strict=True):
        # the band runs on over the lines that continue its last row (not over a line
        # repeated on most pages: a footer set close under the last row)
        top, bottom = band.get(ln.page, (0.0, -1.0))
        if bottom < ln.top <= bottom + 1.6 * max(ln.height, 1.0) + ln.height \
                and len(seen[key]) < repeated:
            band[ln.page] = (top, ln.bottom)
    return [ln for ln, key in zip(keep, keys, strict=True)
            if len(seen[key]) < repeated
            or _within(band.get(ln.page), ln.top) or starts_with_label(ln.text, BALANCE_ROWS)]


#: a figure's decimal part, in any locale (`250.49`, `1.234,56`)
_MONEY = re.compile(r"\d[.,]\d{2}(?!\d)")


def _within(band: tuple[float, float] | None, top: float) -> bool:
    return band is not None and band[0] <= top <= band[1]


def _digitless(text: str) -> str:
    return re.sub(r"\d+", "#", fold(" ".join(text.split())))
