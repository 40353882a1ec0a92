"""The rows of a table no template describes, found from the page's geometry.

A row starts at a line whose leftmost words read as a date and whose line ends in amounts;
the amounts' right edges, gathered over every such line, fall into a few stable columns
(figures are right-aligned). Under a row, a line of words inside the description's span is
more description; a line without a date whose figures stand in those columns is another row
of the same day (a date printed once per day); a balance brought/carried forward line is a
marker, checked against the running total, never a transaction. Page headers and footers
repeated on every page, regulatory footers and watermarks never become rows.
"""

from __future__ import annotations

import functools
import itertools
import re
import statistics
from collections import Counter
from dataclasses import replace
from datetime import date

from parsers.dates import compile_format, fold, parse_date
from parsers.generic.apart import set_apart
from parsers.generic.model import Marker, Row, Table
from parsers.generic.words import DAILY_HEADINGS, HEADER_WORDS, SIGN_HEADINGS
from parsers.layout.tokens import Token, figures_at_end, tokens
from parsers.layout.vocabulary import (
    BALANCE_ROWS,
    PERIOD_TO,
    TOTALS,
    LabelSet,
    is_heading,
    label_set,
    starts_with_label,
)
from parsers.numbers import may_end_in_amount
from parsers.pdf.lines import Line

#: Row date forms tried, years first (a form with a year wins a tie with its yearless one).
DATE_FORMATS = ("%d.%m.%Y", "%d.%m.%y", "%Y-%m-%d", "%d-%b-%Y", "%d %b %Y", "%d. %b %Y",
                "%b %d, %Y", "%b %d %Y", "%m/%d/%Y", "%d/%m/%Y", "%m/%d/%y", "%d/%m/%y",
                "%d-%m-%Y", "%d-%m-%y", "%d-%b-%y", "%d %b %y", "%d.%m.", "%d %b", "%b %d",
                "%d-%b", "%m/%d", "%d/%m", "%d-%m", "%m-%d")
#: Number locales tried: the one that reads the most figures at line ends is the page's.
NUMBER_LOCALES = ("en", "de", "fr", "space")
#: A `CR` or `DR` word.
_SIDE = re.compile(r"(?i:cr|dr)\.?")
#: A line that says the statement ends here (folded).
#: The time of day printed after a row's date.
_TIME = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:[AaPp][Mm])?")
_TIME_GLUED = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?=[A-Za-z]{2})(?![AaPp][Mm]\b)")
#: The line a statement ends with (folded): English, German, French, Spanish, Portuguese,
#: Dutch.
_ENDS = re.compile(r"^\W*(?:end of (?:the )?statement|ende (?:des|der) (?:kontoauszug|"
                   r"auszug|ubersicht)s?|fin (?:du releve|del extracto|de(?:l)? estado de "
                   r"cuenta)|fim do extrato|einde (?:van (?:het|dit) )?(?:afschrift|"
                   r"overzicht))\W*$")
#: A figure grouped by a space before a decimal point (`2 795.35`).
_SPACED = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u202f]\d{3})+\.\d\d(?!\d)")
#: Right edges closer than this (points) are one column.
COLUMN_SLACK = 6.0
_FAR = date(2400, 12, 31)


def leading(ln: Line) -> list[tuple[int, str]]:
    """(n, the text of the line's first n words) for n = 3, 2, 1 where a word follows them:
    where a row's date stands, made once for all the date forms a line is tried in."""
    words, ends, end = ln.words, [], -1
    for w in words[:3]:
        end += len(w.text) + 1
        ends.append(end)
    # (each a start of the line's text, which is its words joined by a space: sliced, as
    # slicing costs less than joining the words again)
    return [(n, ln.text[:ends[n - 1]]) for n in (3, 2, 1) if len(words) > n]


