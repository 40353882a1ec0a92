"""Reading a statement's transaction table: header, columns, rows.

The header row fixes where each column is: a text column starts a little left of its label
(a label may be printed off its column); a figure belongs to the amount column whose
label's left edge, right edge or centre it lines up with (or the column's `align`, or its
explicit `x` range); a column printed without its label is placed between its neighbours. A
header may be stacked over two or three lines (`Money` over `out`).

Rows: a line whose date cell reads starts a row; a line without a date continues the row
above (more description), or, with figures, is a row of the same day when the template says
dates are printed once per day (`carry_date`); a dated line without figures under a row is
that row's value date when the template says so (`value_date_line`). Balance brought/carried
forward lines are markers (checked, never transactions); page furniture and totals are
skipped; headings such as `Deposits` set what an unsigned amount means. Every line gets a
role, so `templates check` can show how it was read.

On a scan, a line's words are placed in columns as if the page were not skewed (columns
drift sideways down a skewed page); OCR's noise that stands in no column and specks in a
description are dropped, and a figure OCR read as two words is read as one; figures put
together that way, or read on another OCR line than their row, are taken only where the
running balance pins them.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import NamedTuple

from parsers.dates import parse_date
from parsers.layout.line_scan import lines_holding
from parsers.layout.template import (
    NUMBER_ROLES,
    Column,
    Template,
    folded_header_words,
    header_words,
    unmarked,
)
from parsers.layout.vocabulary import (
    BALANCE_ROWS,
    CLOSING,
    TOTALS,
    LabelSet,
    furniture_folded,
    furniture_lines,
    is_heading,
    label_set,
    match_label,
)
from parsers.model import mask_digits
from parsers.numbers import CURRENCY_PATTERN, LOCALES, Amount, amount_or_none
from parsers.ocr.lexicon import in_its_language, run_together, split_apart
from parsers.ocr.lexicon import words as lexicon
from parsers.ocr.reread import across_a_speck
from parsers.ocr.trust import (
    OCR_REVIEW_CONFIDENCE,
    Doubt,
    dates_in_order,
    dates_pinned,
    iban_words,
    numbers_apart,
    ordinal_look_alike,
    word_vouched,
)
from parsers.pdf.lines import Line, skew
from parsers.pdf.page import Word

_STRAY = " .,;:|_~»«'`\""
#: Words joined into one amount at most this far apart (in word heights): `$ 12.00`, `- 5,00`.
_JOIN_GAP = 1.2
_MARK = re.compile(rf"(?:[-+\u2212()]|{CURRENCY_PATTERN}|CR\.?|DR\.?)+", re.IGNORECASE)
#: a figure's decimal part, in any locale (`5,90`, `4.50`)
_DECIMALS = re.compile(r"\d[.,]\d{2}(?!\d)")
#: Two OCR words with digits at most this far apart (in word heights) may be one figure.
_SPLIT_GAP = 0.5
#: How far left of its label a text column's words may start (a label printed off its column).
_TEXT_SLACK = 12.0


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
    words = ln.words
    # a text layer's words need none of the mending of OCR's (each step asks for OCR words)
    ocr = ln.ocr
    spaced = " " in LOCALES[locale].group_char  # `1 234,56`: one figure in several words
    if not (ocr or spaced):
        readings = [_text_word(w.text, locale) for w in words]
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
    is no figure, and the words before are not made into tokens at all."""
    words = ln.words
    kinds = None if ln.ocr or " " in LOCALES[locale].group_char else [
        _kind(w.text) for w in words]
    if kinds is None or any(mark for _, mark in kinds):
        toks = tokens(ln, locale)
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
            return Token(text, run[0].x0, run[-1].x1, amount, _least(run),
                         loose=mended != text), n
    return None


#: `_text_word` of a word that is signs, currency marks or `CR`/`DR` only.
_MARKED: tuple[bool, Amount | None] = (True, None)


#: `_text_word`'s readings, by locale and word: a plain dict, as a statement prints the same
#: words line after line and the line's words are looked up here one by one (cheaper than
#: an `lru_cache` call per word); emptied when it grows past `_KEPT_WORDS`.
_TEXT_WORDS: dict[str, dict[str, tuple[bool, Amount | None]]] = {locale: {} for locale in LOCALES}
_KEPT_WORDS = 8192


def _text_word(text: str, locale: str) -> tuple[bool, Amount | None]:
    """(whether the word `text` is signs, currency marks and `CR`/`DR` only, the amount it
    reads as on its own): `_kind` and `amount_or_none` in one call, kept (`_TEXT_WORDS`),
    for the words of the common text line. A marked word is `_MARKED` itself (it holds no
    digit, so no amount)."""
    known = _TEXT_WORDS[locale]
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
    return digit, not digit and _MARK.fullmatch(text) is not None


#: `Token`s are made straight from their fields' tuple on the paths every word takes (a
#: named tuple's own constructor is a call more per word).
_new = tuple.__new__
#: Not yet placed (`Geometry._figures_placed`: None is a place, no column's).
_UNPLACED = object()
#: The most places of figures a `Geometry` keeps (a header's figures stand at a few).
_PLACES_KEPT = 256


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
                         _least(run[:n]), loose=True)
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
            return Token(text, run[0].x0, run[-1].x1, amount, _least(run), loose=True)
    return None


_BROKEN = re.compile(r"(?P<lead>[^\w]*)(?P<body>\d[\d.,:;]*\d)(?P<tail>[^\w]*)"
                     r"(?P<suffix>[CD]R)?[^\w]*", re.IGNORECASE)
_SUFFIX = re.compile(r"[CD]R\.?", re.IGNORECASE)
_SPECKS = set(".,:;'\"’‘“”_~°")
#: What OCR makes of a speck: never part of a word's letters.
_NOISE_MARKS = "".join(_SPECKS) + " |!»«`°"
_DASHES = set("-—–−")


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
    if not around <= _SPECKS | _DASHES or (around & _DASHES and not m["suffix"]):
        return None
    groups = re.split(r"[.,:;]", m["body"])
    whole = groups[:-1]
    if len(groups[-1]) != 2 or not whole or not whole[0] or (
            len(whole) > 1 and (len(whole[0]) > 3 or any(len(g) != 3 for g in whole[1:]))):
        return None
    return Amount(Decimal("".join(groups)).scaleb(-2), (m["suffix"] or "").upper())


# --- the header -------------------------------------------------------------------------

@dataclass(frozen=True)
class Placed:
    column: Column
    x0: float
    x1: float

    @functools.cached_property
    def centre(self) -> float:
        """(Kept: every figure under the header is measured against it.)"""
        return (self.x0 + self.x1) / 2


