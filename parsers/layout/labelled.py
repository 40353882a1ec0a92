"""Values printed after (or under) a label: `Opening Balance: 1,234.56`, `Account No.`
over its number.

The first label of a list that a line prints, matched tolerantly (`vocabulary.py`), is
followed on its line by the value a reader accepts, or stands alone with the value in its
cell on the line under it (on the next page when the label ends its page, below that
page's repeated header). The readers of amounts and account numbers after a label are here
too, as every reader of labelled figures (the engine, the generic reader) reads them alike.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Generic, TypeVar

from parsers.dates import date_pattern, fold, parse_date
from parsers.layout.vocabulary import UNAMBIGUOUS_DATES, LabelSet, is_furniture, label_set
from parsers.numbers import Amount, find_amounts, read_amount
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

T = TypeVar("T")


@dataclass(frozen=True)
class Found(Generic[T]):
    """A labelled value and where it was printed."""

    value: T
    line: Line
    label: str
    #: True when the value sat on the line under its label.
    below: bool = False
    #: Where the text after the label starts in the line's text.
    after: int = 0

    def words(self, locale: str = "en") -> list[Word]:
        """The words the value was read from on the label's line: those of the first amount
        after the label (dates skipped, as `amount_reader` skips them), else every word after
        the label with a digit; none for a value under its label."""
        if self.below:
            return []
        rest = self.line.text[self.after:]
        found = find_amounts(_blank_dates(rest), locale)
        if found:
            return _words_in_span(self.line, self.after + found[0][1], self.after + found[0][2])
        return [w for w in _words_in_span(self.line, self.after, len(self.line.text))
                if any(c.isdigit() for c in w.text)]

    def account_words(self) -> list[Word]:
        """The words `read_last4` read the account number from on the label's line (the
        leading run of number words after the label, or its IBAN); none for a value under
        its label. A date printed further along the line is no part of it."""
        if self.below:
            return []
        words = _words_in_span(self.line, self.after, len(self.line.text))
        iban = _IBAN.match(" ".join(w.text for w in words).replace(":", " "))
        if iban:
            starts = itertools.accumulate((len(w.text) + 1 for w in words), initial=0)
            return [w for w, at in zip(words, starts, strict=False) if at < iban.end()]
        run = []
        for w in words:
            tokens = w.text.replace(":", " ").split()
            if tokens and not all(_ACCOUNT_TOKEN.fullmatch(t) for t in tokens):
                break
            run.append(w)
        return run


def find_labelled(lines: Sequence[Line], labels: Sequence[str],
                  read: Callable[[str], T | None], *,
                  read_below: Callable[[str], T | None] | None = None,
                  blockers: Sequence[str] = (), in_cell: bool = False) -> Found[T] | None:
    """The first line (in order) where one of `labels` is followed by a value `read` accepts
    on the same line; or, when the label stands alone, where the next line starts under the
    label with a value `read_below` (default `read`) accepts. A match inside a longer
    `blockers` label (`Statement Balance` in `Previous Statement Balance`) does not count;
    with `in_cell`, nor does one inside running text (`... charged on the Total Amount due`):
    a label starts its line, or a cell of it (a wide gap, or a colon or figure, before it)."""
    return next(every_labelled(lines, labels, read, read_below=read_below, blockers=blockers,
                               in_cell=in_cell), None)


def every_labelled(lines: Sequence[Line], labels: Sequence[str],
                   read: Callable[[str], T | None], *,
                   read_below: Callable[[str], T | None] | None = None,
                   blockers: Sequence[str] = (), in_cell: bool = False
                   ) -> Iterator[Found[T]]:
    """What `find_labelled` finds in `lines`, then what it finds in the lines after that
    value's label line, and so on: from one look for the labels' words in all the lines.
    Each search sees only the lines after the last label line found (a page's lines above
    them tell its repeated header, `_under`)."""
    wanted = label_set(labels)
    blocking = label_set(blockers) if blockers else None
    start = 0
    for i in wanted.lines_printing(lines):
        found = _labelled_on(lines, i, start, wanted, blocking, read, read_below, in_cell)
        if found is not None:
            yield found
            start = i + 1


def _labelled_on(lines: Sequence[Line], i: int, start: int, wanted: LabelSet,
                 blocking: LabelSet | None, read: Callable[[str], T | None],
                 read_below: Callable[[str], T | None] | None,
                 in_cell: bool = False) -> Found[T] | None:
    """`find_labelled`'s value for the line `lines[i]`, the search having started at
    `lines[start]`."""
    ln = lines[i]
    text, folded = ln.text, ln.folded
    blocked: list[tuple[int, int]] | None = None
    for m in wanted.regex_in(folded).finditer(folded):
        if blocked is None:
            blocked = [b.span() for b in blocking.regex_in(folded).finditer(folded)] \
                if blocking and blocking.printed_in(folded) else []
        if any(a <= m.start() and m.end() <= b and b - a > m.end() - m.start()
               for a, b in blocked):
            continue
        if in_cell and not _starts_cell(ln, m.start()):
            continue
        label = text[m.start():m.end()].strip()
        value = read(text[m.end():])
        if value is not None:
            return Found(value, ln, label, after=m.end())
        if find_amounts(text[m.end():]):
            continue
        searched = lines[start:] if start else lines
        below = _under(ln, m.start(), m.end(), searched, i - start)
        value = None if below is None else (read_below or read)(below)
        if value is not None:
            return Found(value, ln, label, below=True)
    return None


def _under(ln: Line, start: int, end: int, lines: Sequence[Line], i: int) -> str | None:
    """The words of the line under the label that stand in the label's cell (from the
    label's left edge to the next label on its line): on the next line when it follows
    closely, or, when the label ends its page, on the first line of the next page that is
    not that page's repeated header."""
    height = ln.bottom - ln.top
    nxt = _next_on_page(lines, i)
    if nxt is None:
        nxt = _first_after_page_header(lines, i)
    elif nxt.top - ln.bottom > 1.2 * height:
        return None
    span = _words_in_span(ln, start, end)
    if nxt is None or not span or not nxt.words:
        return None
    right = next((w.x0 for w in ln.words if w.x0 > span[-1].x1 + 2 * height), float("inf"))
    left = next((w.x1 for w in reversed(ln.words) if w.x1 < span[0].x0 - 2 * height), None)
    # a figure set flush right under a label set flush left starts left of the label: a
    # word stands in the cell if it reaches into the label's span (and not back over the
    # label before it)
    cell = [w for w in nxt.words if (span[0].x0 - 2 <= w.x0 or (
        w.x1 > span[0].x0 and (left is None or w.x0 > left))) and w.x0 < right]
    return " ".join(w.text for w in cell) if cell else None