@functools.cache
def _any_date() -> re.Pattern[str]:
    """Every date form's regex as one: text it does not read is a date in none of them.
    Where it reads no start of a line's text, none of the line's first words print a date
    (they are a start of it): most lines are refused by one regex call, not nineteen per
    word. (Made on first use: a process that reads no statement without a template never
    compiles it.)"""
    return re.compile("|".join(f"(?:{compile_format(f).pattern})" for f in DATE_FORMATS),
                      re.IGNORECASE)


def lead_forms(ln: Line) -> dict[str, int]:
    """Each of `DATE_FORMATS` the line's first words print a date in -> how many of them
    do (the most, as `leading` tries them): a line's leading date, read once for every
    form."""
    out: dict[str, int] = {}
    any_date = _any_date()
    if any_date.match(ln.text) is None:
        return out
    for n, text in leading(ln):
        if any_date.fullmatch(text):
            for f in _date_forms(text):
                out.setdefault(f, n)
    return out


def starts_with_date(ln: Line) -> bool:
    """Whether the line's first words, or all of it, print a date in one of `DATE_FORMATS`."""
    if _any_date().match(ln.text) is None:
        return False
    return any(_date_forms(" ".join(w.text for w in ln.words[:n])) for n in (3, 2, 1)
               if len(ln.words) >= n)


@functools.lru_cache(maxsize=4096)
def _date_forms(text: str) -> tuple[str, ...]:
    """The forms of `DATE_FORMATS` that read `text` as a day; kept, as a statement prints
    the same day on many rows."""
    out = []
    for f in DATE_FORMATS:
        if compile_format(f).regex.fullmatch(text):
            try:
                parse_date(text, f, _FAR)
            except ValueError:
                continue
            out.append(f)
    return tuple(out)


def trailing(toks: list[Token]) -> tuple[list[Token], list[Token]]:
    """(the words, the figures that end the line); a `CR`/`DR` set in a column of its own
    after a figure (`11,000.00   DR   3,328.63   CR`) is that figure's."""
    i, figures = len(toks), []
    while i > 0:
        t = toks[i - 1]
        if t.amount is not None:
            figures.append(t)
            i -= 1
        elif i > 1 and _SIDE.fullmatch(t.text) and (f := toks[i - 2]).amount is not None \
                and not f.amount.suffix:
            side = t.text.upper().rstrip(".")
            figures.append(f._replace(amount=replace(f.amount, suffix=side)))
            i -= 2
        else:
            break
    return toks[:i], figures[::-1]


def end_figures(ln: Line, locale: str) -> list[Token]:
    """`figures_at_end`, a `CR`/`DR` set apart after each figure taken as `trailing` takes
    it."""
    figures = figures_at_end(ln, locale)
    if figures or not ln.words or not _SIDE.fullmatch(ln.words[-1].text):
        return figures
    return trailing(tokens(ln, locale))[1]


def until_end(lines: list[Line]) -> list[Line]:
    """The lines before `**** End of Statement ****` (after a row was dated): what follows
    it (a table of what is to come, an advertisement's figures) is no part of the
    statement, neither rows nor balances."""
    dated = False
    for i, ln in enumerate(lines):
        if dated and _ENDS.match(ln.folded):
            return lines[:i]
        dated = dated or starts_with_date(ln)
    return lines


