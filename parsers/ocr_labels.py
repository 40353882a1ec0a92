"""Labels on scanned pages, read back to the vocabulary's own words.

OCR misreads a glyph or two of a label (`Cl0sing Balanse`, `Statement Perlod`,
`Partlculars`); every reader downstream matches labels by their words, so an OCR line whose
words are a near match of a label (see `fuzzy.py`) gets the label's words instead, and then
reads like a text page. Only where labels stand: at the start of a line (or just after a
row's date, where balance brought/carried forward rows print theirs), and across a table
header (a line without figures or dates where three or more words are column labels). A single-word
label is taken only with no edit beyond look-alike glyphs, so a description word is never
turned into a label. Text-layer lines are left as printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from parsers.fuzzy import distance, edits_allowed, key, near
from parsers.lines import Line
from parsers.reader import Word
from parsers.template import Template
from parsers.vocabulary import ACCOUNT, BALANCE_ROWS, PERIOD, PERIOD_END, TOTALS

#: Words of a table header that must be column labels for the line to be read as one.
HEADER_WORDS = 3


Vocabulary = tuple[tuple[str, ...], frozenset[str]]
_made: dict[tuple[tuple[str, str], ...], Vocabulary] = {}


def vocabulary(templates: Sequence[Template]) -> Vocabulary:
    """(labels that start a line, column label words) of the shared vocabulary and of
    `templates`, made once per set of template revisions."""
    ident = tuple((t.bank, t.revision) for t in templates)
    if ident not in _made:
        _made[ident] = _vocabulary(templates)
    return _made[ident]


def _vocabulary(templates: Sequence[Template]) -> Vocabulary:
    labels: set[str] = {*BALANCE_ROWS, *PERIOD, *PERIOD_END, *ACCOUNT, *TOTALS}
    columns: set[str] = set()
    for t in templates:
        labels.update((*t.identity, *t.markers, *t.period_labels, *t.period_end_labels,
                       *t.last4.labels, *t.opening.labels, *t.closing.labels, *t.headings))
        labels.update(p for p in t.end if re.fullmatch(r"[\w ]+", p))
        columns.update(w for c in t.columns for lb in c.labels for w in lb.split())
    by_length = sorted(labels, key=lambda lb: (-len(lb.split()), -len(lb)))
    return tuple(by_length), frozenset(w for w in columns if len(key(w)) >= 4)


def snap_lines(lines: Iterable[Line], templates: Sequence[Template]) -> list[Line]:
    """`lines` with the misread labels of OCR lines replaced by the vocabulary's words."""
    labels, columns = vocabulary(templates)
    return [snap_line(ln, labels, columns) if _ocr(ln) else ln for ln in lines]


def snap_line(ln: Line, labels: Sequence[str], columns: frozenset[str]) -> Line:
    words = list(ln.words)
    if _header_like(words, columns):
        words = [_column_word(w, columns) for w in words]
    for start in _label_starts(words):
        words = _snap_at(words, start, labels)
    return Line(ln.page, words, ln.large) if words != ln.words else ln


def _ocr(ln: Line) -> bool:
    return any(w.conf is not None for w in ln.words)


def _label_starts(words: list[Word]) -> list[int]:
    """Where a label may start: the first word with a letter or digit, and the word after
    it when that one is a date-like word with digits (a balance row's date)."""
    first = next((i for i, w in enumerate(words) if re.search(r"\w", w.text)), None)
    if first is None:
        return []
    if any(ch.isdigit() for ch in words[first].text) and first + 1 < len(words):
        return [first, first + 1]
    return [first]


def _snap_at(words: list[Word], start: int, labels: Sequence[str]) -> list[Word]:
    """Words with the longest label that `words[start:]` begins with, as the label spells it."""
    for label in labels:
        parts = label.split()
        window = words[start:start + len(parts)]
        if len(window) < len(parts):
            continue
        text = " ".join(w.text for w in window)
        if key(text) == key(label) and _plain(text) == _plain(label):
            return words  # printed as the label is spelt: nothing to mend
        edits = 0 if len(parts) == 1 else edits_allowed(len(key(label)))
        if near(text, label, edits):
            mended = [w._replace(text=p + _trailing(w.text)) for w, p in zip(window, parts,
                                                                             strict=True)]
            return words[:start] + mended + words[start + len(parts):]
    return words


def _header_like(words: list[Word], columns: frozenset[str]) -> bool:
    if any(sum(ch.isdigit() for ch in w.text) > 1 for w in words):
        return False  # a figure or a date: a row, not a header
    return sum(any(near(w.text, c) for c in columns) for w in words) >= HEADER_WORDS


def _column_word(w: Word, columns: frozenset[str]) -> Word:
    """`w` spelt as the column word OCR most likely misread; a word that already is one
    (`Credit` beside another bank's `Credits`) stays as printed."""
    if any(_plain(w.text) == _plain(c) for c in columns):
        return w
    candidates = [c for c in columns if near(w.text, c)]
    if not candidates:
        return w
    best = min(candidates, key=lambda c: (distance(key(w.text), key(c), 2), c))
    return w._replace(text=best + _trailing(w.text))


def _plain(text: str) -> str:
    """Letters and digits as printed, case aside (what a label regex compares)."""
    return re.sub(r"[\W_]+", "", text).casefold()


def _trailing(text: str) -> str:
    """The punctuation a word ends with (a label's colon), kept when the word is mended."""
    m = re.search(r"[^\w]+$", text)
    return m.group(0) if m else ""
