"""Amounts as printed on statements, read without floats or guesses.

One printed amount is a number in the statement's locale (`1,234.56` or in Indian grouping
`12,34,567.89`, `1.234,56`, `1 234,56`, `1'234.56`, `1 234.56`, or ungrouped `1234.56`)
with at most one sign (a leading or trailing `-` or `+`, separated by a space or not, or
parentheses), at most one currency symbol or code
before or after it (`$`, `£`, `€`, `EUR`, `Euro`, ...) and an optional `CR`/`DR` suffix that
is reported, not applied, so that each layout applies its own sign convention. A figure
without decimals is an amount only when a currency or `CR`/`DR` marks it as money (`£40`,
`90,350 CR`): a bare `16` is a count, not an amount. Anything that is not exactly one amount
is refused, never guessed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class NumberLocale:
    decimal: str
    #: Regex of the thousands separator(s).
    group: str
    #: The separator `format_amount` prints.
    group_char: str


LOCALES = {
    "en": NumberLocale(".", ",", ","),
    "de": NumberLocale(",", r"\.", "."),
    "fr": NumberLocale(",", "[ \u00a0\u202f]", " "),
    "ch": NumberLocale(".", "['\u2019]", "'"),
    #: a space between thousands and a decimal point (`2 795.35`)
    "space": NumberLocale(".", "[ \u00a0\u202f]", " "),
}

#: Currency marks an amount may carry, and the ISO currencies each is compatible with.
CURRENCY_MARKS: dict[str, frozenset[str]] = {
    "US$": frozenset({"USD"}), "A$": frozenset({"AUD"}), "AU$": frozenset({"AUD"}),
    "C$": frozenset({"CAD"}), "CA$": frozenset({"CAD"}), "NZ$": frozenset({"NZD"}),
    "S$": frozenset({"SGD"}), "HK$": frozenset({"HKD"}), "R$": frozenset({"BRL"}),
    "$": frozenset({"USD", "AUD", "CAD", "NZD", "SGD", "HKD", "MXN"}),
    "£": frozenset({"GBP"}), "€": frozenset({"EUR"}), "EURO": frozenset({"EUR"}),
    "¥": frozenset({"JPY", "CNY"}), "₹": frozenset({"INR"}), "FR.": frozenset({"CHF"}),
    # the rand; and the rupee sign as fonts without it extract it (`r70,330.68`), or spelt
    "R": frozenset({"ZAR", "INR"}), "RS.": frozenset({"INR"}), "RS": frozenset({"INR"}),
    **{code: frozenset({code}) for code in (
        "USD", "EUR", "GBP", "CHF", "AUD", "NZD", "CAD", "SGD", "HKD", "JPY", "CNY", "SEK",
        "NOK", "DKK", "PLN", "CZK", "HUF", "INR", "ZAR", "MXN", "BRL", "ARS")},
}
#: A regex of any currency mark (case-insensitive use).
CURRENCY_PATTERN = "|".join(re.escape(m) for m in sorted(CURRENCY_MARKS, key=len, reverse=True))
_CUR = CURRENCY_PATTERN
_SIGN = "[-+\u2212]"
_SUFFIX_RE = re.compile(r"(?<![A-Za-z])(CR|DR)\.?$", re.IGNORECASE)
_LEFT = re.compile(rf"^\s*(?:(?P<sign>{_SIGN})|(?P<cur>{_CUR})|(?P<paren>\())", re.IGNORECASE)
#: Text of these characters holds no sign, currency mark, parenthesis or `CR`/`DR`.
_UNMARKED = re.compile(r"[\d.,/:'\u2019 ]*")
_RIGHT = re.compile(rf"(?:(?P<sign>{_SIGN})|(?P<cur>{_CUR})|(?P<paren>\)))\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    """One printed amount: its value with the printed sign, its suffix and currency mark."""

    value: Decimal
    #: "CR", "DR" or "".
    suffix: str = ""
    #: The currency mark as printed, upper case ("$", "EUR"), or None.
    currency: str | None = None


def _bodies(locale: str) -> tuple[str, str]:
    """Regexes of a number with two decimals and of a whole number in `locale`; in `en`,
    Indian grouping too (lakh and crore: `5,21,16,725.67`)."""
    loc = LOCALES[locale]
    indian = rf"|\d{{1,2}}(?:{loc.group}\d{{2}})+{loc.group}\d{{3}}" if locale == "en" else ""
    whole = rf"(?:\d{{1,3}}(?:{loc.group}\d{{3}})+{indian}|\d+)"
    return rf"{whole}{re.escape(loc.decimal)}\d{{2}}", whole


@functools.cache
def _compiled(locale: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """`_bodies` compiled, and the thousands separator: compiled once per locale, as
    `read_amount` runs on every word with a digit."""
    with_decimals, whole = _bodies(locale)
    return re.compile(with_decimals), re.compile(whole), re.compile(LOCALES[locale].group)


def read_amount(text: str, locale: str = "en") -> Amount:
    """The one amount `text` prints; ValueError when it is not exactly one amount."""
    if locale not in LOCALES:
        raise ValueError(f"unknown number locale {locale!r}")
    amount = amount_or_none(text, locale)
    if amount is None:
        raise ValueError(f"not one amount in locale {locale!r}: {text!r}")
    return amount


@functools.lru_cache(maxsize=8192)
def amount_or_none(text: str, locale: str = "en") -> Amount | None:
    """`read_amount` without the exception: None where `text` is not exactly one amount
    (most words with a digit are none, and an exception per word costs more than the read).
    Readings are kept: a statement prints the same dates and figures again and again."""
    if locale not in LOCALES:
        return None
    s = " ".join(text.split())
    with_decimals, whole, group = _compiled(locale)
    if with_decimals.fullmatch(s):  # a bare figure, the common case: no mark to take off
        return Amount(Decimal(group.sub("", s).replace(LOCALES[locale].decimal, ".")))
    if _UNMARKED.fullmatch(s):  # no sign, mark or suffix to take off (`03/01/2026`)
        return None
    suffix = ""
    m = _SUFFIX_RE.search(s)
    if m and m.start() > 0:
        suffix, s = m.group(1).upper(), s[: m.start()]
    signs: list[str] = []
    currencies: list[str] = []
    opened = closed = 0
    while True:
        left = _LEFT.match(s)
        if left and left.end() < len(s):
            signs += [left["sign"]] if left["sign"] else []
            currencies += [left["cur"].upper()] if left["cur"] else []
            opened += bool(left["paren"])
            s = s[left.end():]
            continue
        right = _RIGHT.search(s)
        if right and right.start() > 0:
            signs += [right["sign"]] if right["sign"] else []
            currencies += [right["cur"].upper()] if right["cur"] else []
            closed += bool(right["paren"])
            s = s[: right.start()]
            continue
        break
    s = s.strip()
    marked = bool(currencies or suffix)
    if (len(signs) + opened > 1 or opened != closed or len(currencies) > 1
            or (suffix and (signs or opened))
            or not (with_decimals.fullmatch(s) or (marked and whole.fullmatch(s)))):
        return None
    value = Decimal(group.sub("", s).replace(LOCALES[locale].decimal, "."))
    negative = bool(opened) or (bool(signs) and signs[0] != "+")
    return Amount(-value if negative else value, suffix, currencies[0] if currencies else None)


@functools.cache
def _decimals(locale: str) -> re.Pattern[str]:
    """Two decimals after a digit, and no digit after them: what every amount with decimals
    `amount_or_none` reads in `locale` holds."""
    return re.compile(rf"\d{re.escape(LOCALES[locale].decimal)}\d\d(?!\d)")


#: A currency mark in upper case text (the marks are upper case: searched without
#: IGNORECASE, which tries every mark at every character).
_CUR_UPPER = re.compile(_CUR)
#: The two characters IGNORECASE matches to a mark's letter that `str.upper` does not make
#: that letter: the dotted capital I and the Kelvin sign.
_UPPER_FIX = str.maketrans({"\u0130": "I", "\u212a": "K"})
_SUFFIX_END = re.compile(r"(?:CR|DR)\.?\Z", re.IGNORECASE)


def may_end_in_amount(text: str, locale: str) -> bool:
    """False only when no run of `text`'s last words reads as an amount in `locale`: a
    cheap test that spares reading a line's figures in a locale it prints none in (a
    statement is tried in several). An amount has two decimals, or is marked as money by a
    currency mark or a `CR`/`DR` that ends it."""
    return (_decimals(locale).search(text) is not None
            or _SUFFIX_END.search(text.rstrip()[-3:]) is not None
            or _CUR_UPPER.search(text.upper().translate(_UPPER_FIX)) is not None)


def parse_amount(text: str, locale: str = "en") -> tuple[Decimal, str]:
    """Return (value, suffix): the signed value as printed and any `CR`/`DR` suffix.

    Raises ValueError when the text is not exactly one amount in `locale`.
    """
    a = read_amount(text, locale)
    return a.value, a.suffix


def currency_agrees(mark: str | None, currency: str) -> bool:
    """Whether a printed currency mark can stand for the statement's ISO `currency`."""
    return mark is None or currency.upper() in CURRENCY_MARKS.get(mark.upper(), frozenset())