def find_table(lines: list[Line], kept: list[Line], forms: dict[int, dict[str, int]]
               ) -> Table | None:
    """The table the `kept` lines (`clean`) print: locale, date forms and figure columns by
    count, then rows; a line of `lines` left out where it would continue a row is a stray.
    `forms` holds each line's `lead_forms`, by id."""
    #: (lines ending in figures, digits those figures print, locale): the most lines, and
    #: of locales reading as many, the one reading more of their digits (`2 795.35` whole)
    best: tuple[int, int, str] | None = None
    everything, lines = lines, kept
    #: locale -> the figures that end each line, read in that locale
    ends: dict[str, list[list[Token]]] = {}
    spaced = _SPACED.search("\n".join(ln.text for ln in lines)) is not None
    for locale in NUMBER_LOCALES:
        if locale == "space" and not spaced:
            continue  # it reads what `en` reads unless a figure is grouped by spaces
        # a line without a digit ends in no figure, nor does a text line without the makings
        # of an amount in the locale: their words need not be read
        may = [ln.has_digit and (ln.ocr or may_end_in_amount(ln.text, locale)) for ln in lines]
        if best is not None and sum(may) < best[0]:
            continue  # it cannot read more lines' figures than the locale before it
        ends[locale] = [end_figures(ln, locale) if m else []
                        for ln, m in zip(lines, may, strict=True)]
        n = sum(1 for figures in ends[locale] if figures)
        digits = sum(sum(map(str.isdigit, t.text)) for figures in ends[locale] for t in figures)
        if n and (best is None or (n, digits) > best[:2]):
            best = (n, digits, locale)
    if best is None:
        return None
    locale = best[2]
    ending = [(ln, figures) for ln, figures in zip(lines, ends[locale], strict=True) if figures]
    counts = Counter(f for ln, _ in ending for f in forms[id(ln)])
    if not counts:
        return None
    top = max(counts.values())
    formats = [f for f in DATE_FORMATS if counts[f] == top]
    with_year = [f for f in formats if compile_format(f).has_year]
    formats = with_year or formats
    #: id of each kept line -> how many of its first words print its date
    leads = {id(ln): forms[id(ln)].get(formats[0], 0) for ln in lines}
    # a line of dates and figures only (a daily balance list) is no row, whatever its heading
    dated = [(ln, figures) for ln, figures in zip(lines, ends[locale], strict=True)
             if leads[id(ln)] and not _day_pairs(ln, formats[0], locale)]
    apart = _other_tables(lines, dated)
    if apart:
        dated = [(ln, figures) for ln, figures in dated if id(ln) not in apart]
        everything = [ln for ln in everything if id(ln) not in apart]
    columns, anchors = _columns([(t, ln) for ln, figures in dated for t in figures],
                                len(dated))
    table = Table(locale, tuple(formats), columns, anchors=anchors)
    _rows(everything, leads, table)
    set_apart(everything, table)
    return table if table.rows else None


def _other_tables(lines: list[Line], dated: list[tuple[Line, list[Token]]]) -> set[int]:
    """The lines (ids) of tables other than the transactions': a header line starts a
    table, and one whose dated lines' figures stand in none of the columns of the table
    with the most dated lines (an account summary's `09/01 Beginning Balance $18,805.47`
    over the activity's header) is not read for rows."""
    block, blocks = 0, {}
    for ln in lines:
        if len(ln.words) > 1 and _is_header(ln):
            block += 1
        blocks[id(ln)] = block
    if not block:
        return set()
    counts = Counter(blocks[id(ln)] for ln, _ in dated)
    main = max(counts, key=lambda b: counts[b], default=0)
    edges = [(t.x0, t.x1, digits_x1(t, ln)) for ln, figures in dated
             if blocks[id(ln)] == main for t in figures]
    apart = {b for b in counts if b != main and not any(
        any(abs(t.x0 - x0) <= COLUMN_SLACK or abs(t.x1 - x1) <= COLUMN_SLACK
            or abs(digits_x1(t, ln) - d1) <= COLUMN_SLACK for x0, x1, d1 in edges)
        for ln, figures in dated if blocks[id(ln)] == b for t in figures)}
    return {id(ln) for ln in lines if blocks[id(ln)] in apart}


