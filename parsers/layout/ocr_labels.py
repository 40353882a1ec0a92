"""Labels on scanned pages, read back to the vocabulary's own words.

OCR misreads a glyph or two of a label (`Cl0sing Balanse`, `Statement Perlod`,
`Partlculars`); every reader downstream matches labels by their words, so an OCR line whose
words are a near match of a label (see `fuzzy.py`) gets the label's words instead, and then
reads like a text page. Only where labels stand: at the start of a line (or just after a
row's date, where balance brought/carried forward rows print theirs), and across a table
header (a line without figures or dates where three or more words are column labels). A single-word
label is taken only with no edit beyond look-alike glyphs, so a description word is never
turned into a label. A short account label is also taken with its `c` read as `e` or an `e`
slipped in (`a/c no` read `ale no.`, `alec no`), and only when all that follows it on the line
is a masked account number (`XXXXXX2100`): `ABC No. XXXXXX7812` stays as printed.
A period line whose dates OCR split or smudged (`31-J ul-2024`, `Period:.01-Sep-2024`,
`0l-Apl-2025`) is given back its two dates when, with the spaces and stray punctuation
between them gone, look-alike digits mended and a month abbreviation one edit from exactly
one month, they read as a range in one of the vocabulary's dated forms.
Text-layer lines are left as printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from parsers.dates import compile_format, fold, month_names, parse_date
from parsers.layout.fuzzy import distance, edits_allowed, key, letters, near
from parsers.layout.periods import find_period
from parsers.layout.template import Template
from parsers.layout.vocabulary import (
    ACCOUNT,
    BALANCE_ROWS,
    PERIOD,
    PERIOD_END,
    PERIOD_FROM,
    PERIOD_TO,
    TOTALS,
    UNAMBIGUOUS_DATES,
    match_label,
)
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

#: Words of a table header that must be column labels for the line to be read as one.
HEADER_WORDS = 3


Vocabulary = tuple[tuple[str, ...], frozenset[str], frozenset[str]]
_made: dict[tuple[tuple[str, str], ...], Vocabulary] = {}


def vocabulary(templates: Sequence[Template]) -> Vocabulary:
    """(labels that start a line, column label words, account number labels) of the shared
    vocabulary and of `templates`, made once per set of template revisions."""
    ident = tuple((t.bank, t.revision) for t in templates)
    if ident not in _made:
        _made[ident] = _vocabulary(templates)
    return _made[ident]


def _vocabulary(templates: Sequence[Template]) -> Vocabulary:
    labels: set[str] = {*BALANCE_ROWS, *PERIOD, *PERIOD_END, *ACCOUNT, *TOTALS}
    columns: set[str] = set()
    accounts: set[str] = set(ACCOUNT)
    for t in templates:
        accounts.update(t.last4.labels)
        labels.update((*t.identity, *t.markers, *t.period_labels, *t.period_end_labels,
                       *t.last4.labels, *t.opening.labels, *t.closing.labels, *t.headings))
        labels.update(p for p in t.end if re.fullmatch(r"[\w ]+", p))
        columns.update(w for c in t.columns for lb in c.labels for w in lb.split())
    by_length = sorted(labels, key=lambda lb: (-len(lb.split()), -len(lb)))
    return (tuple(by_length), frozenset(w for w in columns if len(key(w)) >= 4),
            frozenset(accounts))


def snap_lines(lines: Iterable[Line], templates: Sequence[Template]) -> list[Line]:
    """`lines` with the misread labels of OCR lines replaced by the vocabulary's words."""
    labels, columns, accounts = vocabulary(templates)
    return [snap_line(ln, labels, columns, accounts) if _ocr(ln) else ln for ln in lines]


def snap_line(ln: Line, labels: Sequence[str], columns: frozenset[str],
              accounts: frozenset[str] = frozenset()) -> Line:
    words = list(ln.words)
    if _header_like(words, columns):
        words = [_column_word(w, columns) for w in words]
    for start in _label_starts(words):
        words = _snap_at(words, start, labels, accounts)
    words = mend_period(words)
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


def _snap_at(words: list[Word], start: int, labels: Sequence[str],
             accounts: frozenset[str] = frozenset()) -> list[Word]:
    """Words with the longest label that `words[start:]` begins with, as the label spells it."""
    for label in labels:
        parts = label.split()
        window = words[start:start + len(parts)]
        if len(window) < len(parts):
            continue
        text = " ".join(w.text for w in window)
        if key(text) == key(label) and _plain(text) == _plain(label):
            return words  # printed as the label is spelt: nothing to mend
        edits = 0 if len(parts) == 1 else edits_allowed(letters(label))
        if near(text, label, edits) or (
                label in accounts and _masked_number_only(words[start + len(parts):])
                and _c_read_as_e(text, label)):
            mended = [w._replace(text=p + _trailing(w.text)) for w, p in zip(window, parts,
                                                                             strict=True)]
            return words[:start] + mended + words[start + len(parts):]
    return words


#: An account number as statements mask it: mask glyphs, then its last digits.
_MASKED = re.compile(r"[xX*•]{2,}[\s-]*\d{4}")