@dataclass
class Geometry:
    """Where each column of one header sits, and how words are assigned to columns. One is
    made for each header printed alike (`_match_layout`), not for each page that prints it:
    what it works out is shared by every page's rows."""

    layout: tuple[Column, ...]
    placed: list[Placed]
    #: Columns the header printed without a label, placed between their neighbours.
    unlabelled: list[Column]

    def __post_init__(self) -> None:
        #: The amount columns placed, in the order of `placed` (a tie goes to the first).
        self._figures = [p for p in self.placed if p.column.role in NUMBER_ROLES]
        numeric = sorted(p.centre for p in self._figures)
        gaps = [b - a for a, b in itertools.pairwise(numeric)]
        self.tolerance = max(12.0, 0.45 * min(gaps)) if gaps else 40.0
        self.has_balance = any(c.role == "balance" for c in self.layout)
        #: What `_figure_column` measures of each amount column, in the order of `_figures`.
        self._edges = [(p.column.role, p.column.x, p.column.align, p.x0, p.x1, p.centre)
                       for p in self._figures]
        ordered = sorted(self.placed, key=lambda p: p.x0)
        #: Each text column: where its words may start, its role, and the least right edge
        #: of an amount column's header between it and a word (`_text_column`).
        self._starts: list[tuple[float, str, float]] = []
        previous: Placed | None = None
        for p in ordered:
            if p.column.role not in NUMBER_ROLES:
                start = p.x0 - _TEXT_SLACK
                if previous is not None:
                    start = max(previous.x0 + 1, start)
                start = start if p.column.x is None else p.x0
                beyond = [f.x1 for f in self._figures if f.x0 > start and f.x1 > p.x1]
                self._starts.append((start, p.column.role, min(beyond, default=math.inf)))
            previous = p
        #: `_text_column`'s look-up, by `bisect`: the distinct starts in order, and the text
        #: column (role, edge) a word takes when it starts before the first of them (the
        #: first column; none when there are no text columns), or at or after each (the
        #: last column in `_starts` that starts there or left of it).
        self._start_xs = sorted({start for start, _, _ in self._starts})
        self._start_columns: list[tuple[str | None, float]] = [
            (role, edge) for _, role, edge in self._starts[:1]] or [(None, math.inf)]
        self._start_columns += [
            next((role, edge) for start, role, edge in reversed(self._starts) if start <= x)
            for x in self._start_xs]
        #: `_figure_role` of each place a figure of a text line was seen at: a column's
        #: figures mostly print as wide as each other, so they stand at a few places only
        #: (emptied when it holds `_PLACES_KEPT`).
        self._figures_placed: dict[tuple[float, float], str | None] = {}
        self._description: str | None = None

    def describe(self) -> str:
        """The columns' places, as `templates check` shows a header line (worked out once:
        every page's header line shows it)."""
        if self._description is None:
            spans = [f"{p.column.role}={p.column.label or '(x)'}@{p.x0:.0f}-{p.x1:.0f}"
                     for p in sorted(self.placed, key=lambda p: p.x0)]
            spans += [f"{c.role}=(no label, between neighbours)" for c in self.unlabelled]
            self._description = ", ".join(spans)
        return self._description

    def cells(self, toks: list[Token], shift: float = 0.0
              ) -> tuple[dict[str, list[Token]], list[Token]]:
        """Tokens by column role, and the tokens that stand in no column (strays); each
        token is placed `shift` points to the right of where it stands (a skewed scan's
        columns drift sideways down the page)."""
        cells: dict[str, list[Token]] = {}
        strays: list[Token] = []
        for tok in toks:
            x0, x1 = (tok.x0 + shift, tok.x1 + shift) if shift else (tok.x0, tok.x1)
            role = self._figure_column(x0, x1) if tok.amount is not None else None
            if role is None:
                role = self._text_column(x0, x1)
                if role is None:
                    strays.append(tok)
                    continue
            cells.setdefault(role, []).append(tok)
        return cells, strays

    def line_cells(self, ln: Line, locale: str, shift: float = 0.0
                   ) -> tuple[dict[str, list[Token]], list[Token]]:
        """`cells(tokens(ln, locale), shift)`. The common text line (`tokens`' first path:
        each word a token of its own) is placed word by word as it is read, with no token
        list between: this runs for every line of every table."""
        if shift or ln.ocr or " " in LOCALES[locale].group_char:
            return self.cells(tokens(ln, locale), shift)
        cells: dict[str, list[Token]] = {}
        strays: list[Token] = []
        placed, known = self._figures_placed, _TEXT_WORDS[locale]
        starts, columns, reach = self._start_xs, self._start_columns, self.tolerance
        # (a `Word`'s fields unpacked at once: its named fields are slower to ask one by one)
        for text, x0, x1, _top, _bottom, _conf, _line, _ink, twice, _second in ln.words:
            marked, amount = known.get(text) or _text_word(text, locale)
            if marked:  # a sign or mark to join to its figure: `tokens` reads the line
                return self.cells(tokens(ln, locale), shift)
            if amount is None:
                tok = _new(Token, (text, x0, x1, None, None, False, twice))
                # (`_text_column`, written out here, not called: it runs for every word)
                role, beyond = columns[bisect_right(starts, x0)]
                if beyond <= x1 + reach:
                    role = None
            else:
                tok = _new(Token, (text, x0, x1, amount, None, False, False))
                role = placed.get((x0, x1), _UNPLACED)
                if role is _UNPLACED:
                    if len(placed) >= _PLACES_KEPT:
                        placed.clear()
                    role = placed[x0, x1] = self._figure_role(x0, x1)
            if role is None:
                strays.append(tok)
            elif role in cells:
                cells[role].append(tok)
            else:
                cells[role] = [tok]
        return cells, strays

    def where_figures_stand(self, tok: Token) -> bool:
        """Whether `tok` stands where an amount column's figures do (a phone number or a
        postcode in a legal paragraph's line stands elsewhere)."""
        return self._figure_column(tok.x0, tok.x1) is not None

    def _figure_role(self, x0: float, x1: float) -> str | None:
        """The column a figure standing from `x0` to `x1` is placed in: an amount column
        (`_figure_column`), else a text column (`_text_column`), else none."""
        role = self._figure_column(x0, x1)
        return self._text_column(x0, x1) if role is None else role

    def _figure_column(self, x0: float, x1: float) -> str | None:
        """The amount column a figure standing from `x0` to `x1` stands nearest (a tie goes
        to the first), within the tolerance, else the one unlabelled amount column it stands
        between."""
        centre = (x0 + x1) / 2
        nearest, best = math.inf, None
        # (how far it stands from each, on the edge the column aligns on: written out here,
        # not called, as this runs for every figure and column)
        for role, span, align, left, right, middle in self._edges:
            if span is not None:
                d = 0.0 if span[0] <= centre <= span[1] else math.inf
            elif align == "left":
                d = abs(x0 - left)
            elif align == "right":
                d = abs(x1 - right)
            elif align == "center":
                d = abs(centre - middle)
            else:  # the nearest of the three (`min`'s arithmetic, without its call)
                d = abs(x0 - left)
                e = abs(x1 - right)
                if e < d:
                    d = e
                e = abs(centre - middle)
                if e < d:
                    d = e
            if d < nearest:
                nearest, best = d, role
        if best is not None and nearest <= self.tolerance:
            return best
        fits = [c for c in self.unlabelled if c.role in NUMBER_ROLES and self._between(x1, c)]
        return fits[0].role if len(fits) == 1 else None

    def _between(self, x1: float, c: Column) -> bool:
        """Whether a figure ending at `x1` stands where the unlabelled column `c` must be:
        right of the placed column before it in the layout and left of the placed one
        after it."""
        placed = {id(p.column): p for p in self.placed}
        index = self.layout.index(c)
        left = next((placed[id(o)] for o in reversed(self.layout[:index]) if id(o) in placed),
                    None)
        right = next((placed[id(o)] for o in self.layout[index + 1:] if id(o) in placed), None)
        return ((left is None or x1 > left.x1 + self.tolerance)
                and (right is None or x1 < right.x0))

    def _text_column(self, x0: float, x1: float) -> str | None:
        """The text column a word standing from `x0` to `x1` starts in, or None when an
        amount column's header stands between that column and the word (a word where only
        figures belong)."""
        role, beyond = self._start_columns[bisect_right(self._start_xs, x0)]
        # (an amount column's header stands between: its right edge is within the word's reach)
        return None if beyond <= x1 + self.tolerance else role