def label_without_value(lines: Sequence[Line], labels: Sequence[str]) -> str | None:
    """Where one of `labels` is printed, and what follows it (or stands under it): why a
    figure was not read, for an author to see."""
    wanted = label_set(labels)
    for i, ln in enumerate(lines):
        m = wanted.search(ln.folded)
        if m is None:
            continue
        after = ln.text[m.end():].strip()
        below = None if after else _under(ln, m.start(), m.end(), lines, i)
        label = ln.text[m.start():m.end()].strip(" :")
        if after:
            return f"{label!r} on page {ln.page} is followed by {after!r}"
        if below:
            return f"{label!r} on page {ln.page} has {below!r} under it"
        return f"{label!r} on page {ln.page} has no figure after or under it"
    return None


def _next_on_page(lines: Sequence[Line], i: int) -> Line | None:
    """The line after `lines[i]` on its page, page furniture and watermarks aside."""
    for ln in lines[i + 1:]:
        if ln.page != lines[i].page:
            return None
        if not ln.large and not is_furniture(ln.text):
            return ln
    return None


def _first_after_page_header(lines: Sequence[Line], i: int) -> Line | None:
    """The first line of the next page below the lines that repeat the top of `lines[i]`'s
    page (the page header, page numbers aside)."""
    page = lines[i].page
    tops = {(_digitless(ln.text), round(ln.top)) for ln in lines if ln.page == page}
    for ln in lines[i + 1:]:
        if ln.page == page:
            continue
        if ln.page != page + 1:
            return None
        if not ln.large and (_digitless(ln.text), round(ln.top)) not in tops and not any(
                (_digitless(ln.text), round(ln.top) + d) in tops for d in (-1, 1)):
            return ln
    return None