def _masked_number_only(rest: list[Word]) -> bool:
    """Whether `rest` (the words after a label) is a masked account number and nothing else."""
    return _MASKED.fullmatch(" ".join(w.text for w in rest).strip(" .:")) is not None


def _c_read_as_e(text: str, label: str) -> bool:
    """Whether `text` is `label` but for one `e` OCR read for a `c` or slipped in beside it."""
    a, b = key(text), key(label)
    return any(a[:i] + mend + a[i + 1:] == b for i, ch in enumerate(a) if ch == "e"
               for mend in ("c", ""))


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


# --- the period line --------------------------------------------------------------------

#: The vocabulary's date forms with a year: the only ones a mended period is read in.
PERIOD_FORMATS = tuple(f for f in UNAMBIGUOUS_DATES if "%Y" in f)
_DIGIT_LOOK_ALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "|": "1"})


def mend_period(words: list[Word]) -> list[Word]:
    """`words` of a line that starts with a period label, with the range after the label
    rewritten as `START to END` when only OCR's spacing, specks and look-alike glyphs kept it
    from reading; any other line as it is."""
    text = " ".join(w.text for w in words)
    m = match_label(text, PERIOD, at_start=True)
    if m is None or find_period([Line(0, words)], PERIOD_FORMATS, labelled_only=True):
        return words
    found = _range(text[m.end():])
    if found is None:
        return words
    head, rest = _split_at(words, m.end())
    if not rest:
        return words
    conf = min((w.conf for w in rest if w.conf is not None), default=None)
    span = rest[0]._replace(x1=rest[-1].x1, conf=conf,
                            top=min(w.top for w in rest), bottom=max(w.bottom for w in rest))
    return [*head, span._replace(text=found[0]), span._replace(text="to"),
            span._replace(text=found[1])]


def _range(after: str) -> tuple[str, str] | None:
    """(start, end) as their dates should have read, from the text after a period label."""
    compact = _digits_mended(re.sub(r"\s+", "", after))
    for text in (compact, _month_mended(compact)):
        if text is None:
            continue
        m = _RANGE.fullmatch(text)
        if m is None:
            continue
        try:
            end = parse_date(m["end"], PERIOD_FORMATS)
            start = parse_date(m["start"], PERIOD_FORMATS, end)
        except ValueError:
            continue
        if start <= end:
            return m["start"], m["end"]
    return None


def _range_regex() -> re.Pattern[str]:
    day = "|".join(compile_format(f).pattern for f in PERIOD_FORMATS)
    words = sorted((w for w in (*PERIOD_TO, *PERIOD_FROM) if w.isalpha()), key=len,
                   reverse=True)
    joiner = rf"\W*(?:(?:{'|'.join(words)})\W*)?"
    return re.compile(rf"{joiner}(?P<start>{day}){joiner}(?P<end>{day})\W*", re.IGNORECASE)


_RANGE = _range_regex()


def _digits_mended(text: str) -> str:
    """`O`, `l`, `I`, `|` read as the digit they look like where they stand beside a digit
    and not beside a letter (`0l-Jul` -> `01-Jul`; the `l` of `Jul-2024` stays)."""
    out = list(text)
    for i, c in enumerate(text):
        if c not in "OolI|":
            continue
        around = [text[j] for j in (i - 1, i + 1) if 0 <= j < len(text)]
        if any(a.isdigit() for a in around) and not any(a.isalpha() for a in around):
            out[i] = c.translate(_DIGIT_LOOK_ALIKES)
    return "".join(out)


def _month_mended(text: str) -> str | None:
    """`text` with each three-letter run that is no month name replaced by the one month
    abbreviation a single edit away; None when a run is near no month or near several."""
    names = {n: v for n, v in month_names().items() if len(n) == 3 and n.isalpha()}
    changed = False

    def mend(m: re.Match[str]) -> str:
        nonlocal changed
        run = fold(m.group(0))
        if run in names:
            return m.group(0)
        near_months = {names[n] for n in names if distance(run, n, 1) <= 1}
        if len(near_months) != 1:
            raise LookupError(run)
        changed = True
        number = near_months.pop()
        return next(n for n in _ENGLISH if names.get(n) == number).title()

    try:
        mended = re.sub(r"(?<![A-Za-z])[A-Za-z]{3}(?![A-Za-z])", mend, text)
    except LookupError:
        return None
    return mended if changed else None


_ENGLISH = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
            "dec")


def _split_at(words: list[Word], end: int) -> tuple[list[Word], list[Word]]:
    """(the words up to character `end` of their joined text, the words after it); a word
    that `end` falls inside is cut there (`Period:.01-Sep-2024`)."""
    head: list[Word] = []
    pos = 0
    for i, w in enumerate(words):
        stop = pos + len(w.text)
        if stop <= end:
            head.append(w)
        elif pos < end:
            cut = end - pos
            share = (w.x1 - w.x0) * cut / max(len(w.text), 1)
            if w.text[:cut].strip():
                head.append(w._replace(text=w.text[:cut].rstrip(), x1=w.x0 + share))
            return head, [w._replace(text=w.text[cut:], x0=w.x0 + share), *words[i + 1:]]
        else:
            return head, words[i:]
        pos = stop + 1
    return head, []
