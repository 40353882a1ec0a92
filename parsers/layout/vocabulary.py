"""The words statements use, and tolerant matching of them.

A label matches whatever case, accents, spacing and punctuation it is printed with: `Account
No.` matches `ACCOUNT NO :` and `Account no`, `Opening Balance` matches `opening balance:`.
The shared vocabulary below knows the usual wordings of the opening and closing balance, the
statement period, the account number, balance brought/carried forward rows, totals and page
furniture in English, German, French and Spanish, so that a template only adds what is
particular to its bank. Everything here works on plain text and `Line`s, so any reader (the
template engine, the generic parser) can use it; the values printed after a label are read
in `labelled.py`, the statement period in `periods.py`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from parsers.dates import fold
from parsers.layout.line_scan import lines_holding
from parsers.pdf.lines import Line

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