@functools.lru_cache(maxsize=4096)
def _norm(text: str) -> tuple[str, ...]:
    """`header_words(text)`, kept: a statement prints its header's words on every page."""
    return tuple(header_words(text))


def _header_tokens(group: list[Line], known: frozenset[str] = frozenset()
                   ) -> tuple[tuple[str, float, float], ...]:
    """(word, x0, x1) of a header printed on `group`'s lines; words stacked over each other
    (`Money` over `out`) become one cell spanning both, and two labels printed so close that
    they read as one word (`BUCHUNGSTAGVALUTA`) are split again where `known` words meet."""
    if len(group) == 1:
        return tuple(part for w in group[0].words for t in _norm(w.text)
                     for part in _split_glued(t, w.x0, w.x1, known))
    words = sorted((w for ln in group for w in ln.words), key=lambda w: w.x0)
    stacks: list[list] = []
    for w in words:
        for s in stacks:
            if w.x0 < max(o.x1 for o in s) and w.x1 > min(o.x0 for o in s) and \
                    all(abs(o.top - w.top) > 2 for o in s):
                s.append(w)
                break
        else:
            stacks.append([w])
    out = []
    for s in sorted(stacks, key=lambda s: min(o.x0 for o in s)):
        x0, x1 = min(o.x0 for o in s), max(o.x1 for o in s)
        for w in sorted(s, key=lambda o: o.top):
            out += [(t, x0, x1) for t in _norm(w.text)]
    return tuple(out)


def _split_glued(token: str, x0: float, x1: float, known: frozenset[str]
                 ) -> list[tuple[str, float, float]]:
    """`token` as the known label words it is made of (spans shared out by letters), or as
    itself when it is one word or not made of known words."""
    if token in known or len(token) < 6:
        return [(token, x0, x1)]
    for cut in range(3, len(token) - 2):
        head, tail = token[:cut], token[cut:]
        if head in known:
            rest = _split_glued(tail, x0 + (x1 - x0) * cut / len(token), x1, known)
            if all(t in known for t, _, _ in rest):
                return [(head, x0, x0 + (x1 - x0) * cut / len(token)), *rest]
    return [(token, x0, x1)]


@functools.lru_cache(maxsize=1024)
def _match_layout(layout: tuple[Column, ...], toks: tuple[tuple[str, float, float], ...]
                  ) -> Geometry | None:
    """The geometry of the columns of `layout` placed by the header words `toks` (those
    missing placed between their neighbours), or None when they make no header of it;
    kept, as a statement prints its header, and the lines that print a label word without
    being one, on page after page."""
    used: set[int] = set()
    found: dict[int, Placed] = {}
    # where each word stands: a label can start only where its first word does
    at: dict[str, list[int]] = {}
    for k, (word, _, _) in enumerate(toks):
        at.setdefault(word, []).append(k)
    for i, parts in _label_parts(layout):
        if i in found:
            continue
        # (a label of punctuation only has no first word: it is tried everywhere)
        starts = at.get(parts[0], []) if parts else range(len(toks) + 1)
        for start in (k for k in starts if k <= len(toks) - len(parts)):
            span = range(start, start + len(parts))
            if used.isdisjoint(span) and tuple(toks[k][0] for k in span) == parts:
                used.update(span)
                c = layout[i]
                found[i] = (Placed(c, *c.x) if c.x is not None else
                            Placed(c, toks[start][1], toks[start + len(parts) - 1][2]))
                break
    for i, c in enumerate(layout):
        if i not in found and c.x is not None:
            found[i] = Placed(c, c.x[0], c.x[1])
    labelled = [i for i in found if layout[i].labels]
    missing = [c for i, c in enumerate(layout) if i not in found]
    if any(not c.optional for c in missing) or len(labelled) < min(3, len(layout)):
        return None
    if not any(layout[i].role in NUMBER_ROLES and layout[i].role != "balance"
               for i in labelled):
        return None
    return Geometry(layout, [found[i] for i in sorted(found)], missing)


@functools.cache
def _label_parts(layout: tuple[Column, ...]) -> list[tuple[int, tuple[str, ...]]]:
    """(column index, header words) of every label of `layout`, in the order a header is
    matched: the labels of most words first (worked out once per layout, not per line)."""
    ordered = sorted(((len(_norm(lb)), i, lb) for i, c in enumerate(layout)
                      for lb in c.labels), reverse=True)
    return [(i, _norm(label)) for _, i, label in ordered]


class Header(NamedTuple):
    """A header printed in a table: its columns, how many lines it takes, and where it
    stands down the page (points)."""

    geometry: Geometry
    lines: int
    top: float


def match_header(lines: list[Line], i: int, t: Template) -> Header | None:
    """The header printed at `lines[i]` (on up to three stacked lines)."""
    first = lines[i]
    words = folded_header_words(first.folded)
    if _label_words(t).isdisjoint(words):
        return None
    for depth in (1, 2, 3):
        group = lines[i:i + depth]
        if len(group) < depth or any(b.page != first.page or b.top - a.bottom > a.height
                                     for a, b in itertools.pairwise(group)):
            return None
        if depth > 1 and (any(ch.isdigit() for ln in group for ch in ln.text)
                          or not set(words) & _label_words(t)
                          or _single(group[-1], t)):
            return None
        toks = _header_tokens(group, _label_words(t))
        best: Geometry | None = None
        for layout in t.layouts:
            m = _match_layout(layout, toks)
            if m is not None and (best is None or len(m.placed) > len(best.placed)):
                best = m
        if best is not None:
            return Header(best, depth, first.top)
    return None


