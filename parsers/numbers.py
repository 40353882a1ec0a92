"""Amounts and dates as printed on statements, read without floats or guesses.

Amounts: thousands separators and decimal marks per locale, a leading or trailing minus,
parentheses, currency marks, and a `CR`/`DR` suffix reported separately so that each layout
applies its own sign convention. Dates: explicit formats; a date printed without a year
takes the latest year that puts it on or before the end of the statement period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class NumberLocale:
    decimal: str
    group: str


LOCALES = {"en": NumberLocale(".", ","), "de": NumberLocale(",", ".")}

_CURRENCY = re.compile(r"(?:US\$|\$|€|EUR|USD)", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*(CR|DR)\.?$", re.IGNORECASE)


def amount_pattern(locale: str = "en") -> str:
    """A regex fragment matching one printed amount in `locale` (used by templates)."""
    loc = LOCALES[locale]
    d, g = re.escape(loc.decimal), re.escape(loc.group)
    return rf"\(?-?(?:\$|€)?\s?\d{{1,3}}(?:{g}\d{{3}})*{d}\d{{2}}-?\)?(?:\s?(?:CR|DR|Cr|Dr)\.?)?"


def parse_amount(text: str, locale: str = "en") -> tuple[Decimal, str]:
    """Return (value, suffix): the signed value as printed and any `CR`/`DR` suffix.

    Raises ValueError when the text is not exactly one amount in `locale`.
    """
    loc = LOCALES[locale]
    s = text.strip()
    suffix = ""
    m = _SUFFIX.search(s)
    if m:
        suffix = m.group(1).upper()
        s = s[: m.start()]
    negative = False
    s = _CURRENCY.sub("", s).replace(" ", "")
    if s.startswith("(") and s.endswith(")"):
        negative, s = True, s[1:-1]
    if s.startswith("-"):
        negative, s = not negative, s[1:]
    elif s.endswith("-"):
        negative, s = not negative, s[:-1]
    s = _CURRENCY.sub("", s)
    if not re.fullmatch(
        rf"\d{{1,3}}(?:{re.escape(loc.group)}\d{{3}})*{re.escape(loc.decimal)}\d{{2}}"
        rf"|\d+{re.escape(loc.decimal)}\d{{2}}",
        s,
    ):
        raise ValueError(f"not an amount in locale {locale!r}: {text!r}")
    digits = s.replace(loc.group, "").replace(loc.decimal, ".")
    try:
        value = Decimal(digits)
    except InvalidOperation as exc:  # pragma: no cover - the regex above admits only digits
        raise ValueError(text) from exc
    return (-value if negative else value), suffix


def format_amount(value: Decimal, locale: str = "en", *, group: bool = True) -> str:
    """Print an unsigned amount the way a statement in `locale` does (`1,234.56` / `1.234,56`)."""
    loc = LOCALES[locale]
    body = f"{abs(value):,.2f}" if group else f"{abs(value):.2f}"
    swapped = body.replace(",", "\0").replace(".", loc.decimal)
    return swapped.replace("\0", loc.group if group else "")


_YEARLESS = {"%m/%d", "%b %d", "%d.%m.", "%d %b", "%d-%b"}


def parse_date(text: str, fmt: str, period_end: date | None = None) -> date:
    """Parse `text` in strptime `fmt`; infer a missing year from the period's end."""
    t = " ".join(text.split())
    if fmt in _YEARLESS:
        if period_end is None:
            raise ValueError(f"date {text!r} has no year and no statement period")
        # 2000 is a leap year, so 02/29 parses; the real year is chosen below.
        d = datetime.strptime(f"{t} 2000", f"{fmt} %Y").date()
        for year in (period_end.year, period_end.year - 1):
            try:
                candidate = d.replace(year=year)
            except ValueError:
                continue
            if candidate <= period_end:
                return candidate
        raise ValueError(f"date {text!r} cannot fall on or before {period_end}")
    return datetime.strptime(t, fmt).date()
