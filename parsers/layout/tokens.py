"""A line's words as tokens: the words, and the figures several words print together.

Every reader of a table (a template's, the generic reader, the summary boxes) places the
same tokens in its columns, so they are read here once, apart from any column: a sign,
currency or `CR`/`DR` word is joined to its figure (`$ 12.00`, `- 5,00`), a locale that
groups thousands with a space has its figures put together from several words, and on a
scan a figure OCR read as two words is read as one, and one whose punctuation OCR broke
(`372:52`) is read the one way its digits allow, both `loose`: taken only where the running
balance pins them.
"""

from __future__ import annotations

import functools
import itertools
import re
from decimal import Decimal
from typing import NamedTuple

from parsers.numbers import CURRENCY_PATTERN, LOCALES, Amount, amount_or_none
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

#: Words joined into one amount at most this far apart (in word heights): `$ 12.00`, `- 5,00`.
_JOIN_GAP = 1.2
#: A word that is signs, currency marks or `CR`/`DR` only (joined to the figure beside it).
MARK = re.compile(rf"(?:[-+\u2212()]|{CURRENCY_PATTERN}|CR\.?|DR\.?)+", re.IGNORECASE)
#: Two OCR words with digits at most this far apart (in word heights) may be one figure.
_SPLIT_GAP = 0.5


class Token(NamedTuple):
    """A word, or a few adjacent words that print one amount together (a named tuple, like
    `Word`: every line's words become tokens, often more than once)."""

    text: str
    x0: float
    x1: float
    amount: Amount | None = None
    #: The least OCR confidence of its words; None on a text page.
    conf: float | None = None
    #: An OCR figure whose punctuation is broken (`372:52`, `102.95.`, `8,470.36:Cr`), read
    #: the one way its digits allow: never taken unless the running balance pins it.
    loose: bool = False
    #: An OCR word a second, independent reading agreed with (`reread.py`).
    twice: bool = False

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2


def tokens(ln: Line, locale: str) -> list[Token]:
    """The line's words, with a sign, currency or `CR` word joined to its figure (a run is
    read only when it is one word with a digit and signs, currency marks or `CR`/`DR`). An
    OCR `CR`/`DR` wrapped in specks (`‘Cr`) is joined too, the figure then `loose`."""
    return _tokens(ln.words, ln.ocr, locale)


def _tokens(words: list[Word], ocr: bool, locale: str) -> list[Token]:
    """`tokens` of a line's `words` (all of them, or the last few: `tail_tokens`)."""
    # a text layer's words need none of the mending of OCR's (each step asks for OCR words)
    spaced = " " in LOCALES[locale].group_char  # `1 234,56`: one figure in several words
    if not (ocr or spaced):
        readings = [text_word(w.text, locale) for w in words]
        if _MARKED not in readings:
            # the common text line: nothing to join or mend, each word a token of its own,
            # a figure when it reads as one (no word of the line carries a confidence)
            return [_new(Token, (w.text, w.x0, w.x1, None, None, False, w.twice)
                         if amount is None else (w.text, w.x0, w.x1, amount, None, False, False))
                    for w, (_, amount) in zip(words, readings, strict=True)]
        kinds = [_kind(w.text) for w in words]
        clean = [w.text for w in words]
    else:
        clean = [_suffix(w) or w.text for w in words] if ocr else [w.text for w in words]
        # (a mended word differs from its word only by specks around `CR`/`DR`: same digits)
        kinds = [_kind(c) for c in clean]
    digits = [digit for digit, _ in kinds]
    marks = [mark for _, mark in kinds]
    out: list[Token] = []
    i = 0
    while i < len(words):
        split = _split_figure(words, clean, marks, i, locale) if ocr else None
        if split is not None:
            out.append(split)
            i += len(split.text.split())
            continue
        if any(marks[i:i + 4]) or (spaced and sum(digits[i:i + 4]) > 1):
            figure = _joined_figure(words, clean, marks, digits, i, locale, spaced)
        elif digits[i]:  # a word on its own: a figure when it reads as one
            amount = amount_or_none(clean[i], locale)
            w = words[i]
            figure = None if amount is None else (
                Token(w.text, w.x0, w.x1, amount, w.conf, loose=clean[i] != w.text), 1)
        else:
            figure = None
        if figure is not None:
            out.append(figure[0])
            i += figure[1]
            continue
        loose = _loose_token(words, i, marks) if ocr else None
        out.append(loose or _word(words[i]))
        i += len(loose.text.split()) if loose else 1
    return out