def _printing_header_words(words: frozenset[str], folded: list[str]) -> Iterator[int]:
    """The index of each of the lines (their `folded` texts) that prints one of the header
    words `words`. Their texts are stripped as header words are (`unmarked`) in one pass,
    and only the few lines that hold such a word somewhere (`lines_holding`) are split
    into words: most lines of a table print none."""
    bare = unmarked("\n".join(folded)).split("\n")
    if len(bare) != len(folded):  # a text holding a line break itself (no printed line's)
        bare = [unmarked(text) for text in folded]
    return (i for i in lines_holding(words, bare) if not words.isdisjoint(bare[i].split()))


def _single(ln: Line, t: Template) -> bool:
    """Whether `ln` is a header on its own (so it is not the lower half of a stacked one)."""
    toks = _header_tokens([ln], _label_words(t))
    return any(_match_layout(layout, toks) for layout in t.layouts)


def _label_words(t: Template) -> frozenset[str]:
    return t.header_words


# --- rows -------------------------------------------------------------------------------

@dataclass
class Row:
    date: date
    desc: list[str]
    figures: dict[str, Token]
    #: The least OCR confidence of each value read on the row, by role (`date`,
    #: `description`, a figure's role); empty on a text page.
    confs: dict[str, float]
    lines: list[Line]
    #: What an unsigned amount means here (set by a heading), or None for the template's.
    sign: str | None
    #: Whether the table this row stands in prints a running balance.
    has_balance: bool
    #: The OCR confidence of each word of `desc` (None on a text page).
    desc_confs: list[float | None] = field(default_factory=list)
    #: Whether the row's date was read on it (not carried from the row above).
    dated: bool = True
    #: Of a row without a date read on it: whether the scanned page holds no ink left of
    #: its first word, level with it, so its date cell is blank, not a date OCR missed
    #: (`ink.py`).
    blank_date: bool = False
    #: Whether every word of the row's date read below the review confidence was read the
    #: same way a second time (`reread.py`).
    date_twice: bool = False
    #: Figures of the row put together from OCR's words in an unusual way, by role, and how
    #: (read on a line apart from the row, beside noise): taken only where the running
    #: balance pins them (`doubts`).
    assembled: dict[str, str] = field(default_factory=dict)


@dataclass
class Marker:
    """A balance brought/carried forward line: a checkpoint, never a transaction."""

    line: Line
    value: Token | None
    #: Rows read before it (in this table reading).
    before: int
    closing: bool


@dataclass
class Total:
    """A line printing a section's total (a template's `totals`): checked, never a row."""

    line: Line
    value: Token | None
    #: The rows it adds up: from `after` (the rows read before the previous total line) to
    #: `before` (the rows read before it).
    after: int
    before: int


@dataclass
class TableReading:
    rows: list[Row] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    totals: list[Total] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Dates and description words OCR read with little confidence that other evidence
    #: vouches for (see `trust.py`).
    trusted: list[str] = field(default_factory=list)
    #: id(line) -> how the line was read: header, row, continuation, marker, furniture,
    #: heading, total, end, outside.
    roles: dict[int, str] = field(default_factory=dict)
    #: (line, what was read) for `templates check`.
    log: list[tuple[Line, str, str]] = field(default_factory=list)
    #: Table headers read, and lines under them that print a figure (balance rows aside):
    #: a header with no figure under it is an account without transactions.
    headers: int = 0
    figure_lines: int = 0
    #: The statement period the rows were read in (its start None when not known).
    period: tuple[date | None, date] | None = None

    @property
    def empty(self) -> bool:
        return self.headers > 0 and self.figure_lines == 0 and not self.rows


def _row_text(ln: Line) -> str:
    text = mask_digits(ln.text)
    return text if len(text) <= 70 else text[:67] + "..."