def _columns(figures: list[tuple[Token, Line]], rows: int
             ) -> tuple[list[float], list[tuple[str, float]]]:
    """(each column's right edge, and how its figures align: `right`, `left` or `centre`,
    and where), left to right. Figures are clustered by their right edges (a figure printed
    with a `CR`/`DR` word after it by either end: `23,902.00 Cr` may align on its digits or
    on its `Cr`), their left ones and their middles; the cluster holding the most figures
    not yet placed, and of as many the tighter, is a column, until the clusters left hold a
    stray figure or two (a dated note)."""
    least = 2 if rows >= 10 else 1
    right = [(k, x) for k, (t, ln) in enumerate(figures) for x in {t.x1, digits_x1(t, ln)}]
    left = [(k, t.x0) for k, (t, _) in enumerate(figures)]
    centre = [(k, (t.x0 + t.x1) / 2) for k, (t, _) in enumerate(figures)]
    clusters = [(side, group) for side, edges in (("right", right), ("left", left),
                                                  ("centre", centre))
                for group in _clustered(edges)]
    placed: set[int] = set()
    found: list[tuple[float, str, float]] = []
    while True:
        free = [(len(members), -(max(xs) - min(xs)), side, members, xs)
                for side, group in clusters
                if (members := {k for k, _ in group if k not in placed})
                and (xs := [x for k, x in group if k not in placed])]
        best = max(free, key=lambda c: c[:2], default=None)
        if best is None or best[0] < least:
            break
        _, _, side, members, xs = best
        placed.update(members)
        found.append((statistics.median(figures[k][0].x1 for k in members), side,
                      statistics.median(xs)))
    found.sort()
    return [x1 for x1, _, _ in found], [(side, x) for _, side, x in found]


def _clustered(edges: list[tuple[int, float]]) -> list[list[tuple[int, float]]]:
    """(figure, edge) pairs grouped where the edges stand within `COLUMN_SLACK` of the one
    before."""
    groups: list[list[tuple[int, float]]] = []
    last = 0.0
    for k, x in sorted(edges, key=lambda e: e[1]):
        if groups and x - last <= COLUMN_SLACK:
            groups[-1].append((k, x))
        else:
            groups.append([(k, x)])
        last = x
    return groups


def digits_x1(tok: Token, ln: Line) -> float:
    """Where a figure's digits end: the right edge of its last word with a digit (a `CR`
    or a currency code may follow them as a word of its own)."""
    if " " not in tok.text:
        return tok.x1
    return max((w.x1 for w in ln.words if tok.x0 <= w.x0 and w.x1 <= tok.x1
                and any(map(str.isdigit, w.text))), default=tok.x1)


def column_of(table: Table, tok: Token, ln: Line) -> int | None:
    anchors = table.anchors or [("right", x) for x in table.columns]
    for i, (side, x) in enumerate(anchors):
        if side == "left":
            if abs(tok.x0 - x) <= COLUMN_SLACK:
                return i
        elif side == "centre":
            if abs((tok.x0 + tok.x1) / 2 - x) <= COLUMN_SLACK:
                return i
        elif abs(tok.x1 - x) <= COLUMN_SLACK or abs(digits_x1(tok, ln) - x) <= COLUMN_SLACK:
            return i
    return None


@functools.cache
def _label_sets() -> tuple[list[tuple[str, tuple[str, ...], LabelSet]], LabelSet, LabelSet]:
    """(each sign and its headings, with their label set; the daily headings' set; the
    balance rows' set), held: a line that cannot print a set's labels (`printed_in`: most
    lines) is not asked whether it starts with one, nor whether it is one of its headings."""
    signs = [(sign, labels, label_set(labels)) for sign, labels in SIGN_HEADINGS.items()]
    return signs, label_set(DAILY_HEADINGS), label_set(BALANCE_ROWS)


