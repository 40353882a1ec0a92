"""Dates as printed on statements: explicit formats, CLDR month names, never a guess.

A format is strptime-like: `%d` (1 or 2 digits, an ordinal suffix allowed: `12th`, `1er`),
`%m`, `%Y`, `%y` (20yy, never 19yy), `%b`/`%B` (any month name or abbreviation in the
supported languages, any case, with or without its dot: `Feb`, `MÄRZ`, `mars`, `Sept.`),
`%a`/`%A` (a weekday name, which must agree with the date), and literal text (a space
matches any run of spaces, a comma may be left out). Month and weekday names come from CLDR
through babel; dateparser was not used because it guesses (relative dates, day/month order,
fuzzy words), which a statement reader must not do.

A format without a year is yearless: the year is the latest that puts the date on or before
the end of the statement period, so a December row of a January statement is last year's.
A format without a day (`%B %Y`) names a whole month: a statement period, never a date.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

#: Languages whose month and weekday names every date format reads.
LANGUAGES = ("en", "de", "de_AT", "fr", "es", "pt", "nl", "it")


class _Folded(dict[int, str]):
    """Character -> its folded form (lower case, accent dropped), filled as text is folded."""

    def __missing__(self, code: int) -> str:
        c = chr(code)
        low = c.lower() if len(c.lower()) == 1 else c
        base = unicodedata.normalize("NFKD", low)
        out = base[0] if base and not unicodedata.combining(base[0]) else low
        self[code] = out
        return out


_FOLDED = _Folded()


def fold(text: str) -> str:
    """Lower case without accents, one character for one (`MÄRZ` -> `marz`), so that a
    match in the folded text is at the same place in the printed one."""
    return text.lower() if text.isascii() else text.translate(_FOLDED)


def _names(kind: str) -> tuple[dict[str, int], dict[str, int]]:
    """(every CLDR name -> number, every wide name -> number) over `LANGUAGES`."""
    from babel import Locale

    exact: dict[str, set[int]] = {}
    wide: dict[str, set[int]] = {}
    for lang in LANGUAGES:
        loc = Locale.parse(lang)
        table = loc.months if kind == "month" else loc.days
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in table[context][width].items():
                    key = fold(name).rstrip(".")
                    exact.setdefault(key, set()).add(number)
                    if width == "wide":
                        wide.setdefault(key, set()).add(number)
    clash = {k: v for k, v in exact.items() if len(v) > 1}
    if clash:  # pragma: no cover - a property of the CLDR data, pinned by a test
        raise RuntimeError(f"{kind} names mean different things across languages: {clash}")
    return ({k: v.pop() for k, v in exact.items()}, {k: min(v) for k, v in wide.items()})


@functools.cache
def month_names() -> dict[str, int]:
    """Folded month name -> 1..12: CLDR names and every unambiguous prefix of 3+ letters."""
    exact, wide = _names("month")
    table = dict(exact)
    prefixes: dict[str, set[int]] = {}
    for name, number in wide.items():
        for n in range(3, len(name) + 1):
            prefixes.setdefault(name[:n], set()).add(number)
    for prefix, numbers in prefixes.items():
        if len(numbers) == 1 and prefix not in table:
            table[prefix] = next(iter(numbers))
    return table


@functools.cache
def weekday_names() -> dict[str, int]:
    """Folded weekday name -> 0 (Monday) .. 6, as `date.weekday()` numbers them."""
    exact, _ = _names("day")
    return exact


_DIRECTIVES = {
    "d": r"(?P<d>\d{1,2})(?:st|nd|rd|th|er)?",
    "m": r"(?P<m>\d{1,2})",
    "Y": r"(?P<Y>\d{4})",
    "y": r"(?P<y>\d{2})",
    "b": r"(?P<b>[^\W\d_]{3,}\.?)",
    "B": r"(?P<b>[^\W\d_]{3,}\.?)",
    "a": r"(?P<a>[^\W\d_]{2,}\.?)",
    "A": r"(?P<a>[^\W\d_]{2,}\.?)",
}


@dataclass(frozen=True)
class DateFormat:
    fmt: str
    #: The regex fragment (no groups) that finds a date of this format in text.
    pattern: str
    regex: re.Pattern[str]
    has_year: bool
    #: False for a month format (`%B %Y`), which names a whole month, never a date.
    has_day: bool = True


@functools.cache
def compile_format(fmt: str) -> DateFormat:
    """The format's regexes; ValueError for a directive this reader does not support."""
    parts, seen, i = [], set(), 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%":
            d = fmt[i + 1] if i + 1 < len(fmt) else ""
            if d == "%":
                parts.append("%")
            elif d in _DIRECTIVES:
                group = _DIRECTIVES[d]
                named = re.search(r"\?P<(\w)>", group)
                name = named.group(1) if named else d
                if name in seen:
                    raise ValueError(f"date format {fmt!r} repeats %{d}")
                seen.add(name)
                parts.append(group)
            else:
                raise ValueError(f"date format {fmt!r}: %{d} is not supported "
                                 f"(use %d %m %y %Y %b %B %a %A)")
            i += 2
            continue
        if c.isspace():
            parts.append(r"\s*")
            while i + 1 < len(fmt) and fmt[i + 1].isspace():
                i += 1
        elif c == ",":
            parts.append(r",?")
        else:
            parts.append(re.escape(c))
        i += 1
    has_year = bool({"Y", "y"} & seen)
    if not ({"m", "b"} & seen) or ("d" not in seen and not has_year):
        raise ValueError(f"date format {fmt!r} needs a day (%d) and a month (%m or %b), "
                         f"or a month and a year (a whole month)")
    body = "".join(parts)
    return DateFormat(fmt, re.sub(r"\?P<\w>", "?:", body),
                      re.compile(body, re.IGNORECASE), has_year, "d" in seen)