def read_table(t: Template, lines: list[Line], period_end: date,
               period_start: date | None = None) -> TableReading:
    """Every row, marker and problem of the tables in `lines` (one account section)."""
    out = TableReading(period=(period_start, period_end))
    end, skip, totals = _searcher(t, t.end), _searcher(t, t.skip), _searcher(t, t.totals)
    # (the label sets looked for in every line, found once per table reading)
    total_words, balance_rows = label_set(TOTALS), label_set(BALANCE_ROWS)
    # (the lines that may print a heading, a total, a balance row or furniture, each found
    # once in all the lines' text, and those that print a header's word: most print none)
    folded = [ln.folded for ln in lines]
    headings = set(lines_holding(label_set(tuple(t.headings)).words, folded)) if t.headings \
        else set()
    headers = set(_printing_header_words(_label_words(t), folded))
    total_lines = set(lines_holding(total_words.words, folded))
    balance_lines = set(lines_holding(balance_rows.words, folded))
    furniture = furniture_lines(folded, t.furniture)
    geometry: Geometry | None = None
    #: Where the header over `geometry` stands down the page.
    top = 0.0
    page: int | None = None
    last: Line | None = None
    sign: str | None = None
    #: The last date printed on a row or balance row: a row without one carries it.
    day: date | None = None
    #: id(line) -> (role, detail) of lines already read with a line above them.
    taken: dict[int, tuple[str, str]] = {}
    #: page -> its skew (`lines.skew`): how far a column drifts right per point down.
    skews: dict[int, float] = {}
    pages: dict[int, list[Line]] = {}
    for o in lines:
        pages.setdefault(o.page, []).append(o)

    roles, log = out.roles, out.log
    #: lines of description held for the row of the dated line under them (that line's
    #: id, the lines, their description cells, the rows read before them)
    held: list[tuple[int, list[Line], list[dict[str, list[Token]]], int]] = []

    def note(ln: Line, role: str, detail: str = "") -> None:
        roles[id(ln)] = role
        log.append((ln, role, detail))

    def settle() -> None:
        """Held lines begin the row their dated line made, or (it made none) continue the
        row above them after all."""
        for opener, above, cells, before in held:
            made = len(out.rows) > before and id(out.rows[before].lines[0]) == opener
            if not made and before == 0:  # no row above to continue either
                for a in above:
                    note(a, "furniture", "no figure where amounts stand")
                continue
            row = out.rows[before] if made else out.rows[before - 1]
            words = [tok.text for c in cells for tok in c.get("description", [])]
            row.desc = [*words, *row.desc] if made else [*row.desc, *words]
            row.desc_confs = ([None] * len(words) + row.desc_confs if made
                              else row.desc_confs + [None] * len(words))
            row.lines = [*above, *row.lines] if made else [*row.lines, *above]
            for a in above:
                note(a, "continuation", "the first line of the row under it"
                     if made else "more of the row above")
        held.clear()

    #: the header line right above, until a line of the table is read under it
    under: Line | None = None
    #: OCR lines right under a row, no date where dates stand and no figure: words of the
    #: row above OCR placed off its column (`CORP` read wider, left into the dates), or
    #: a line outside the table; under a dated row below them, they are inside it
    loose: list[Line] = []
    for i, ln in enumerate(lines):
        if held and id(lines[i - 1]) == held[-1][0]:  # the row the held lines begin
            settle()
        if taken and id(ln) in taken:  # (mostly none is)
            note(ln, *taken.pop(id(ln)))
            continue
        if ln.page != page:
            page, geometry, last = ln.page, None, None
        if ln.large:
            note(ln, "furniture", "large print across the page (a watermark)")
            continue
        heading = next((s for lb, s in t.headings.items() if is_heading(ln.text, [lb])),
                       None) if i in headings else None
        if heading is not None:
            sign = heading
            note(ln, "heading", f"unsigned amounts below are {heading}s")
            continue
        header = match_header(lines, i, t) if i in headers else None
        if header is not None:
            geometry, top, last, under = header.geometry, header.top, None, ln
            loose.clear()
            taken.update({id(o): ("header", "(stacked header line)")
                          for o in lines[i + 1:i + header.lines]})
            out.headers += 1
            note(ln, "header", geometry.describe())
            continue
        if totals and totals(ln.text):
            # Checked wherever it stands: a total pushed onto the next page is still one.
            geometry = None
            figures = [tok for tok in tokens(ln, t.locale) if tok.amount is not None]
            after = out.totals[-1].before if out.totals else 0
            out.totals.append(Total(ln, figures[-1] if figures else None, after,
                                    len(out.rows)))
            note(ln, "total", f"a section total of rows {after + 1}-{len(out.rows)}: "
                 f"{figures[-1].text if figures else 'no figure'}")
            continue
        if geometry is None:
            note(ln, "outside")
            continue
        if (skip and skip(ln.text)) or (
                i in furniture and furniture_folded(ln.folded, t.furniture)):
            note(ln, "furniture")
            continue
        if end and end(ln.text):
            geometry = None
            note(ln, "end", "an end pattern: the table stops here")
            continue
        if i in total_lines and total_words.match(_stripped(ln), at_start=True) is not None:
            geometry = None
            note(ln, "total", "a total line: the table stops here")
            continue
        if ln.page not in skews:
            skews[ln.page] = skew(pages[ln.page])
        cells, strays = geometry.line_cells(ln, t.locale,
                                            skews[ln.page] * (ln.top - top))
        noise: list[Token] = []
        ocr = ln.ocr
        if ocr:  # noise and specks are OCR's only
            bare = not any(role in cells for role in ("date", *NUMBER_ROLES))
            noise = [tok for tok in strays if _noise(tok) or (bare and _mote(tok))]
            strays = [tok for tok in strays if tok not in noise]
            if "description" in cells:  # `RENT PAYMENT .`: a speck OCR kept, printing nothing
                cells["description"] = [tok for tok in cells["description"]
                                        if not _speck(tok)]
            if "date" in cells:  # `03-Jan-2026 .`: a mark at the cell's end changes no date
                cells["date"] = _unspecked_ends(cells["date"])
        dated = cells.get("date")
        date_text = " ".join([tok.text for tok in dated]) if dated else ""
        described = cells.get("description")
        desc = [tok.text for tok in described] if described else []
        figures = {r: cells[r] for r in NUMBER_ROLES if r in cells}
        marker = _marker_label(ln, " ".join(desc), balance_rows) if i in balance_lines else None
        if marker is not None:
            value = (figures.get("balance") or next(iter(figures.values()), None))
            below = None if value else _figure_below(lines, i, t.locale)
            if not (value or below or date_text or strays) and out.rows and last is not None \
                    and len(ln.text.strip(" :")) > len(marker):
                # A label word that starts a line of a wrapped description (`Übertrag auf
                # Sparcard`), with more words after it and no figure anywhere: text of the
                # row above, not a balance row.
                marker = None
        if marker is not None:
            with contextlib.suppress(ValueError):
                day = _row_date(date_text, t.row_date_formats, period_end) if date_text else day
            figure = value[-1] if value else (below[1] if below else None)
            if below is not None:
                taken[id(below[0])] = ("marker", "the figure of the balance row above")
            out.markers.append(Marker(ln, figure, len(out.rows),
                                      match_label(marker, CLOSING, at_start=True) is not None))
            note(ln, "marker", f"balance row {marker!r}: "
                 f"{figure.text if figure else 'no figure'}")
            last = None
            continue
        # a text line that prints no figure can change no number: unless it is a row's date
        # or more of its description, it is furniture (a legal paragraph in the table's area,
        # with its phone number and postcode, `Seite 1 von 20`), never a problem, and it ends
        # no table (a word with a digit where figures stand may be one, and OCR's words may be
        # misread ones: neither is furniture)
        # (on a line without a row's date, such a word must also have a figure's decimals:
        # `5,90EUR` may be an amount misprinted, `19850,` of an address is none)
        dated_row = bool(date_text) and _reads_date(date_text, t.row_date_formats, period_end)
        figured = ocr or bool(figures) or any(
            tok.amount is not None or (any(map(str.isdigit, tok.text))
                                       and geometry.where_figures_stand(tok)
                                       and (dated_row or _DECIMALS.search(tok.text)))
            for tok in strays)
        near = last is not None and ln.top - last.bottom <= 1.5 * last.height
        if not figured and not date_text and last is None and under is not None \
                and not ocr and (opener := _opens_row(lines, i, under, geometry, t,
                                                      period_end, cells)):
            # right under the header, closer to the dated line under it: the first line of
            # the first row's description (a web page's centred cell), no furniture
            held.append((id(opener), [ln], [cells], len(out.rows)))
            last = ln
            continue
        if not figured and (strays or (date_text and not dated_row)
                            or (not date_text and not near)):
            note(ln, "furniture", "no figure where amounts stand")
            continue
        if figures or strays:
            out.figure_lines += 1
        if strays:
            out.problems.append(f"page {ln.page}: {', '.join(repr(s.text) for s in strays)} "
                                f"stands in no column: {_row_text(ln)!r}")
        one = {}
        for role, toks in figures.items():
            if len(toks) > 1:
                out.problems.append(f"page {ln.page}: two figures in the {role} column: "
                                    f"{_row_text(ln)!r}")
            one[role] = toks[0]
        # (a dated line goes on whatever the gap: the line above's height is not asked)
        if not date_text and last is not None and ln.top - last.bottom > 1.5 * last.height:
            geometry = None
            note(ln, "end", "a gap wider than a wrapped line, and no date: the table stops")
            continue
        if date_text and t.value_date_line and not one and not strays and last is not None \
                and out.rows and out.rows[-1].figures:
            row = out.rows[-1]
            _add_words(row, cells)
            row.lines.append(ln)
            if ocr:  # (a text line's cells carry no confidence)
                _merge(row.confs, _confs(cells))
            note(ln, "continuation", f"the value date {date_text!r} of the row above"
                 + (f" and {' '.join(desc)!r}" if desc else ""))
        elif date_text:
            looked = False  # the date read with its digits' look-alike letters as digits
            when: date | None
            try:
                when = _row_date(date_text, t.row_date_formats, period_end)
            except ValueError:
                when = _as_digits(date_text, t.row_date_formats, period_end) \
                    if ocr and one else None
                looked = when is not None
            if when is None:
                if not one and not strays and not (desc and last is not None
                                                   and _junk(cells["date"])):
                    if ocr and near and out.rows:
                        loose.append(ln)  # a problem if a row follows it (below)
                    note(ln, "outside", f"{date_text!r} is no date and there are no figures: "
                         "not a row")
                    continue
                out.problems.append(f"page {ln.page}: unreadable date {date_text!r} in a "
                                    f"table row: {_row_text(ln)!r}")
                note(ln, "problem", f"unreadable date {date_text!r}")
                last = ln
                continue
            if ocr:
                row = Row(when, desc, one, _confs(cells), [ln], sign, geometry.has_balance,
                          _desc_confs(cells), date_twice=_read_twice(cells.get("date", [])),
                          assembled=_assembled(ln, one, noise))
                if looked:  # only the dates around it can vouch for it (`_weigh_dates`)
                    row.confs["date"] = min(row.confs.get("date", 100.0),
                                            OCR_REVIEW_CONFIDENCE - 1)
                    row.date_twice = False
            else:  # a text line's words carry no confidence: none is doubted
                row = Row(when, desc, one, {}, [ln], sign, geometry.has_balance,
                          [None] * len(desc), date_twice=True)
            out.problems += [f"page {o.page}: a line between two rows prints words where "
                             f"dates stand that are no date, and no row took them: "
                             f"{_row_text(o)!r}" for o in loose if o.page == ln.page]
            loose.clear()
            out.rows.append(row)
            day = when
            note(ln, "row", _reading(out.rows[-1]))
        elif one and out.rows and not out.rows[-1].figures and last is not None:
            row = out.rows[-1]
            row.figures = one
            row.assembled = {role: "on the line under its row's date" for role, tok
                             in one.items() if tok.conf is not None}
            _add_words(row, cells)
            row.lines.append(ln)
            if ocr:
                _merge(row.confs, _confs(cells))
            note(ln, "row", "figures of the row above: " + _reading(row))
        elif one and day is not None and t.carry_date:
            out.rows.append(Row(day, desc, one, _confs(cells) if ocr else {}, [ln], sign,
                                geometry.has_balance, _desc_confs(cells), dated=False,
                                blank_date=ln.words[0].ink == (),
                                assembled=_assembled(ln, one, noise)))
            note(ln, "row", "date of the row above: " + _reading(out.rows[-1]))
        elif one:
            out.problems.append(f"page {ln.page}: a table row without a date: "
                                f"{_row_text(ln)!r}")
            note(ln, "problem", "figures without a date")
        elif desc and held and last is held[-1][1][-1]:
            held[-1][1].append(ln)  # the next line of a description held for the row under
            held[-1][2].append(cells)
            last = ln
            continue
        elif desc and out.rows and last is not None and not ocr and (
                opener := _opens_row(lines, i, last, geometry, t, period_end, cells)):
            # closer to the dated line under it than to the row above: the first line of a
            # description whose date and figures stand by its middle (a web page's
            # centred table cell), not more of the row above
            held.append((id(opener), [ln], [cells], len(out.rows)))
            last = ln
            continue
        elif desc and out.rows and last is not None:
            row = out.rows[-1]
            _add_words(row, cells)
            row.lines.append(ln)
            if ocr:
                _merge(row.confs, _confs(cells))
            note(ln, "continuation", " ".join(desc))
        else:
            note(ln, "outside", "text in the table area that belongs to no row")
            continue
        last, under = ln, None
    settle()
    _check_large_print(lines, out)
    return out


