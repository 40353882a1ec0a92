"""The words statements use, and tolerant matching of them.

A label matches whatever case, accents, spacing and punctuation it is printed with: `Account
No.` matches `ACCOUNT NO :` and `Account no`, `Opening Balance` matches `opening balance:`.
The shared vocabulary below knows the usual wordings of the opening and closing balance, the
statement period, the account number, balance brought/carried forward rows, totals and page
furniture in English, German, French and Spanish, so that a template only adds what is
particular to its bank. Everything here works on plain text and `Line`s, so any reader (the
template engine, the generic parser) can use it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Generic, TypeVar

from parsers.dates import date_pattern, fold, is_month, parse_date, parse_month
from parsers.layout.line_scan import lines_holding
from parsers.numbers import Amount, find_amounts, read_amount
from parsers.pdf.lines import Line
from parsers.pdf.page import Word

OPENING = (
    "Opening Balance", "Beginning Balance", "Previous Balance", "Previous Statement Balance",
    "Starting Balance", "Start Balance", "Balance Brought Forward", "Brought Forward",
    "Balance Forward", "Balance Last Statement", "Opening Bal", "Balance B/F", "B/F",
    "Last Statement Balance", "Alter Kontostand", "Kontostand alt",
    "Alter Saldo", "Saldo alt", "Anfangssaldo", "Anfangsbestand", "Saldovortrag",
    "Solde précédent", "Ancien solde", "Solde initial", "Solde de départ", "Saldo anterior",
    "Saldo inicial", "Saldo Anterior", "Beginsaldo", "Vorig saldo", "Oud saldo",
    "Saldo vorig afschrift", "Počiatočný zostatok", "Predchádzajúci zostatok",
    "Počáteční zůstatek",
)
CLOSING = (
    "Closing Balance", "Ending Balance", "New Balance", "Final Balance", "Statement Balance",
    "End Balance", "Balance Carried Forward", "Carried Forward", "Closing Bal", "Balance C/F",
    "C/F", "Total Dues", "Total Amount Due", "Total Payment Due", "Neuer Kontostand",
    "Kontostand neu", "Neuer Saldo", "Saldo neu", "Endsaldo", "Endbestand", "Schlusssaldo",
    "Nouveau solde", "Solde final", "Solde de clôture", "Saldo final", "Saldo actual",
    "Saldo al cierre", "Saldo al", "Eindsaldo", "Nieuw saldo", "Saldo nieuw", "Konečný zostatok",
    "Konečný zůstatek",
)
#: Rows inside a table that state a balance instead of moving money.
BALANCE_ROWS = (*OPENING, *CLOSING, "Übertrag", "Saldo Übertrag", "Report", "A reporter",
                "Suma y sigue")
PERIOD = (
    "Statement Period", "Period", "Statement Dates", "For the Period", "Billing Period",
    "Billing Cycle", "Statement Cycle", "Zeitraum", "Auszugszeitraum", "Abrechnungszeitraum",
    "Kontoauszug", "Période", "Periode", "Periodo", "Período", "Obdobie", "Výpis za obdobie",
)
#: A single date that ends the period (card statements print no start).
PERIOD_END = (
    "Statement Closing Date", "Closing Date", "Statement Date", "Period Ending",
    "Statement Period Ending", "Statement Generation Date", "Bill Date", "Billing Date",
    "Abschlussdatum", "Date d'arrêté", "Fecha de corte",
)
#: A single date that starts the period, and one that ends it, each under its own label
#: (`From Date: 03/06/2023` ... `To Date: 01/09/2023`, `Datum vanaf` over its date).
PERIOD_START = ("From Date", "Start Date", "Period From", "Statement From", "Datum vanaf",
                "Fecha desde", "Data inicial", "Von Datum")
PERIOD_STOP = ("To Date", "End Date", "Period To", "Statement To", "Datum tot en met",
               "Fecha hasta", "Data final", "Bis Datum")
ACCOUNT = (
    "Account Number", "Account No", "Account #", "Account ending in", "Account ending",
    "Acct No", "Acct #", "A/C No", "A/C Number", "Card ending in", "Card ending",
    "Card Number", "Card No", "Kontonummer", "Konto-Nr", "Kontonr", "IBAN", "Numéro de compte",
    "N° de compte", "No de compte", "Número de cuenta", "Nº de cuenta", "CBU", "CVU",
    "Número da conta", "Rekeningnummer", "Číslo účtu", "Account",
)
#: Words between the two dates of a period, and before the first.
PERIOD_TO = ("-", "–", "—", "to", "through", "thru", "until", "till", "bis", "au", "à",
             "al", "a", "hasta", "até", "tot en met", "t/m", "tot", "do")
PERIOD_FROM = ("from", "vom", "von", "du", "del", "de", "desde", "van", "vanaf", "od")
#: Date forms every reader knows without being told (none is ambiguous day/month).
UNAMBIGUOUS_DATES = ("%d %b %Y", "%B %d, %Y", "%d. %B %Y", "%Y-%m-%d", "%d.%m.%Y",
                     "%d-%b-%Y", "%d %b", "%b %d", "%d.%m.")
TOTALS = ("Total", "Totals", "Subtotal", "Sub-total", "Net Amount", "Net Activity",
          "Summe", "Gesamt", "Zwischensumme", "Sous-total", "Suma", "Totaal")
#: Page furniture: lines that can sit inside a table area and are no part of it. Each
#: pattern comes with words one of which every line it matches prints: most lines print
#: none, and looking for a few words costs far less than the patterns.
FURNITURE = (
    (("page", "seite", "blatt", "pagina", "página", "feuille"),
     r"^(?:page|seite|blatt|pagina|página|feuille)\s*\d+(?:\s*(?:of|von|de|sur|/)\s*\d+)?$"),
    (("contin", "fortsetzung", "suite"),
     r"^\(?(?:continued|fortsetzung|suite|continúa|continua)\b"),
    (("continue",), r"\b(?:continued|continues) (?:on|from|overleaf)\b"),
    (("continued", "fortsetzung"), r"\((?:continued|fortsetzung)\)$"),
    (("suite",), r"\bsuite (?:au verso|page)\b"),
    (("fdic",), r"\bmember fdic\b"), (("fdic",), r"\bfdic insured\b"),
    (("equal housing",), r"\bequal housing (?:lender|opportunity)\b"),
    (("ncua",), r"\bfederally insured by ncua\b"),
    (("computer generated",), r"\bcomputer generated statement\b"),
    (("einlagensicherung",), r"\beinlagensicherung"),
)


def label_regex(label: str) -> str:
    """A regex for `label` over folded text: any case and accents, flexible spacing and
    punctuation between its words, whole words only, an optional colon (or `.`, `#`; never a minus)
    after it. Matched text ends after that punctuation, where the value starts."""
    printed = _label_words(label)
    words = [re.escape(w) for w in printed]
    # "no word character before the first word", asked once that word is read: a regex
    # that starts with a literal word is looked for as fast as a plain substring, one
    # that starts with an assertion is tried at every place of the text
    first = rf"{words[0]}(?<!\w{words[0]})"
    body = r"[^\w\n]*".join([first, *words[1:]])
    end = r"(?!\w)" if re.match(r"\w", printed[-1]) else ""
    return rf"{body}{end}(?:\s*(?:[:#]|\.(?!\d)))*\s*"


def _label_words(label: str) -> list[str]:
    """The folded words (and `#`, `°`, `º`) a label's regex prints literally, in order."""
    tokens = re.findall(r"\w+|[^\w\s]", fold(label), flags=re.UNICODE)
    words = [t for t in tokens if re.match(r"\w", t) or t in "#°º"]
    if not words:
        raise ValueError(f"label {label!r} has no words")
    return words