def _rows(lines: list[Line], leads: dict[int, int], table: Table) -> None:
    """Rows, markers and strays of the table; `leads` holds how many of each kept line's
    first words print its date (0: none)."""
    fmt = table.formats[0]
    last: Line | None = None
    desc_x0 = 0.0
    heading: str | None = None
    wrapped = False
    doubtful: list[tuple[Line, int]] = []
    daily = False
    carry: str | None = None  # the date a row without one of its own takes
    signs, daily_set, balance_set = _label_sets()
    #: lines already read as part of a row whose figures stand on its last line
    consumed: set[int] = set()
    #: id of a dated line -> the lines above it that begin its description
    ahead: dict[int, list[Line]] = {}
    row_gap = _row_gap(lines, leads)
    for i, ln in enumerate(lines):
        if id(ln) in consumed:
            continue
        near = last is not None and _follows(last, ln)
        # until a row is read on a page, a line of more description at its top continues
        # the last row of the page before
        if not near and (not table.rows or ln.page > table.rows[-1].line.page) \
                and id(ln) in leads and not leads[id(ln)] and not _is_header(ln) \
                and not end_figures(ln, table.locale) \
                and not starts_with_label(ln.text, (*TOTALS, *BALANCE_ROWS)) \
                and (opens := _opens_next(lines, i, leads, None, row_gap)) is not None:
            # at the top of the table or of a page, the row under it begins on it
            ahead.setdefault(id(opens), []).append(ln)
            last = ln
            continue
        if not near and table.rows and ln.page > table.rows[-1].line.page \
                and id(ln) in leads and not leads[id(ln)] \
                and _runs_on(lines, i, leads, table, desc_x0):
            # a description that runs on over the page break, under the next page's header
            _run_on(table.rows[-1].desc, [w.text for w in ln.words])
            table.used.add(id(ln))
            last, wrapped = ln, True
            continue
        sign = next((s for s, labels, found in signs
                     if found.printed_in(ln.folded) and is_heading(ln.text, labels)), None)
        if sign is not None:
            heading, last, daily = sign, None, False
            continue
        if daily_set.printed_in(ln.folded) and is_heading(ln.text, DAILY_HEADINGS):
            heading, last, daily = None, None, True
            continue
        if daily and id(ln) in leads:
            pairs = _day_pairs(ln, fmt, table.locale)
            if pairs:
                table.days.extend((d, t, ln) for d, t in pairs)
                table.used.add(id(ln))
                continue
            if _is_header(ln):
                continue
            daily = False
        if id(ln) not in leads:  # a page header over the next page continues no row
            if near and ln.page == last.page and table.rows and ln.words[0].x0 >= desc_x0 - 4:
                table.strays.append((ln, len(table.rows), True))
            continue
        n = leads[id(ln)]
        # (whatever of the line is asked whether it starts with a balance row's label is
        # a run of its words: it prints none where the line prints none)
        balance = balance_set.printed_in(ln.folded)
        # (the words after a date as a line of their own; a line without one as it is)
        words, figures = trailing(tokens(Line(ln.page, ln.words[n:]) if n else ln, table.locale))
        at = {column_of(table, t, ln): t for t in figures}
        placed = {i: t for i, t in at.items() if i is not None}
        fits = bool(figures) and len(placed) == len(figures)
        if figures and not fits:  # figures outside the columns are words (`5,90EUR` fee)
            words, figures = words + figures, []
        if n and fits and balance and starts_with_label(" ".join(t.text for t in words),
                                                        BALANCE_ROWS):
            # a dated balance brought/carried forward: checked, never a transaction
            table.markers.append(Marker(ln, len(table.rows), figures[-1]))
            last, carry = ln, " ".join(w.text for w in ln.words[:n])
        elif n and fits:
            date_text = carry = " ".join(w.text for w in ln.words[:n])
            text = _drop_second_date(words, fmt)
            above = ahead.pop(id(ln), [])
            desc: list[str] = []
            for part in [*([w.text for w in a.words] for a in above), [t.text for t in text]]:
                _run_on(desc, part)
            table.rows.append(Row(date_text, desc, placed, ln, heading=heading,
                                  text_x1=_x1(text)))
            table.used.update(id(a) for a in above)
            desc_x0 = text[0].x0 if text else ln.words[n].x0
            last, wrapped = ln, False
        elif fits and not n and (paid := _paid_date(words, fmt)) is not None:
            # a check's row: its number (and a mark), then the date it was paid
            table.rows.append(Row(" ".join(t.text for t in words[paid:]),
                                  [t.text for t in words[:paid]], placed, ln, heading=heading,
                                  text_x1=_x1(words[:paid])))
            last, wrapped = ln, False
        elif fits and near and carry and not starts_with_label(ln.text, TOTALS):
            if balance and starts_with_label(ln.text, BALANCE_ROWS):
                table.markers.append(Marker(ln, len(table.rows), figures[-1]))
            else:
                if wrapped:  # the words above may begin this row as well as end the last
                    doubtful.append((ln, len(table.rows)))
                table.rows.append(Row(carry, [t.text for t in words], placed, ln,
                                      carried=True, heading=heading, text_x1=_x1(words),
                                      bad_date=_shaped_like_a_date(ln, fmt)))
            last, wrapped = ln, False
        elif figures and near and balance and starts_with_label(ln.text, BALANCE_ROWS):
            table.markers.append(Marker(ln, len(table.rows), figures[-1]))
            last = ln
        elif n and not figures and not _range(words, fmt) \
                and (block := _bottom_aligned(lines, i, leads, table)):
            # a row whose figures stand on its last line, under its description
            *between, end = block
            end_words, last_figures = trailing(tokens(end, table.locale))
            date_text = carry = " ".join(w.text for w in ln.words[:n])
            text = _drop_second_date(words, fmt)
            desc = [t.text for t in text] + [w.text for b in between for w in b.words] + [
                t.text for t in end_words]
            table.rows.append(Row(date_text, desc, {column_of(table, t, end): t
                                                    for t in last_figures}, ln,
                                  heading=heading, text_x1=_x1(text)))
            desc_x0 = text[0].x0 if text else desc_x0
            table.used.update(id(b) for b in block)
            consumed.update(id(b) for b in block)
            last, wrapped = end, False
        elif near and not figures and ln.words[0].x0 < desc_x0 - 4 and _only_dates(ln, fmt):
            last = ln  # the row's value date, on a line of its own
        elif near and table.rows and not figures and n and _left_of_figures(ln, table):
            more = _drop_second_date(words, fmt)
            _run_on(table.rows[-1].desc, [t.text for t in more])
            _wraps(table.rows[-1], more[0].x1 - more[0].x0 if more else None)
            last, wrapped = ln, True  # a value date, then more description
        elif near and not n and not figures and ln.words[0].x0 >= desc_x0 - 4 \
                and _left_of_figures(ln, table) \
                and (opens := _opens_next(lines, i, leads, last, row_gap)) is not None:
            # closer to the dated line under it than to the row above: the first line of a
            # description its date and figures stand beside the middle of (a table cell
            # centred as a web page's is), not more of the row above
            ahead.setdefault(id(opens), []).append(ln)
            last = ln
            continue
        elif near and table.rows and not n and not figures and ln.words[0].x0 >= desc_x0 - 4 \
                and _left_of_figures(ln, table):
            _run_on(table.rows[-1].desc, [w.text for w in ln.words])
            _wraps(table.rows[-1], ln.words[0].x1 - ln.words[0].x0)
            last, wrapped = ln, True
        else:
            if last is not None and ln.page > last.page:
                continue  # the next page's header: the table goes on under it
            if table.rows and not n and ln.words[0].x0 >= desc_x0 - 4 and not _is_header(ln) \
                    and not starts_with_label(ln.text, (*TOTALS, *BALANCE_ROWS)):
                table.strays.append((ln, len(table.rows), near))
            last = None
            continue
        table.used.add(id(ln))
    # lines read as the start of a row under them that did not come (a balance row)
    table.strays += [(a, sum((r.line.page, r.line.top) < (a.page, a.top) for r in table.rows),
                      True)
                     for held in ahead.values() for a in held if id(a) not in table.used]
    _doubt(table, doubtful)
    # a page of other text between two pages of the table (terms, a form to fill in) is
    # no part of it: only a line right under a row there may be a lost part of one
    paged = {r.line.page for r in table.rows}
    table.strays = [s for s in table.strays if s[2] or s[0].page in paged]