def _opens_row(lines: list[Line], i: int, last: Line, geometry: Geometry, t: Template,
               period_end: date, cells: dict[str, list[Token]]) -> Line | None:
    """The row's line under `lines[i]` (description only) whose row it begins: where its
    description starts where that line's does, and it (and any line between) stands closer
    to that line than to `last`, the line above. None where the lines are evenly spaced
    (more of the row above)."""
    ln = lines[i]
    if last.page != ln.page or not cells.get("description"):
        return None
    above, prev = ln.top - last.bottom, ln
    for nx in lines[i + 1:i + 4]:
        if nx.page != ln.page or nx.top - prev.bottom > above - 1.0:
            return None
        below, _ = geometry.line_cells(nx, t.locale)
        dated = below.get("date")
        # a row's line: dated, or (dates printed once per day) its figures without one
        row = (_reads_date(" ".join(tok.text for tok in dated), t.row_date_formats,
                           period_end) if dated else
               t.carry_date and any(role in below for role in NUMBER_ROLES))
        if row:
            starts = below.get("description")
            first = cells["description"][0]
            return nx if starts and abs(starts[0].x0 - first.x0) <= 4 else None
        if any(role in below for role in ("date", *NUMBER_ROLES)):
            return None
        prev = nx
    return None


def _searcher(t: Template, patterns: tuple[str, ...]) -> Callable[[str], object] | None:
    """A test of whether a text holds a match of one of the template's `patterns` (true when
    it does), or None when there are none: the one pattern's own `search` where there is
    one, as there mostly is (it is asked of every line)."""
    compiled = [re.compile(t.expand(p), re.IGNORECASE) for p in patterns]
    if len(compiled) > 1:
        return lambda text: any(p.search(text) for p in compiled)
    return compiled[0].search if compiled else None


def weigh_ocr(out: TableReading, lines: list[Line], where: str) -> None:
    """Problems, or trusted notes, for the dates and description words OCR read with too
    little confidence; each names its row by its number in the account (`where`), as
    corrections name it."""
    _weigh_dates(out, where)
    _weigh_descriptions(out, lines, where)


def _weigh_dates(out: TableReading, where: str) -> None:
    """A problem for every OCR date read below the review confidence, or carried from the
    row above, that the confidently read dates around it do not pin (`trust.dates_pinned`);
    a carried date stands too where the page shows its date cell blank (rows are read with
    a carried date only where the template says dates are printed once per day)."""
    ocr = [bool(r.confs) or any(c is not None for c in r.desc_confs) for r in out.rows]
    if not any(ocr):
        return  # a text layer's dates are read as printed: none is doubted
    read = [(r.date, r.confs.get("date", 100.0) if r.dated or not o else None)
            for r, o in zip(out.rows, ocr, strict=True)]
    pinned = dates_pinned(read, OCR_REVIEW_CONFIDENCE)
    ordered = (dates_in_order(read, OCR_REVIEW_CONFIDENCE, [r.date_twice for r in out.rows],
                              out.period) if out.period else set())
    for i, (r, (_, conf)) in enumerate(zip(out.rows, read, strict=True)):
        if conf is not None and conf >= OCR_REVIEW_CONFIDENCE:
            continue
        row = f"{where} row {i + 1} ({r.date})"
        said = (f"{row}: OCR read the date of this row with confidence {conf:.0f} (below "
                f"{OCR_REVIEW_CONFIDENCE:.0f})" if conf is not None else
                f"{row}: OCR read no date on this row and it took the date of the row above")
        if i in pinned:
            out.trusted.append(f"{said}, trusted: the dates read confidently before and "
                               "after it are the same day")
        elif i in ordered:
            out.trusted.append(f"{said}, trusted: a second reading read it alike, and it "
                               "falls in the period, in order between the dates read "
                               "confidently around it")
        elif conf is None and r.blank_date:
            out.trusted.append(f"{said}, trusted: the dates are printed once per day and "
                               "the page holds no ink in its date cell")
        else:
            out.problems.append(f"{said}, and no arithmetic checks a date: "
                                f"{_row_text(r.lines[0])!r}")