def amount_pattern(locale: str = "en") -> str:
    """A regex fragment matching one printed amount in `locale` (templates' `{AMOUNT}`).

    It finds candidates in text; `read_amount` has the last word on each of them.
    """
    with_decimals, whole = _bodies(locale)
    sp = r"[ \u00a0]?"
    pre = rf"(?:\({sp})?(?:{_SIGN}{sp})?(?:\({sp})?"
    post = rf"(?:{sp}{_SIGN})?(?:{sp}\))?"
    cur, suffix = rf"(?i:{_CUR})", r"(?i:CR|DR)\.?"
    marked_before = rf"{pre}{cur}{sp}{pre}{whole}{post}(?:{sp}{suffix})?"
    marked_after = rf"{pre}{whole}{post}(?:{sp}{cur}{post})?{sp}{suffix}"
    marked_cur_after = rf"{pre}{whole}{post}{sp}{cur}{post}"
    plain = rf"{pre}(?:{cur}{sp}{pre})?{with_decimals}{post}(?:{sp}{cur}{post})?(?:{sp}{suffix})?"
    body = f"{plain}|{marked_before}|{marked_after}|{marked_cur_after}"
    return rf"(?<![\w.,'])(?:{body})(?![\w']|[.,]\d)"


@functools.cache
def _amount_regex(locale: str) -> re.Pattern[str]:
    return re.compile(amount_pattern(locale))