@dataclass(frozen=True)
class LabelSet:
    """A set of labels made into one regex, with a word each of them prints literally: text
    holding none of those words holds none of the labels, and a plain substring test for a
    few words costs far less than the tolerant regex (`label_set`)."""

    regex: re.Pattern[str]
    keys: re.Pattern[str]
    #: The words `keys` looks for.
    words: tuple[str, ...]
    #: (label, the longest of its words) of every label, in the order of `regex`.
    longest: tuple[tuple[str, str], ...] = ()
    #: The distinct longest words of `longest`, in order.
    words_longest: tuple[str, ...] = ()
    #: The regex of the labels whose longest words are those of the key (`regex_in`).
    _subsets: dict[frozenset[str], re.Pattern[str]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)

    def search(self, folded: str) -> re.Match[str] | None:
        return self.regex.search(folded) if self.printed_in(folded) else None

    def match(self, folded: str, at_start: bool = False) -> re.Match[str] | None:
        """`match_folded` with these labels."""
        if not self.printed_in(folded):
            return None
        return self.regex.match(folded) if at_start else self.regex.search(folded)

    def regex_in(self, folded: str) -> re.Pattern[str]:
        """`regex` for the text `folded`: of the labels whose longest word it prints only,
        in the same order, so that it finds what `regex` finds there (a label matches only
        where each of its words is printed) and tries far fewer labels at every place. (It
        pays where every match in the text is looked for; a search that stops at the first
        costs less than choosing the labels.)"""
        printed = frozenset(word for word in self.words_longest if word in folded)
        regex = self._subsets.get(printed)
        if regex is None:
            regex = self._subsets[printed] = _alternatives(
                [lb for lb, word in self.longest if word in printed])
        return regex

    def printed_in(self, folded: str) -> bool:
        """Whether `folded` may hold one of the labels (it holds none when this is False)."""
        return self.keys.search(folded) is not None

    def lines_printing(self, lines: Sequence[Line]) -> Iterator[int]:
        """The index of each line that may hold one of the labels (`printed_in`), in order:
        the words are looked for once in all the lines' folded text (`scan.py`)."""
        return lines_holding(self.words, [ln.folded for ln in lines])