def _weigh_descriptions(out: TableReading, lines: list[Line], where: str) -> None:
    """A problem for every OCR description word read below the review confidence that is no
    word the statement prints confidently elsewhere or the language knows, and for every
    word that reads as an ordinal once its look-alike letters are digits or is words run
    together (`trust.py`; on a table whose descriptions are English, `lexicon.in_its_language`)."""
    if not any(c is not None for r in out.rows for c in r.desc_confs):
        return
    confident = frozenset(w.text for ln in lines for w in ln.words
                          if w.conf is not None and w.conf >= OCR_REVIEW_CONFIDENCE)
    words = lexicon()
    english = in_its_language([w for r in out.rows for w in r.desc], words)
    for n, r in enumerate(out.rows, start=1):
        row = f"{where} row {n} ({r.date})"
        doubted, vouched = [], []
        twice = {(w.text, w.conf) for ln in r.lines for w in ln.words if w.twice}
        for text, conf in zip(r.desc, r.desc_confs, strict=True):
            if conf is None:
                continue
            if ordinal_look_alike(text):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which may as well be an ordinal number (look-alike "
                                    "letters and digits), and no arithmetic checks a "
                                    "description")
            elif across_a_speck(text):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which may be two words joined across a speck, and no "
                                    "arithmetic checks a description")
            elif english and run_together(text, words):
                out.problems.append(f"{row}: OCR read the description word {text!r}, "
                                    "which is words run together (a space OCR did not "
                                    "see?), and no arithmetic checks a description")
            elif conf < OCR_REVIEW_CONFIDENCE:
                (vouched if word_vouched(text, conf, confident, words,
                                           (text, conf) in twice)
                 else doubted).append(
                    (text, conf))
        ocr = [c is not None for c in r.desc_confs]
        split = next((f"{a} {b}" for a, b, x, y in zip(r.desc, r.desc[1:], ocr, ocr[1:],
                                                         strict=False)
                      if (x or y) and split_apart(a, b, words)), None)
        if split is not None:
            out.problems.append(f"{row}: OCR read {split!r}, which is one word of the "
                                "language with a space read into it, and no arithmetic "
                                "checks a description")
        iban = iban_words(r.desc)
        if any(numbers_apart(a, b) and (x or y) and not {k, k + 1} <= iban
               for k, (a, b, x, y) in enumerate(zip(r.desc, r.desc[1:], ocr, ocr[1:],
                                                    strict=False))):
            out.problems.append(f"{row}: OCR read two numbers side by side in the "
                                "description, which may be one number with a space read "
                                "into it, and no arithmetic checks a description")
        if doubted:
            least = min(c for _, c in doubted)
            out.problems.append(f"{row}: OCR read {len(doubted)} word(s) of the "
                                f"description of this row with confidence down to "
                                f"{least:.0f} (below {OCR_REVIEW_CONFIDENCE:.0f}), none of "
                                "them a word the statement prints confidently elsewhere, a "
                                "word of the language read with some confidence or a word "
                                "read alike twice, and no arithmetic checks a description")
        if vouched:
            out.trusted.append(f"{row}: {len(vouched)} description word(s) read by OCR "
                               f"with confidence down to {min(c for _, c in vouched):.0f}, "
                               "trusted: each is printed confidently elsewhere in the "
                               "statement, is a word of the language or was read alike "
                               "twice")


def _read_twice(toks: list[Token]) -> bool:
    return all(tok.twice or tok.conf is None or tok.conf >= OCR_REVIEW_CONFIDENCE
               for tok in toks)


def _junk(toks: list[Token]) -> bool:
    """Whether OCR read `toks` (a date cell that is no date) as a few marks or with little
    confidence: noise that may stand before the next line of a row's description, not a
    line of its own such as `End of Statement`."""
    return all(tok.conf is not None for tok in toks) and (
        len("".join(tok.text for tok in toks)) <= 3
        or all(tok.conf < OCR_REVIEW_CONFIDENCE for tok in toks))


def _assembled(ln: Line, figures: dict[str, Token], noise: list[Token]) -> dict[str, str]:
    """How the figures of `ln` were put together unusually, by role: read on another OCR
    line than the line's first word (a line joined from several, `lines.py`), or on a
    line where OCR noise was dropped (`_noise`)."""
    out = {role: "beside marks in no column, dropped as OCR noise" for role in figures
           } if noise else {}
    if ln.joined:
        home = ln.words[0].line
        out |= {role: "on a line apart from its row's first words"
                for role, tok in figures.items()
                if any(w.line != home for w in ln.words if tok.x0 <= w.x0 and w.x1 <= tok.x1)}
    return out


def _noise(tok: Token) -> bool:
    """Whether a word standing in no column is OCR's noise, not print: no digit and no sign
    or mark a figure takes, and nothing but stray punctuation, or one or two letters read
    with little confidence."""
    if tok.conf is None or tok.amount is not None or _MARK.fullmatch(tok.text) or any(
            ch.isdigit() or ch in _DASHES for ch in tok.text):
        return False
    letters = tok.text.strip(_NOISE_MARKS)
    return not letters or (len(letters) <= 2 and letters.isalpha()
                           and tok.conf < OCR_REVIEW_CONFIDENCE)


def _mote(tok: Token) -> bool:
    """Whether a word standing in no column is one letter or digit OCR read with little
    confidence: noise on a line without a date or a figure, which it cannot be part of."""
    return (tok.conf is not None and tok.amount is None and tok.conf < OCR_REVIEW_CONFIDENCE
            and len(tok.text.strip(_NOISE_MARKS)) == 1 and tok.text.strip(_NOISE_MARKS).isalnum())


def _speck(tok: Token) -> bool:
    """Whether an OCR word is stray punctuation alone (`.`, `|`, `»`): no dash, sign or
    mark that means something."""
    return tok.conf is not None and tok.amount is None and not tok.text.strip(_NOISE_MARKS)


def _unspecked_ends(toks: list[Token]) -> list[Token]:
    """`toks` without the specks (`_speck`) at either end, where a word stays: the date
    is read with stray punctuation at its ends forgiven (`_row_date`), so their
    confidence says nothing of it."""
    kept = list(toks)
    while len(kept) > 1 and _speck(kept[-1]):
        kept.pop()
    while len(kept) > 1 and _speck(kept[0]):
        kept.pop(0)
    return kept