def is_yearless(fmt: str) -> bool:
    return not compile_format(fmt).has_year


def is_month(fmt: str) -> bool:
    """A format of a whole month (`%B %Y`: no day)."""
    return not compile_format(fmt).has_day


def parse_month(text: str, formats: str | Sequence[str]) -> tuple[date, date]:
    """The first and last day of the month `text` prints in one of the month `formats`."""
    fmts = [formats] if isinstance(formats, str) else list(formats)
    t = " ".join(text.split())
    for fmt in fmts:
        f = compile_format(fmt)
        m = f.regex.fullmatch(t) if not f.has_day else None
        if m is None:
            continue
        g = m.groupdict()
        month = month_names().get(fold(g["b"]).rstrip(".")) if g.get("b") else int(g["m"])
        if month is None or not 1 <= month <= 12:
            continue
        year = int(g["Y"]) if g.get("Y") else 2000 + int(g["y"])
        following = date(year + month // 12, month % 12 + 1, 1)
        return date(year, month, 1), following - timedelta(days=1)
    raise ValueError(f"{text!r} is not a month in {fmts}")


def date_pattern(formats: str | Sequence[str]) -> str:
    """A regex fragment that finds a date of any of `formats` in text (`{DATE}`)."""
    fmts = [formats] if isinstance(formats, str) else list(formats)
    body = "|".join(compile_format(f).pattern for f in fmts)
    return rf"(?<![\w.])(?i:{body})(?![\w]|[./-]\d)"


def parse_date(text: str, formats: str | Sequence[str], period_end: date | None = None) -> date:
    """The date `text` prints in the first of `formats` that reads it; ValueError if none.

    A yearless date takes its year from `period_end` (see the module docstring).
    """
    fmts = [formats] if isinstance(formats, str) else list(formats)
    t = " ".join(text.split())
    errors: list[str | DateFormat] = []
    for fmt in fmts:
        try:
            f = compile_format(fmt)
            m = f.regex.fullmatch(t) if f.has_day else None
            if m is not None:
                return _read(t, m, period_end)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        errors.append(f)  # most texts tried are no date: the reason is worded only when told
    if len(errors) == 1:
        raise ValueError(errors[0] if isinstance(errors[0], str) else _unread(t, errors[0]))
    raise ValueError(f"{text!r} is in none of {fmts}")


def _unread(text: str, f: DateFormat) -> str:
    """Why `text` is no date in `f` when the format's regex does not read it."""
    return (f"{text!r} is not a date in {f.fmt!r}" if f.has_day
            else f"{f.fmt!r} is a month, not a date")


def _read(text: str, m: re.Match[str], period_end: date | None) -> date:
    """The date a format's regex `m` read in `text`; ValueError if there is no such day."""
    g = m.groupdict()
    day = int(g["d"])
    if g.get("b"):
        month = month_names().get(fold(g["b"]).rstrip("."))
        if month is None:
            raise ValueError(f"{g['b']!r} is not a month name")
    else:
        month = int(g["m"])
    if g.get("Y"):
        when = date(int(g["Y"]), month, day)
    elif g.get("y"):
        when = date(2000 + int(g["y"]), month, day)
    else:
        when = _yearless(text, month, day, period_end)
    if g.get("a"):
        weekday = weekday_names().get(fold(g["a"]).rstrip("."))
        if weekday != when.weekday():
            raise ValueError(f"{text!r}: {g['a']!r} is not the weekday of {when}")
    return when


def _yearless(text: str, month: int, day: int, period_end: date | None) -> date:
    if period_end is None:
        raise ValueError(f"date {text!r} has no year and no statement period")
    date(2000, month, day)  # a leap year: refuses 31/02 but lets 29/02 through to below
    # The year is the one that puts the day on or before the period's end; a day that year
    # does not have (29/02 of 2022) is a misprint, never a day of another year.
    late = (month, day) > (period_end.month, period_end.day)
    year = period_end.year - late
    try:
        return date(year, month, day)
    except ValueError:
        raise ValueError(f"date {text!r} does not exist in {year}") from None