def _opens_next(lines: list[Line], i: int, leads: dict[int, int], last: Line | None,
                row_gap: float | None) -> Line | None:
    """The dated line under `lines[i]` (a line of description only) whose row it begins:
    where it starts where that line's description does, and it and the lines between stand
    closer to that line than `lines[i]` stands to `last`, the line above it (at the top of
    a page or the table: than two adjacent rows stand apart, `row_gap`). None where the
    lines are evenly spaced (a wrapped description of the row above)."""
    ln = lines[i]
    if last is not None and last.page == ln.page:
        above = ln.top - last.bottom
    elif row_gap is not None:
        above = row_gap
    else:
        return None
    prev = ln
    for nx in lines[i + 1:]:
        if nx.page != ln.page or id(nx) not in leads or nx.top - prev.bottom > above - 1.0:
            return None
        if leads[id(nx)]:  # and where that line's description starts
            n = leads[id(nx)]
            starts = nx.words[n].x0 if len(nx.words) > n else None
            return nx if starts is not None and abs(ln.words[0].x0 - starts) <= 4 else None
        prev = nx
    return None


def _run_on(desc: list[str], words: list[str]) -> None:
    """Add a line's words to a description: a word broken after its hyphen at the line's
    end (`7781-` over `ALPHA`) is one word again."""
    if desc and words and len(desc[-1]) > 1 and desc[-1].endswith("-") \
            and desc[-1][-2].isalnum():
        desc[-1] += words[0]
        words = words[1:]
    desc.extend(words)