def figures_at_end(ln: Line, locale: str) -> list[Token]:
    """The figures that end the line's `tokens`. On the common text line (each word a token
    of its own, as `tokens` reads it) they are read from its end, up to the first word that
    is no figure, and the words before are not made into tokens at all; on another text
    line, from its `tail_tokens`."""
    words = ln.words
    kinds = None if ln.ocr or " " in LOCALES[locale].group_char else [
        _kind(w.text) for w in words]
    if kinds is None or any(mark for _, mark in kinds):
        toks = tail_tokens(ln, locale)
        i = len(toks)
        while i > 0 and toks[i - 1].amount is not None:
            i -= 1
        return toks[i:]
    out: list[Token] = []
    for w, (digit, _) in zip(reversed(words), reversed(kinds), strict=True):
        amount = amount_or_none(w.text, locale) if digit else None
        if amount is None:
            break
        out.append(_new(Token, (w.text, w.x0, w.x1, amount, None, False, False)))
    out.reverse()
    return out


def tail_tokens(ln: Line, locale: str) -> list[Token]:
    """The last of the line's `tokens`, back to one that is neither a figure nor a mark
    (all of them where there is none, and on an OCR line): what ends the line (its
    figures, a `CR`/`DR` set apart after them) read without the words of its description.

    A text line's tokens are read where `_starts_token` says a token starts whatever comes
    before: those from there on are the tokens of the words from there on read alone, so
    the line is read from its end in such runs of words until one holds that token."""
    words = ln.words
    if ln.ocr:
        return _tokens(words, True, locale)
    spaced = " " in LOCALES[locale].group_char
    kinds = [_kind(w.text) for w in words]
    out: list[Token] = []
    end = k = len(words)
    while k > 0:
        k -= 1
        if k and not _starts_token(words, kinds, k, spaced):
            continue
        run = _tokens(words[k:end], False, locale)
        out = run + out
        if any(t.amount is None and not _kind(t.text)[1] for t in run):
            break
        end = k
    return out


#: How a word starts that continues a figure grouped by spaces (`1 234,56`): three digits.
_GROUP_START = re.compile(r"\s*\d{3}(?!\d)")


def _starts_token(words: list[Word], kinds: list[tuple[bool, bool]], k: int,
                  spaced: bool) -> bool:
    """Whether a token of a text line starts at word `k` (> 0), whatever the words before
    it: no figure `tokens` joins holds both it and the word before. A figure joins marks
    and words with a digit only, so none holds a word that is neither (`k`, or the word
    before, which is then a token of its own); and it holds two words that are no marks
    only in a locale grouping by spaces, where the second starts with a group of three
    digits."""
    (digit_before, mark_before), (digit, mark) = kinds[k - 1], kinds[k]
    if not (digit_before or mark_before) or not (digit or mark):
        return True
    return not (mark_before or mark) and not (spaced and _GROUP_START.match(words[k].text))


def _joined_figure(words: list[Word], clean: list[str], marks: list[bool], digits: list[bool],
                   i: int, locale: str, spaced: bool) -> tuple[Token, int] | None:
    """The figure printed by the most words from `i` on (up to four), and how many: the
    words stand close together, every word that is no sign or mark has a digit, and only a
    locale that groups thousands with a space spreads a number over several words."""
    for n in range(min(4, len(words) - i), 0, -1):
        run = words[i:i + n]
        figures = [k for k in range(i, i + n) if not marks[k]]
        if not figures or not all(digits[k] for k in figures) or (
                len(figures) > 1 and not spaced) or any(
                b.x0 - a.x1 > _JOIN_GAP * max(a.bottom - a.top, 1)
                for a, b in itertools.pairwise(run)):
            continue
        text = " ".join(w.text for w in run)
        mended = " ".join(clean[i:i + n])
        amount = amount_or_none(mended, locale)
        if amount is not None:
            return Token(text, run[0].x0, run[-1].x1, amount, least_conf(run),
                         loose=mended != text), n
    return None


#: `text_word` of a word that is signs, currency marks or `CR`/`DR` only.
_MARKED: tuple[bool, Amount | None] = (True, None)


#: `text_word`'s readings, by locale and word: a plain dict, as a statement prints the same
#: words line after line and the line's words are looked up here one by one (cheaper than
#: an `lru_cache` call per word); emptied when it grows past `_KEPT_WORDS`.
TEXT_WORDS: dict[str, dict[str, tuple[bool, Amount | None]]] = {locale: {} for locale in LOCALES}
_KEPT_WORDS = 8192


def text_word(text: str, locale: str) -> tuple[bool, Amount | None]:
    """(whether the word `text` is signs, currency marks and `CR`/`DR` only, the amount it
    reads as on its own): `_kind` and `amount_or_none` in one call, kept (`TEXT_WORDS`),
    for the words of the common text line. A marked word is `_MARKED` itself (it holds no
    digit, so no amount)."""
    known = TEXT_WORDS[locale]
    reading = known.get(text)
    if reading is None:
        if len(known) >= _KEPT_WORDS:
            known.clear()
        digit, mark = _kind(text)
        reading = known[text] = _MARKED if mark else (
            False, amount_or_none(text, locale) if digit else None)
    return reading