#: Every amount prints a digit: text without one is not searched with the amount pattern.
_DIGIT = re.compile(r"\d")


def find_amounts(text: str, locale: str = "en") -> list[tuple[Amount, int, int]]:
    """Every amount printed in free text, left to right, with its span."""
    regex = _amount_regex(locale)
    if _DIGIT.search(text) is None:
        return []
    out = []
    for m in regex.finditer(text):
        try:
            out.append((read_amount(m.group(0), locale), m.start(), m.end()))
        except ValueError:
            continue
    return out


_SLIPPED = re.compile(r"(?<![\d.,'])(\d{1,3}(?:[.,]\d{3})*)[.,](\d{2})(?![\d.,'])")


def read_slipped_amount(text: str, locale: str = "en") -> Amount | None:
    """The one amount `text` prints with its decimal mark slipped to the other one
    (`2.853.82` or `40,000,00` where `2.853,82` and `40,000.00` were meant): every group but
    the last three digits long, the last two. Such a figure is a typing slip on the page, and
    reading it is a guess that only an independent check (the balance equation) may confirm;
    None when `text` reads as printed, or reads no way at all."""
    if amount_or_none(text, locale) is not None:
        return None
    loc = LOCALES[locale]
    body = _SLIPPED.sub(lambda m: m.group(1).replace(".", "").replace(",", "")
                        + loc.decimal + m.group(2), text)
    return None if body == text else amount_or_none(body, locale)


def format_amount(value: Decimal, locale: str = "en", *, group: bool = True) -> str:
    """Print an unsigned amount the way a statement in `locale` does (`1,234.56` / `1.234,56`)."""
    loc = LOCALES[locale]
    body = f"{abs(value):,.2f}" if group else f"{abs(value):.2f}"
    swapped = body.replace(",", "\0").replace(".", loc.decimal)
    return swapped.replace("\0", loc.group_char if group else "")