def _row_gap(lines: list[Line], leads: dict[int, int]) -> float | None:
    """How far apart two dated lines that follow each other on a page stand (the median):
    the space between two rows of one line each."""
    gaps = sorted(b.top - a.bottom for a, b in itertools.pairwise(lines)
                  if a.page == b.page and leads.get(id(a)) and leads.get(id(b)))
    return gaps[len(gaps) // 2] if gaps else None


def _range(words: list[Token], fmt: str) -> bool:
    """Whether the words after a line's date end a range of dates (`bis 31.12.2021`): a
    period printed in the table's place, no row."""
    regex = compile_format(fmt).regex
    rest = [t.text for t in words if fold(t.text) not in PERIOD_TO]
    return bool(rest) and len(rest) < len(words) and all(regex.fullmatch(t) for t in rest)


def _bottom_aligned(lines: list[Line], i: int, leads: dict[int, int], table: Table
                   ) -> list[Line]:
    """The lines after the dated `lines[i]`, which prints no figures, down to the one that
    prints its figures: lines of description only, each right under the one before (or at
    the top of the next page), then a line without a date whose figures stand in the
    columns, before any other date. Empty where the figures of the date's row are not so
    printed (a value date, say, under its row)."""
    block: list[Line] = []
    prev = lines[i]
    for ln in lines[i + 1:]:
        if id(ln) not in leads:
            continue  # a page's header or footer, between the row's lines
        if leads[id(ln)] or not _follows(prev, ln) or _is_header(ln):
            return []
        figures = end_figures(ln, table.locale)
        if figures:
            if all(column_of(table, t, ln) is not None for t in figures):
                return [*block, ln]
            return []
        if not _left_of_figures(ln, table):
            return []
        block.append(ln)
        prev = ln
    return []


#: A check's number, or the mark beside it (`1234`, `XXXX`, `^`, `*`).
_REFERENCE = re.compile(r"[\dXx*#^•-]+|[^\w\s]")


def _paid_date(words: list[Token], fmt: str) -> int | None:
    """Where the date starts on a line of a check register (a number, a mark, then the date
    it was paid and nothing more before the figures); None on any other line."""
    regex = compile_format(fmt).regex
    for i in (1, 2, 3):
        date_text = " ".join(t.text for t in words[i:])
        if len(words) - i > 3 or not all(_REFERENCE.fullmatch(t.text) for t in words[:i]):
            continue
        if regex.fullmatch(date_text):
            try:
                parse_date(date_text, fmt, _FAR)
            except ValueError:
                return None
            return i
    return None


def _day_pairs(ln: Line, fmt: str, locale: str) -> list[tuple[str, Token]]:
    """The (date, balance) pairs a line of a daily balance list prints, and nothing else;
    empty for any other line."""
    regex = compile_format(fmt).regex
    toks, out, i = tokens(ln, locale), [], 0
    while i < len(toks):
        for n in (1, 2, 3):
            text = " ".join(t.text for t in toks[i:i + n])
            if i + n < len(toks) and regex.fullmatch(text) and toks[i + n].amount is not None:
                out.append((text, toks[i + n]))
                i += n + 1
                break
        else:
            return []
    return out


def _is_header(ln: Line) -> bool:
    """A line of column header words only (`DATE` over `PAID`, `Date Description Amount`)."""
    return all(fold(w.text).strip(":$€£()*/") in HEADER_WORDS for w in ln.words)


def _x1(words: list[Token]) -> float:
    return words[-1].x1 if words else 0.0


def _wraps(row: Row, width: float | None) -> None:
    if row.wrap_width is None:
        row.wrap_width = width


def _doubt(table: Table, doubtful: list[tuple[Line, int]]) -> None:
    """Words between a row and a row without a date of its own belong to the first only
    when they wrapped: when their first word would not have fitted on the row's line (the
    widest description line sets the width). Otherwise the split is unproven: a stray."""
    widest = max((r.text_x1 for r in table.rows), default=0.0)
    for ln, i in doubtful:
        above = table.rows[i - 1]
        if above.wrap_width is None or above.text_x1 + above.wrap_width + 3 <= widest:
            table.strays.append((ln, i, True))


def _shaped_like_a_date(ln: Line, fmt: str) -> str:
    """The line's first words where they have the form of a date in `fmt` (which
    `lead_forms` did not read as one: no such day), else ""."""
    regex = compile_format(fmt).regex
    for n in (3, 2, 1):
        text = " ".join(w.text for w in ln.words[:n])
        if len(ln.words) > n and regex.fullmatch(text):
            return text
    return ""


def _only_dates(ln: Line, fmt: str) -> bool:
    regex = compile_format(fmt).regex
    return all(regex.fullmatch(w.text) for w in ln.words)


def _drop_second_date(words: list[Token], fmt: str) -> list[Token]:
    """The words after a row's date, a second date (posting or value date) and the time
    of day (`13 Apr 26 03:49`, `10:15 PM`) left out."""
    regex = compile_format(fmt).regex
    i = 0
    while i < len(words) and i < 2 and regex.fullmatch(words[i].text):
        i += 1
    if i < len(words) and _TIME.fullmatch(words[i].text):
        i += 1
        if i < len(words) and words[i].text.upper() in ("AM", "PM"):
            i += 1
    elif i < len(words) and (glued := _TIME_GLUED.match(words[i].text)):
        # the time run into the description's first word (`02:35FUEL`): no gap was drawn
        return [words[i]._replace(text=words[i].text[glued.end():]), *words[i + 1:]]
    return words[i:]


def _follows(last: Line, ln: Line) -> bool:
    """`ln` is the next line under `last` (same page, at most about a line apart)."""
    if ln.page != last.page:
        return ln.page == last.page + 1
    return ln.top - last.bottom <= 1.6 * max(last.height, 1.0)


def _runs_on(lines: list[Line], i: int, leads: dict[int, int], table: Table,
             desc_x0: float) -> bool:
    """Whether `lines[i]` and those right under it, up to a dated row, may be more of the
    description of the last row of the page before: words only, starting where descriptions
    start, left of the figures, and the next row right under them."""
    for k in range(i, len(lines)):
        ln = lines[k]
        if k > i and (ln.page != lines[i].page or not _follows(lines[k - 1], ln)):
            return False
        if leads.get(id(ln)):
            return k > i
        if _is_header(ln) or abs(ln.words[0].x0 - desc_x0) > 4 or not _left_of_figures(
                ln, table) or any(t.amount is not None for t in tokens(ln, table.locale)):
            return False
    return False


def _left_of_figures(ln: Line, table: Table) -> bool:
    """Words of a continuation stay in the description's span, left of the figures."""
    first = min(table.columns) if table.columns else float("inf")
    return ln.words[-1].x1 < first - 20