def _add_words(row: Row, cells: dict[str, list[Token]]) -> None:
    """The description words of another line of `row`, with their confidences: a word
    broken after its hyphen at the line's end (`7781-` over `ALPHA`) is one word again."""
    words, confs = [tok.text for tok in cells.get("description", [])], _desc_confs(cells)
    if row.desc and words and len(row.desc[-1]) > 1 and row.desc[-1].endswith("-") \
            and row.desc[-1][-2].isalnum():
        row.desc[-1] += words.pop(0)
        first = confs.pop(0)
        if first is not None and row.desc_confs[-1] is not None:
            row.desc_confs[-1] = min(row.desc_confs[-1], first)
    row.desc += words
    row.desc_confs += confs


def _desc_confs(cells: dict[str, list[Token]]) -> list[float | None]:
    return [tok.conf for tok in cells.get("description", [])]


def _figure_below(lines: list[Line], i: int, locale: str) -> tuple[Line, Token] | None:
    """The figure of a balance row printed on the line under its label: the next line,
    close below on the same page, when it is exactly one amount starting under the label."""
    ln = lines[i]
    nxt = next((o for o in lines[i + 1:] if not o.large), None)
    if nxt is None or nxt.page != ln.page or nxt.top - ln.bottom > 1.2 * ln.height:
        return None
    toks = tokens(nxt, locale)
    if len(toks) != 1 or toks[0].amount is None or not (
            ln.words[0].x0 - 2 <= toks[0].x0 < ln.words[-1].x1):
        return None
    return nxt, toks[0]


def _check_large_print(lines: list[Line], out: TableReading) -> None:
    """A large word of more than one letter over the table's lines is a problem: a watermark
    printed across the page comes as one letter per word, so more letters may be a
    watermark letter the page reader joined with words of the text under it, which are then
    missing from their row. (A title above the table or a code up the margin hides nothing.)"""
    large = [ln for ln in lines if ln.large]
    if not large:
        return
    table = [ln for ln in lines if out.roles.get(id(ln)) in
             ("header", "row", "continuation", "marker", "problem")]
    for ln in large:
        merged = [w.text for w in ln.words if len(w.text) > 1 and any(
            o.page == ln.page and o.top < w.bottom and o.bottom > w.top
            and o.words[0].x0 < w.x1 and o.words[-1].x1 > w.x0 for o in table)]
        if merged:
            out.problems.append(f"page {ln.page}: large print merged with the text (a "
                                f"watermark over the table?): words of this page cannot be "
                                f"trusted: {mask_digits(' '.join(merged))!r}")
            out.roles[id(ln)] = "problem"
            out.log = [(o, "problem" if o is ln else role, "large print merged with small "
                        "print" if o is ln else detail) for o, role, detail in out.log]


def _marker_label(ln: Line, desc: str, balance_rows: LabelSet) -> str | None:
    """The balance-row label a line starts with (the whole line or its description cell);
    `balance_rows` is `label_set(BALANCE_ROWS)`."""
    if not balance_rows.printed_in(ln.folded):
        return None  # (nor does its description cell, which prints some of its words)
    m = balance_rows.match(_stripped(ln), at_start=True)
    if m is not None:
        return ln.text.strip()[:m.end()].strip(" :")
    m = match_label(desc.strip(), BALANCE_ROWS, at_start=True) if desc else None
    return None if m is None else desc.strip()[:m.end()].strip(" :")


def _stripped(ln: Line) -> str:
    """`fold(ln.text.strip())`, cut from the line's `folded` (folding keeps every character
    where it stands)."""
    text = ln.text
    lead = len(text) - len(text.lstrip())
    return ln.folded[lead:len(text.rstrip())]


def _reading(r: Row) -> str:
    figures = ", ".join([f"{role} {tok.text}" for role, tok in sorted(r.figures.items())])
    return f"{r.date} {' '.join(r.desc)!r} {figures or 'no figures'}"


def doubts(rows: list[Row]) -> list[Doubt]:
    """The figures of `rows` OCR read below the review confidence, the least per figure,
    those it read with broken punctuation and those its row was put together from unusually."""
    least: dict[tuple[int, str], float] = {}
    broken: dict[tuple[int, str], str] = {}
    assembled: dict[tuple[int, str], str] = {}
    for i, r in enumerate(rows):
        for role, how in r.assembled.items():
            figure = "balance" if role == "balance" else "amount"
            assembled[i, figure] = how
            least.setdefault((i, figure), r.confs.get(role, 0.0))
        for role, conf in r.confs.items():
            figure = "balance" if role == "balance" else "amount"
            if role in NUMBER_ROLES and conf < OCR_REVIEW_CONFIDENCE:
                least[i, figure] = min(least.get((i, figure), conf), conf)
        for role, tok in r.figures.items():
            if tok.loose:
                figure = "balance" if role == "balance" else "amount"
                broken[i, figure] = tok.text
                least.setdefault((i, figure), tok.conf if tok.conf is not None else 0.0)
    return [Doubt(i, figure, conf, broken.get((i, figure)), assembled.get((i, figure)))
            for (i, figure), conf in sorted(least.items())]


def _least(words: list) -> float | None:
    confs = [w.conf for w in words if w.conf is not None]
    return min(confs) if confs else None


def _confs(cells: dict[str, list[Token]]) -> dict[str, float]:
    """The least OCR confidence of each cell of a line (text-layer cells have none)."""
    out = {}
    for role, toks in cells.items():
        least = _least(toks)
        if least is not None:
            out[role] = least
    return out


def _merge(confs: dict[str, float], more: dict[str, float]) -> None:
    for role, conf in more.items():
        confs[role] = min(confs.get(role, conf), conf)


@functools.lru_cache(maxsize=4096)
def _reads_date(text: str, formats: tuple[str, ...], period_end: date) -> bool:
    try:
        _row_date(text, formats, period_end)
    except ValueError:
        return False
    return True


#: Letters OCR reads for the digit they look like, in a word that holds a digit.
_AS_DIGIT = str.maketrans("IlOo|", "11001")


def _as_digits(text: str, formats: tuple[str, ...], period_end: date) -> date | None:
    """The date `text` reads once the look-alike letters of its words that hold a digit are
    digits (`May I1`, `O3/12`), or None: a row's figures say it is a row, and its date so
    read is doubted, for the dates read confidently around it to pin or not."""
    folded = " ".join(w.translate(_AS_DIGIT) if any(c.isdigit() for c in w) else w
                      for w in text.split())
    if folded == text:
        return None
    try:
        return _row_date(folded, formats, period_end)
    except ValueError:
        return None


def _row_date(text: str, formats: tuple[str, ...], period_end: date) -> date:
    """The row's date; stray punctuation a scan leaves at either end is forgiven. Readings
    are kept (a statement prints each day on several rows, and its period's days again)."""
    try:
        return parse_date(text, formats, period_end)
    except ValueError:
        return parse_date(text.strip(_STRAY), formats, period_end)