def label_set(labels: Sequence[str]) -> LabelSet:
    """`labels` as one `LabelSet`, made once per process: a reader that looks for the same
    labels in every line holds it (finding it again hashes the labels, which costs more
    than telling that a line prints none of them)."""
    return _labels(tuple(labels))


@functools.cache
def _labels(labels: tuple[str, ...]) -> LabelSet:
    ordered = sorted(set(labels), key=len, reverse=True)
    longest = {max(_label_words(lb), key=len) for lb in ordered}
    # A word that holds another is present only where that one is: testing the shorter suffices.
    keys = sorted(k for k in longest if not any(o != k and o in k for o in longest))
    pairs = tuple((lb, max(_label_words(lb), key=len)) for lb in ordered)
    return LabelSet(_alternatives(ordered), re.compile("|".join(re.escape(k) for k in keys)),
                    tuple(keys), pairs, tuple(dict.fromkeys(word for _, word in pairs)))


def _alternatives(labels: Sequence[str]) -> re.Pattern[str]:
    """The labels' regexes as one, tried in the order given (one that matches nothing when
    there are none)."""
    return re.compile("|".join(f"(?:{label_regex(lb)})" for lb in labels) or "(?!)")


def match_label(text: str, labels: Sequence[str], *, at_start: bool = False
                ) -> re.Match[str] | None:
    """The first (leftmost, then longest) match of any of `labels` in `text`."""
    return match_folded(fold(text), labels, at_start)


def match_folded(folded: str, labels: Sequence[str], at_start: bool = False
                 ) -> re.Match[str] | None:
    """`match_label` of text already `fold`ed (a line's `folded`, folded once for all the
    labels looked for in it)."""
    return _labels(tuple(labels)).match(folded, at_start)


def label_in(folded: str, labels: Sequence[str]) -> bool:
    """Whether one of `labels` is printed in `folded` (text already `fold`ed, so a long
    text is folded once for many labels)."""
    return _labels(tuple(labels)).search(folded) is not None


def starts_with_label(text: str, labels: Sequence[str]) -> bool:
    return match_label(text.strip(), labels, at_start=True) is not None


_HEADING_REST = re.compile(r"[\s().\-]*(?:continued|fortsetzung|suite)?[\s().\-]*")


def is_heading(text: str, labels: Sequence[str]) -> bool:
    """The text is one of the labels and nothing else, not even a colon (a section heading,
    not a label whose value follows); a trailing `(continued)` is allowed."""
    text = text.strip()
    folded = fold(text)
    m = match_folded(folded, labels, at_start=True)
    if m is None or ":" in text[m.start():m.end()]:
        return False
    return _HEADING_REST.fullmatch(folded, m.end()) is not None


