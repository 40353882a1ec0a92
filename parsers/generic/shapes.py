"""What a line of a table no template describes is shaped as: a header, a check's row, a
daily balance, a date range, a value date on its own, more description.

Each is a question about one line (or two lines' places), asked by the row reader and by
the search for the table; kept apart from both so that each reads as the sequence of
questions it asks.
"""

from __future__ import annotations

import re

from parsers.dates import compile_format, fold, parse_date
from parsers.generic.found import Table
from parsers.generic.leads import FAR
from parsers.generic.words import HEADER_WORDS
from parsers.layout.tokens import Token, tokens
from parsers.layout.vocabulary import PERIOD_TO
from parsers.pdf.lines import Line

#: The time of day printed after a row's date.
_TIME = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:[AaPp][Mm])?")
_TIME_GLUED = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?=[A-Za-z]{2})(?![AaPp][Mm]\b)")
#: A check's number, or the mark beside it (`1234`, `XXXX`, `^`, `*`).
_REFERENCE = re.compile(r"[\dXx*#^•-]+|[^\w\s]")


def paid_date(words: list[Token], fmt: str) -> int | None:
    """Where the date starts on a line of a check register (a number, a mark, then the date
    it was paid and nothing more before the figures); None on any other line."""
    regex = compile_format(fmt).regex
    for i in (1, 2, 3):
        date_text = " ".join(t.text for t in words[i:])
        if len(words) - i > 3 or not all(_REFERENCE.fullmatch(t.text) for t in words[:i]):
            continue
        if regex.fullmatch(date_text):
            try:
                parse_date(date_text, fmt, FAR)
            except ValueError:
                return None
            return i
    return None


def day_pairs(ln: Line, fmt: str, locale: str) -> list[tuple[str, Token]]:
    """The (date, balance) pairs a line of a daily balance list prints, and nothing else;
    empty for any other line."""
    regex = compile_format(fmt).regex
    toks, out, i = tokens(ln, locale), [], 0
    while i < len(toks):
        for n in (1, 2, 3):
            text = " ".join(t.text for t in toks[i:i + n])
            if i + n < len(toks) and regex.fullmatch(text) and toks[i + n].amount is not None:
                out.append((text, toks[i + n]))
                i += n + 1
                break
        else:
            return []
    return out


def is_header(ln: Line) -> bool:
    """A line of column header words only (`DATE` over `PAID`, `Date Description Amount`)."""
    return all(fold(w.text).strip(":$€£()*/") in HEADER_WORDS for w in ln.words)



def date_range(words: list[Token], fmt: str) -> bool:
    """Whether the words after a line's date end a range of dates (`bis 31.12.2021`): a
    period printed in the table's place, no row."""
    regex = compile_format(fmt).regex
    rest = [t.text for t in words if fold(t.text) not in PERIOD_TO]
    return bool(rest) and len(rest) < len(words) and all(regex.fullmatch(t) for t in rest)



def shaped_like_a_date(ln: Line, fmt: str) -> str:
    """The line's first words where they have the form of a date in `fmt` (which
    `lead_forms` did not read as one: no such day), else ""."""
    regex = compile_format(fmt).regex
    for n in (3, 2, 1):
        text = " ".join(w.text for w in ln.words[:n])
        if len(ln.words) > n and regex.fullmatch(text):
            return text
    return ""


def only_dates(ln: Line, fmt: str) -> bool:
    regex = compile_format(fmt).regex
    return all(regex.fullmatch(w.text) for w in ln.words)


def drop_second_date(words: list[Token], fmt: str) -> list[Token]:
    """The words after a row's date, a second date (posting or value date) and the time
    of day (`13 Apr 26 03:49`, `10:15 PM`) left out."""
    regex = compile_format(fmt).regex
    i = 0
    while i < len(words) and i < 2 and regex.fullmatch(words[i].text):
        i += 1
    if i < len(words) and _TIME.fullmatch(words[i].text):
        i += 1
        if i < len(words) and words[i].text.upper() in ("AM", "PM"):
            i += 1
    elif i < len(words) and (glued := _TIME_GLUED.match(words[i].text)):
        # the time run into the description's first word (`02:35FUEL`): no gap was drawn
        return [words[i]._replace(text=words[i].text[glued.end():]), *words[i + 1:]]
    return words[i:]


def follows(last: Line, ln: Line) -> bool:
    """`ln` is the next line under `last` (same page, at most about a line apart)."""
    if ln.page != last.page:
        return ln.page == last.page + 1
    return ln.top - last.bottom <= 1.6 * max(last.height, 1.0)



def left_of_figures(ln: Line, table: Table) -> bool:
    """Words of a continuation stay in the description's span, left of the figures."""
    first = min(table.columns) if table.columns else float("inf")
    return ln.words[-1].x1 < first - 20
