"""Which figures OCR read with little confidence the running balance still vouches for.

A scanned figure read below the review confidence is not taken on OCR's word. It is trusted
when the printed running balance pins it: the figure sits in an unbroken stretch of printed
balances that agree with the amounts between them (the printed opening and closing count):
an amount between two printed balances, a balance followed by another printed balance or by
the printed closing balance. A break in the chain (a misread figure) costs the figures
around it, not the rest of the account. Two independent readings then agree on it, and a
misread digit would have broken the chain. Where a day-end balance sums several rows, the two
printed balances around them pin the rows' sum: the one amount among them read with little
confidence is pinned by the others, read confidently. A figure not pinned that way (two
doubtful amounts in one sum, a derived opening or closing balance) goes to review, and says
why.

No arithmetic checks a date or a description, so other evidence must: a date read with
little confidence stands when the confidently read dates around it are its own day (and the
table's dates are in order), or when a second, independent reading read it alike and it
falls in the period, in order between them; a description word when it is a plain word
that the statement prints confidently elsewhere or that is a word of the language
(`lexicon.py`), or letters and digits that two independent readings read alike. A word
that reads as an ordinal or a number once its look-alike letters are digits (`STH` for
`5TH`), a word the language does not know that is words it knows run together
(`GYMMEMBERSHIP`: OCR lost the space), a word joined across a speck (`STORE.0912`) or two
numbers side by side (`20251 10400193`, `00826821 42-C`: OCR may have read a space into
one) are never taken, however confidently they were read (`reread.py` reads the first two
again, and splits them where the readings show the space; the numbers stand where the second
engine, reading both in one crop, reads the space too: `witness.read_apart`).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from parsers.model import Account, money
from parsers.ocr.reread import PLAIN, number_like

#: A value OCR read below this confidence is not taken on its word: a row's date or
#: description then goes to review (only confidence speaks for them); a figure goes to
#: review unless the running balance pins it (below).
OCR_REVIEW_CONFIDENCE = 90.0


@dataclass(frozen=True)
class Doubt:
    """A figure OCR read below the review confidence."""

    row: int  # from 0, in the account's transactions
    figure: str  # "amount" or "balance"
    confidence: float
    #: The figure as printed when its punctuation is broken (`372:52`): the running balance
    #: alone then vouches for the one reading its digits allow.
    printed: str | None = None
    #: How the figure's row was put together from OCR's words when that was unusual (read
    #: on a line apart from the row, beside noise): the running balance alone vouches.
    assembled: str | None = None


def weigh(acct: Account, doubts: list[Doubt], opening_printed: bool, closing_printed: bool,
          where: str) -> tuple[list[str], list[str]]:
    """(problems, trusted): a problem for every doubtful figure the chain does not pin, a
    note for every one it does."""
    amounts, balances = pinned(acct, opening_printed, closing_printed)
    amounts |= alone_in_sum(acct, doubts, opening_printed, closing_printed)
    problems, trusted = [], []
    for d in doubts:
        t = acct.transactions[d.row]
        value = t.amount if d.figure == "amount" else t.balance
        said = (f"{where} row {d.row + 1}: {d.figure} {money(value or Decimal(0))} read by OCR "
                + (f"as {d.printed!r}, its punctuation broken" if d.printed else
                   d.assembled if d.assembled else
                   f"with confidence {d.confidence:.0f}"))
        if d.row in (amounts if d.figure == "amount" else balances):
            trusted.append(f"{said}, trusted: the running balance pins it")
        else:
            problems.append(f"{said}, and the running balance does not pin it: "
                            f"{_why(acct, d, opening_printed, closing_printed)}")
    return problems, trusted


def pinned(acct: Account, opening_printed: bool, closing_printed: bool
           ) -> tuple[set[int], set[int]]:
    """(rows whose amount, rows whose balance) the printed running balance pins. The chain
    is weighed stretch by stretch (`_stretches`), so a misread figure costs the figures it
    could have been traded with, not every row after it: a balance is pinned when the
    stretches on both sides of it hold, an amount between two printed balances when its own
    stretch holds and so do the ones before and after it (a misread amount hidden by a
    misread balance next to it breaks the stretch beyond)."""
    anchors, holds = _stretches(acct, opening_printed, closing_printed, set())
    at = {row: k for k, (row, is_balance) in enumerate(anchors) if is_balance}
    balances = {i for i, k in at.items()
                if k + 1 < len(anchors) and holds[k] and (k == 0 or holds[k - 1])}
    amounts = set()
    for i in balances:
        k = at[i]
        before = k - 1  # the anchor just before row i: row i - 1's balance or the opening
        if before >= 0 and anchors[before][0] == i - 1 and (before == 0 or holds[before - 1]):
            amounts.add(i)
    return amounts, balances


def alone_in_sum(acct: Account, doubts: list[Doubt], opening_printed: bool,
                 closing_printed: bool) -> set[int]:
    """Rows whose amount is the one doubtful amount of the rows between two printed balances
    (the printed opening and closing count): the two pin the rows' sum, and the others were
    read confidently, so they pin it too, where that stretch holds and so do the ones on
    either side of it. A balance that is itself doubtful pins nothing. The sum pins a value,
    not the row it belongs to, nor the reading of broken punctuation: an amount whose row
    was put together unusually (`assembled`) or whose punctuation was mended (`printed`) is
    not pinned by a sum."""
    if not acct.transactions:
        return set()
    unsure = {d.row for d in doubts if d.figure == "balance"}
    anchors, holds = _stretches(acct, opening_printed, closing_printed, unsure)
    doubtful = {d.row for d in doubts if d.figure == "amount"}
    plain = {d.row for d in doubts if d.figure == "amount" and not d.assembled
             and not d.printed}
    found: set[int] = set()
    for k, ((p, _), (q, _)) in enumerate(itertools.pairwise(anchors)):
        rows = doubtful & set(range(p + 1, q + 1))
        sound = holds[k] and (k == 0 or holds[k - 1]) and (k + 1 >= len(holds) or holds[k + 1])
        if len(rows) == 1 and sound:
            found |= rows & plain
    return found


def _stretches(acct: Account, opening_printed: bool, closing_printed: bool,
               unsure: set[int]) -> tuple[list[tuple[int, bool]], list[bool]]:
    """The printed balances the chain runs through, as (row, whether it is a row's own
    balance): the opening (row -1) and the closing (the last row) where printed, every row's
    balance but those in `unsure`; and whether each stretch between two of them holds (the
    balance before it plus the amounts of its rows is the balance after it)."""
    txs = acct.transactions
    points: list[tuple[int, bool, Decimal]] = []
    if opening_printed:
        points.append((-1, False, acct.opening_balance))
    points += [(i, True, t.balance) for i, t in enumerate(txs)
               if t.balance is not None and i not in unsure]
    if closing_printed and txs:
        points.append((len(txs) - 1, False, acct.closing_balance))
    holds = [a + sum((t.amount for t in txs[p + 1:q + 1]), Decimal(0)) == b
             for (p, _, a), (q, _, b) in itertools.pairwise(points)]
    return [(row, own) for row, own, _ in points], holds


def _reconciles(acct: Account) -> bool:
    running = acct.opening_balance
    for t in acct.transactions:
        running += t.amount
        if t.balance is not None and t.balance != running:
            return False
    return running == acct.closing_balance


def _why(acct: Account, d: Doubt, opening_printed: bool, closing_printed: bool) -> str:
    txs = acct.transactions
    if not _reconciles(acct):
        return "the account does not reconcile"
    if txs[d.row].balance is None:
        return "no balance is printed on its row"
    if d.figure == "amount" and (txs[d.row - 1].balance is None if d.row
                                 else not opening_printed):
        return ("no balance is printed on the row before it" if d.row
                else "the opening balance is not printed")
    return ("the closing balance is not printed" if not closing_printed
            else "no balance is printed after it")


# --- dates and descriptions -------------------------------------------------------------

def dates_pinned(dates: list[tuple[date, float | None]], gate: float) -> set[int]:
    """Rows whose date, read below `gate` (or not read on the row at all: `None`, a date
    carried from the row above), the dates read confidently around it pin: the nearest such
    date before it and the nearest after it that are in order (`in_order`) are the row's
    date (so nothing but that day fits between them)."""
    sure = in_order(dates, [i for i, (_, conf) in enumerate(dates)
                            if conf is not None and conf >= gate])
    if sure is None:
        return set()
    out = set()
    for i, (day, conf) in enumerate(dates):
        if conf is not None and conf >= gate:
            continue
        before = [k for k in sure if k < i]
        after = [k for k in sure if k > i]
        if before and after and dates[before[-1]][0] == day == dates[after[0]][0]:
            out.add(i)
    return out


#: Of this many dates read confidently, one may be out of order (a misread) and the others
#: still pin the dates around them.
_ONE_IN = 10


def in_order(dates: list[tuple[date, float | None]], sure: list[int]) -> list[int] | None:
    """Those of the rows `sure` (dates read confidently) whose dates are in order: the
    longest run of them in order (not always adjacent) where at most one in `_ONE_IN` stands
    out of it — a date misread confidently costs its own row, not every row of the table —
    and None where more do (a table not in date order, whose dates pin nothing)."""
    tails: list[date] = []  # tails[k]: the least last date of an ordered run of k + 1
    ends: list[int] = []  # the position in `sure` of that run's last date
    before: list[int] = []  # per position, the one before it in its run (-1: none)
    for pos, i in enumerate(sure):
        k = bisect_right(tails, dates[i][0])
        before.append(ends[k - 1] if k else -1)
        if k == len(tails):
            tails.append(dates[i][0])
            ends.append(pos)
        else:
            tails[k], ends[k] = dates[i][0], pos
    if len(sure) - len(tails) > len(sure) // _ONE_IN:
        return None
    run, pos = [], ends[-1] if ends else -1
    while pos >= 0:
        run.append(sure[pos])
        pos = before[pos]
    return run[::-1]


def dates_in_order(dates: list[tuple[date, float | None]], gate: float, twice: list[bool],
                   period: tuple[date | None, date]) -> set[int]:
    """Rows whose date, read below `gate`, two independent readings read alike (`twice`),
    within the statement `period`, and no earlier than the nearest date read confidently
    before it nor later than the nearest after it (the period's ends standing in where
    there is none; only the confidently read dates in order count, `in_order`): a digit
    misread alike twice would still have to fall in that span."""
    start, end = period
    sure = in_order(dates, [i for i, (_, conf) in enumerate(dates)
                            if conf is not None and conf >= gate])
    if start is None or sure is None:
        return set()
    out = set()
    for i, (day, conf) in enumerate(dates):
        if conf is None or conf >= gate or not twice[i]:
            continue
        before = [dates[k][0] for k in sure if k < i]
        after = [dates[k][0] for k in sure if k > i]
        if start <= (before[-1] if before else start) <= day \
                <= (after[0] if after else end) <= end:
            out.add(i)
    return out


#: Letters OCR reads for the digit they look like, and that digit.
_DIGIT_LIKE = {"O": "0", "I": "1", "L": "1", "Z": "2", "S": "5", "G": "6", "B": "8"}
_ORDINAL = re.compile(r"(?P<n>[OILZSGB]+)(?P<suffix>ST|ND|RD|TH)")


def ordinal_look_alike(word: str) -> bool:
    """Whether `word`, its look-alike letters read as digits, is an ordinal (`STH` for
    `5TH`, `IST` for `1ST`): a word OCR may have read either way, however sure it was."""
    m = _ORDINAL.fullmatch(word.upper())
    if m is None:
        return False
    n = int("".join(_DIGIT_LIKE[c] for c in m["n"]))
    suffix = {1: "ST", 2: "ND", 3: "RD"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0,
                                             "TH")
    return m["suffix"] == suffix


#: A word of the language read with less confidence than this is not taken on the
#: dictionary's strength: specks spell short words too (`oar` and `ote` read at 29 and 0 in
#: the scan corpus, where every real word the dictionary vouched for was read at 77 or more).
LEXICON_CONFIDENCE = 50.0


def word_vouched(word: str, conf: float, confident: frozenset[str], lexicon: frozenset[str],
                 twice: bool = False) -> bool:
    """Whether a description word OCR read below the review confidence can stand: two or
    more characters, no speck of punctuation at either end (which is what OCR adds), not
    an ordinal or a number once its look-alike letters are digits, and either read alike
    by a second, independent reading (`twice`; letters and digits, joined by a hyphen or
    a slash at most), or letters only and read confidently elsewhere in the statement, or,
    from three letters and read with confidence `conf` of at least LEXICON_CONFIDENCE, a
    word of the language (nearly every pair of letters is a word somewhere in a
    dictionary). A digit read alike twice stands as a figure read alike twice does; a digit
    read once never does."""
    if len(word) < 2 or ordinal_look_alike(word) or number_like(word):
        return False
    if twice and PLAIN.fullmatch(word):
        return True
    return word.isalpha() and (word in confident or (
        len(word) >= 3 and conf >= LEXICON_CONFIDENCE and word.upper() in lexicon))


def numbers_apart(first: str, second: str) -> bool:
    """Whether two words side by side meet in digits, the first ending in one and the
    second starting with one: one number OCR may have read a space into (`20251 10400193`,
    `00826821 42-C`), as likely as two numbers printed apart. Not where one of them is a
    day and month as printed (`004512 11/02`) and the other holds no slash: one number cut
    in two leaves no date whole beside digits, and a date cut leaves a slash on both sides
    (`2025/1 1/04`)."""
    if not (first[-1:].isdigit() and second[:1].isdigit()):
        return False
    return not ((_day_month(second) and "/" not in first)
                or (_day_month(first, year=False) and "/" not in second))


_DAY_MONTH = re.compile(r"(\d{2})/(\d{2})")
_WITH_YEAR = re.compile(r"(\d{2})/(\d{2})(?:/\d{2}(?:\d{2})?)?")


def _day_month(word: str, year: bool = True) -> bool:
    """Whether `word` prints a day and a month, either way round, in two digits each, and
    a year after them if `year` allows one (not in the first of two words: `11/02/20 25`
    may be one date's year cut in two)."""
    m = (_WITH_YEAR if year else _DAY_MONTH).fullmatch(word.rstrip(".,;:"))
    if m is None:
        return False
    a, b = int(m[1]), int(m[2])
    return 1 <= min(a, b) <= 12 and 1 <= max(a, b) <= 31


_COUNTRY = re.compile(r"[A-Z]{2}\d{2}")
_GROUP = re.compile(r"[A-Z0-9]{1,4}")


def iban_words(words: list[str]) -> set[int]:
    """The positions of `words` that print an IBAN in its print form (`DE02 1203 0000 0000
    2020 51`: country and check digits, then groups of four, the last of one to four) whose
    check digits hold (ISO 13616, mod 97): numbers side by side there are printed apart,
    and a digit OCR misread or a space it read into a group would break the check or the
    groups."""
    out: set[int] = set()
    for i, w in enumerate(words):
        if not _COUNTRY.fullmatch(w):
            continue
        end = i + 1
        while end < len(words) and _GROUP.fullmatch(words[end]) and len(words[end - 1]) == 4:
            end += 1
        for last in range(end, i + 1, -1):
            if _iban_holds("".join(words[i:last])):
                out.update(range(i, last))
                break
    return out


def _iban_holds(iban: str) -> bool:
    if not 15 <= len(iban) <= 34:
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1