def _digitless(text: str) -> str:
    return re.sub(r"\d+", "#", fold(text))


def _starts_cell(ln: Line, start: int) -> bool:
    """Whether the text at `start` of the line's text is no part of running text: it
    begins the line or a cell of it (the word before it stands further off than a space,
    or ends in a colon or a digit), or the word before it is a capitalised one of the
    label's (`TOTAL NEW BALANCE`, `Your Total Amount Due`), not lower-case prose."""
    words, pos = ln.words, 0
    for k, w in enumerate(words):
        if pos >= start:
            if k == 0:
                return True
            before = words[k - 1]
            return (before.text[-1:] in ":|" or before.text[-1:].isdigit()
                    or w.x0 - before.x1 > 0.8 * (w.bottom - w.top)
                    or not before.text[:1].islower())
        pos += len(w.text) + 1
    return False


def _words_in_span(ln: Line, start: int, end: int) -> list[Word]:
    out, pos = [], 0
    for w in ln.words:
        if pos < end and pos + len(w.text) > start:
            out.append(w)
        pos += len(w.text) + 1
    return out


_ANY_DATE = (*UNAMBIGUOUS_DATES, "%m/%d/%Y", "%m/%d", "%d/%m/%Y", "%d/%m")


@functools.cache
def _any_date() -> re.Pattern[str]:
    """`_ANY_DATE` as one regex, made once: every value after a label is read through it."""
    return re.compile(date_pattern(_ANY_DATE))


def _blank_dates(text: str) -> str:
    """The text with every date it prints replaced by spaces (so `31.12.2025` is no amount)."""
    out = text
    for m in _any_date().finditer(text):
        try:
            parse_date(m.group(0), _ANY_DATE, date(2400, 12, 31))
        except ValueError:
            continue
        out = out[:m.start()] + " " * (m.end() - m.start()) + out[m.end():]
    return out


#: Every amount prints a digit (`find_amounts`): text without one is not read for one.
_DIGIT = re.compile(r"\d")


def amount_reader(locale: str) -> Callable[[str], Amount | None]:
    """Reads the first amount after a label, dates and words before it skipped."""
    return functools.partial(_first_amount, locale=locale)


@functools.lru_cache(maxsize=4096)
def _first_amount(text: str, locale: str) -> Amount | None:
    """`amount_reader`'s reading, kept: the text after a balance label is read again when
    an account's section is checked for a second balance."""
    if _DIGIT.search(text) is None:  # no amount (blanking dates adds no digit)
        return None
    found = find_amounts(_blank_dates(text), locale)
    return found[0][0] if found else None


def exact_amount_reader(locale: str) -> Callable[[str], Amount | None]:
    def read(text: str) -> Amount | None:
        try:
            return read_amount(text, locale)
        except ValueError:
            return None
    return read


_ACCOUNT_TOKEN = re.compile(r"(?:[A-Z]{2}\d{2}|[\dXx*•#\-]*\d[\dXx*•#\-]*|[Xx*•#]+)")


#: An IBAN, its groups of four letters or digits spaced or not (`NL13 RABO 0122 1186 50`).
_IBAN = re.compile(r"[A-Z]{2}\d{2}(?: ?[A-Z0-9*Xx•]{4}){2,7}(?: ?[A-Z0-9*Xx•]{1,3})?(?![\w*])")


def read_last4(text: str) -> str | None:
    """The last four digits of the account number printed at the start of `text`
    (`****1234`, `XXXX XXXX 1234`, `DE89 **** **** **30 00`, `20-5678-1234`, an IBAN
    `NL13 RABO 0122 1186 50`)."""
    iban = _IBAN.match(text.replace(":", " ").strip())
    if iban:
        digits = re.sub(r"\D", "", iban.group(0)[4:])
        return digits[-4:] if len(digits) >= 4 and iban.group(0)[-1].isdigit() else None
    run: list[str] = []
    for token in text.replace(":", " ").split():
        if not _ACCOUNT_TOKEN.fullmatch(token):
            break
        run.append(token)
    digits = re.sub(r"\D", "", "".join(run))
    if len(digits) < 4 or not run or not run[-1][-1].isdigit():
        return None
    return digits[-4:]