@functools.lru_cache(maxsize=8192)
def _kind(text: str) -> tuple[bool, bool]:
    """Whether the word `text` holds a digit, and whether it is signs, currency marks and
    `CR`/`DR` only (which holds no digit); kept, as a statement prints the same words line
    after line."""
    digit = any(map(str.isdigit, text))
    return digit, not digit and MARK.fullmatch(text) is not None


#: `Token`s are made straight from their fields' tuple on the paths every word takes (a
#: named tuple's own constructor is a call more per word).
_new = tuple.__new__


def _word(w: Word) -> Token:
    return _new(Token, (w.text, w.x0, w.x1, None, w.conf, False, w.twice))


def _split_figure(words: list[Word], clean: list[str], marks: list[bool], i: int,
                  locale: str) -> Token | None:
    """One figure OCR read as the two words at `i` (`2,669.` `11`, `3,05` `1.87`), with a
    `CR`/`DR` word after them: two words with digits that stand no further apart than a
    space within a word, at least one of them no figure of its own, and together one. It
    is `loose`: never taken unless the running balance pins it."""
    pair = words[i:i + 2]
    if len(pair) < 2 or any(w.conf is None or not any(ch.isdigit() for ch in w.text)
                            for w in pair):
        return None
    a, b = pair
    if b.x0 - a.x1 > _SPLIT_GAP * max(a.bottom - a.top, 1) or all(
            amount_or_none(w.text, locale) for w in pair):
        return None
    run = words[i:i + 3] if i + 2 < len(words) and marks[i + 2] else pair
    for n in dict.fromkeys((len(run), 2)):
        glued = a.text + b.text + "".join(" " + c for c in clean[i + 2:i + n])
        amount = amount_or_none(glued, locale) or loose_amount(glued)
        if amount is not None:
            return Token(" ".join(w.text for w in run[:n]), a.x0, run[n - 1].x1, amount,
                         least_conf(run[:n]), loose=True)
    return None


def _suffix(w: Word) -> str | None:
    """`CR` or `DR` of an OCR word that is one with specks at its ends (`‘Cr`, `Dr’`)."""
    if w.conf is None:
        return None
    core = w.text.strip("".join(_SPECKS))
    return core if core != w.text and _SUFFIX.fullmatch(core) else None


def _loose_token(words: list[Word], i: int, marks: list[bool]) -> Token | None:
    """The OCR word at `i` (with a `CR`/`DR` word after it) read as a figure whose
    punctuation OCR broke, or None."""
    w = words[i]
    if w.conf is None or not any(ch.isdigit() for ch in w.text):
        return None
    runs = [words[i:i + 2]] if i + 1 < len(words) and marks[i + 1] else []
    for run in (*runs, [w]):
        text = " ".join(o.text for o in run)
        amount = loose_amount(text)
        if amount is not None:
            return Token(text, run[0].x0, run[-1].x1, amount, least_conf(run), loose=True)
    return None


_BROKEN = re.compile(r"(?P<lead>[^\w]*)(?P<body>\d[\d.,:;]*\d)(?P<tail>[^\w]*)"
                     r"(?P<suffix>[CD]R)?[^\w]*", re.IGNORECASE)
_SUFFIX = re.compile(r"[CD]R\.?", re.IGNORECASE)
_SPECKS = set(".,:;'\"’‘“”_~°")
#: What OCR makes of a speck: never part of a word's letters.
NOISE_MARKS = "".join(_SPECKS) + " |!»«`°"
#: Dashes: a sign, never a speck.
DASHES = set("-—–−")


def loose_amount(text: str) -> Amount | None:
    """The amount a figure with broken punctuation prints when its digits allow one reading
    only: specks before or after it dropped, a `CR`/`DR` glued to it split off, and any of
    `. , : ;` taken as the separator it stands for, the last group being the two decimals
    and the others thousands (`372:52` is 372.52, `5;440.40` is 5440.40). A dash before or
    after it might be a sign, so it is taken only beside a `CR`/`DR`; anything else (a
    currency mark, letters, one group of digits) reads as nothing."""
    m = _BROKEN.fullmatch("".join(text.split()))
    if m is None:
        return None
    around = set(m["lead"] + m["tail"])
    if not around <= _SPECKS | DASHES or (around & DASHES and not m["suffix"]):
        return None
    groups = re.split(r"[.,:;]", m["body"])
    whole = groups[:-1]
    if len(groups[-1]) != 2 or not whole or not whole[0] or (
            len(whole) > 1 and (len(whole[0]) > 3 or any(len(g) != 3 for g in whole[1:]))):
        return None
    return Amount(Decimal("".join(groups)).scaleb(-2), (m["suffix"] or "").upper())


def least_conf(words: list) -> float | None:
    """The least OCR confidence of `words` (or tokens), None when none carries one."""
    confs = [w.conf for w in words if w.conf is not None]
    return min(confs) if confs else None
