"""Where a row of a table no template describes starts: the date its line's first words print.

Every line is asked this, for every date form, before anything else is known of the table:
the question is answered once per line (`lead_forms`), and refused by a single regex for most
lines, so that reading a statement's rows costs a pass over its lines, not one per form.
"""

from __future__ import annotations

import functools
import re
from datetime import date

from parsers.dates import compile_format, parse_date
from parsers.pdf.lines import Line

#: Row date forms tried, years first (a form with a year wins a tie with its yearless one).
DATE_FORMATS = ("%d.%m.%Y", "%d.%m.%y", "%Y-%m-%d", "%d-%b-%Y", "%d %b %Y", "%d. %b %Y",
                "%b %d, %Y", "%b %d %Y", "%m/%d/%Y", "%d/%m/%Y", "%m/%d/%y", "%d/%m/%y",
                "%d-%m-%Y", "%d-%m-%y", "%d-%b-%y", "%d %b %y", "%d.%m.", "%d %b", "%b %d",
                "%d-%b", "%m/%d", "%d/%m", "%d-%m", "%m-%d")
#: The period end a yearless date takes its year from when it is only asked whether it
#: names a day at all (the statement's period is not known yet).
FAR = date(2400, 12, 31)


def leading(ln: Line) -> list[tuple[int, str]]:
    """(n, the text of the line's first n words) for n = 3, 2, 1 where a word follows them:
    where a row's date stands, made once for all the date forms a line is tried in."""
    words, ends, end = ln.words, [], -1
    for w in words[:3]:
        end += len(w.text) + 1
        ends.append(end)
    # (each a start of the line's text, which is its words joined by a space: sliced, as
    # slicing costs less than joining the words again)
    return [(n, ln.text[:ends[n - 1]]) for n in (3, 2, 1) if len(words) > n]


@functools.cache
def _any_date() -> re.Pattern[str]:
    """Every date form's regex as one: text it does not read is a date in none of them.
    Where it reads no start of a line's text, none of the line's first words print a date
    (they are a start of it): most lines are refused by one regex call, not nineteen per
    word. (Made on first use: a process that reads no statement without a template never
    compiles it.)"""
    return re.compile("|".join(f"(?:{compile_format(f).pattern})" for f in DATE_FORMATS),
                      re.IGNORECASE)


def lead_forms(ln: Line) -> dict[str, int]:
    """Each of `DATE_FORMATS` the line's first words print a date in -> how many of them
    do (the most, as `leading` tries them): a line's leading date, read once for every
    form."""
    out: dict[str, int] = {}
    any_date = _any_date()
    if any_date.match(ln.text) is None:
        return out
    for n, text in leading(ln):
        if any_date.fullmatch(text):
            for f in _date_forms(text):
                out.setdefault(f, n)
    return out


def starts_with_date(ln: Line) -> bool:
    """Whether the line's first words, or all of it, print a date in one of `DATE_FORMATS`."""
    if _any_date().match(ln.text) is None:
        return False
    return any(_date_forms(" ".join(w.text for w in ln.words[:n])) for n in (3, 2, 1)
               if len(ln.words) >= n)


@functools.lru_cache(maxsize=4096)
def _date_forms(text: str) -> tuple[str, ...]:
    """The forms of `DATE_FORMATS` that read `text` as a day; kept, as a statement prints
    the same day on many rows."""
    out = []
    for f in DATE_FORMATS:
        if compile_format(f).regex.fullmatch(text):
            try:
                parse_date(text, f, FAR)
            except ValueError:
                continue
            out.append(f)
    return tuple(out)