@functools.cache
def _furniture(extra: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(any word one of which every furniture line prints, the patterns), as regexes."""
    patterns = [*(p for _, p in FURNITURE), *(label_regex(e) for e in extra)]
    return (re.compile("|".join(re.escape(w) for w in sorted(_furniture_words(extra)))),
            re.compile("|".join(patterns)))


def _furniture_words(extra: tuple[str, ...]) -> set[str]:
    """The words one of which every furniture line prints (`FURNITURE`, and the longest
    word of each of the template's `extra` labels)."""
    return {w for ws, _ in FURNITURE for w in ws} | {max(_label_words(e), key=len)
                                                      for e in extra}


def furniture_lines(folded: Sequence[str], extra: Sequence[str] = ()) -> set[int]:
    """The index of each of the `folded` texts (lines' `folded`) that may be furniture (the
    others are not, by `furniture_folded`): a word one of which every furniture line
    prints, looked for in all the texts at once (`scan.py`)."""
    return set(lines_holding(_furniture_keys(tuple(extra)), folded))


@functools.cache
def _furniture_keys(extra: tuple[str, ...]) -> frozenset[str]:
    """The first word of each of `_furniture`'s words: text that holds one of those words,
    its spaces aside, holds that word."""
    return frozenset(w.split()[0] for w in _furniture_words(extra))


def is_furniture(text: str, extra: Sequence[str] = ()) -> bool:
    """Page furniture (page numbers, "continued", regulatory footers) or a template's own."""
    return furniture_folded(fold(text), extra)


def furniture_folded(folded: str, extra: Sequence[str] = ()) -> bool:
    """`is_furniture` of text already `fold`ed."""
    folded = " ".join(folded.split())
    words, patterns = _furniture(tuple(extra))
    return words.search(folded) is not None and patterns.search(folded) is not None


# --- values after (or under) a label -----------------------------------------------------

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
    wanted = _labels(tuple(labels))
    blocking = _labels(tuple(blockers)) if blockers else None
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
    wanted = _labels(tuple(labels))
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


Period = tuple[date, date, Line]


def find_period(lines: Sequence[Line], formats: Sequence[str], labels: Sequence[str] = (),
                *, labelled_only: bool = False) -> Period | None:
    """The statement period: the first range after a period label (on its line or the line
    above), else (unless `labelled_only`) the first range anywhere; both dates in one of
    `formats`."""
    labelled, anywhere = periods(lines, formats, labels)
    return labelled if labelled is not None or labelled_only else anywhere


def periods(lines: Sequence[Line], formats: Sequence[str], labels: Sequence[str] = ()
            ) -> tuple[Period | None, Period | None]:
    """(what `find_period` finds with `labelled_only`, the first range anywhere): both from
    one pass over the lines, for a reader that asks for both of the same lines."""
    return Periods(formats, labels)(lines)


class Periods:
    """`periods` for one set of formats and labels, each line read once however many of the
    lists that hold it are asked (a statement's lines for its period, then each account
    section's for its own). What it read is kept by line, so one serves the lines of one
    reading only."""

    def __init__(self, formats: Sequence[str], labels: Sequence[str] = ()) -> None:
        self.formats, self.labels = formats, (*PERIOD, *labels)
        self.days = [f for f in formats if not is_month(f)]
        self.months = [f for f in formats if is_month(f)]
        self.regex = _range_regex(tuple(self.days)) if self.days else None
        #: id(line) -> its ranges: (start, end, whether a label stands before it on the line)
        self._ranges: dict[int, list[tuple[date, date, bool]]] = {}
        #: id(line) -> whether a label is printed on it
        self._labelled: dict[int, bool] = {}
        #: id(line) -> the month a label names on it
        self._months: dict[int, tuple[date, date] | None] = {}

    def __call__(self, lines: Sequence[Line]) -> tuple[Period | None, Period | None]:
        """`periods` of `lines`."""
        if self.regex is None:
            return self._month(lines), None
        fallback: Period | None = None
        for i, ln in enumerate(lines):
            if not ln.has_digit:  # no date to find (and most lines print none)
                continue
            for start, end, labelled in self._read(ln):
                if labelled or (i > 0 and lines[i - 1].page == ln.page
                                and self._is_labelled(lines[i - 1])):
                    return (start, end, ln), fallback
                fallback = fallback or (start, end, ln)
        return self._month(lines), fallback

    def _read(self, ln: Line) -> list[tuple[date, date, bool]]:
        """The ranges `ln` prints, in order (a range that ends before it starts is none)."""
        ranges = self._ranges.get(id(ln))
        if ranges is not None:
            return ranges
        ranges = self._ranges[id(ln)] = []
        if self.regex is None:
            return ranges
        for m in self.regex.finditer(ln.text):
            try:
                end = parse_date(m["end"], self.days)
                start = parse_date(m["start"], _with_yearless(self.days), end)
            except ValueError:
                continue
            if start <= end:
                ranges.append((start, end,
                               match_label(ln.text[:m.start()], self.labels) is not None))
        return ranges

    def _is_labelled(self, ln: Line) -> bool:
        labelled = self._labelled.get(id(ln))
        if labelled is None:
            labelled = self._labelled[id(ln)] = match_label(ln.text, self.labels) is not None
        return labelled

    def _month(self, lines: Sequence[Line]) -> Period | None:
        """A whole month after a period label (`Kontoauszug Dezember 2021`), for templates
        with a month format (`%B %Y`)."""
        if not self.months:
            return None
        for ln in lines:
            if id(ln) not in self._months:
                self._months[id(ln)] = self._month_on(ln)
            found = self._months[id(ln)]
            if found is not None:
                return found[0], found[1], ln
        return None

    def _month_on(self, ln: Line) -> tuple[date, date] | None:
        for m in re.finditer(date_pattern(self.months), ln.text):
            if match_label(ln.text[:m.start()], self.labels) is None:
                continue
            try:
                return parse_month(m.group(0), self.months)
            except ValueError:
                continue
        return None


@functools.cache
def _range_regex(days: tuple[str, ...]) -> re.Pattern[str]:
    """A range of two dates in `days` forms, made once per set of forms; its first date
    may leave out the year its end prints (`From December 15 to January 14, 2024`)."""
    d = date_pattern(days)
    first = date_pattern(_with_yearless(days))
    to = "|".join(re.escape(w) for w in sorted(PERIOD_TO, key=len, reverse=True))
    frm = "|".join(PERIOD_FROM)
    # A range starts where a date may (`date_pattern`'s look-behind), with its first date or
    # a whole `from` word, not the `de` that ends `Periode`; tried only there, the search is
    # about 1.6x faster.
    return re.compile(rf"(?<![\w.])(?:(?:{frm})\s+)?(?P<start>{first})\s*(?:{to})\s*"
                      rf"(?P<end>{d})", re.IGNORECASE)


_YEAR_AT_END = re.compile(r"[ ,./-]*%[Yy]$")


def _with_yearless(days: Sequence[str]) -> tuple[str, ...]:
    """`days`, and each form with a year at its end without it (`%B %d, %Y`: `%B %d`)."""
    return tuple(dict.fromkeys([*days, *(_YEAR_AT_END.sub("", f) for f in days
                                        if _YEAR_AT_END.search(f))]))


def find_period_end(lines: Sequence[Line], formats: Sequence[str], labels: Iterable[str] = (),
                    *, read_below: bool = False) -> Found | None:
    """A single date that ends the period, after one of the period-end labels (with
    `read_below`, or under it)."""
    return find_labelled_date(lines, (*PERIOD_END, *labels), formats, read_below=read_below)


def find_labelled_date(lines: Sequence[Line], labels: Sequence[str], formats: Sequence[str],
                       *, read_below: bool = False) -> Found | None:
    """The date in one of `formats` printed right after one of `labels` (with
    `read_below`, or under it)."""
    d = re.compile(date_pattern(formats))

    def read(text: str) -> date | None:
        m = d.search(text)
        if m is None or text[:m.start()].strip(" :"):
            return None
        try:
            return parse_date(m.group(0), formats)
        except ValueError:
            return None

    return find_labelled(lines, labels, read, read_below=read if read_below else None)
