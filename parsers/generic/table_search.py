"""The table a statement no template describes prints, found from the page's geometry.

A row starts at a line whose leftmost words read as a date and whose line ends in amounts;
the number locale and date forms are the ones that read the most such lines, and the
amounts' right edges, gathered over every such line, fall into a few stable columns
(figures are right-aligned). Only then are the rows read (`rows.py`), once the table's
forms and columns are known; lines of other tables (an account summary) and what follows
the statement's end are left out first.
"""

from __future__ import annotations

import re
from collections import Counter

from parsers.dates import compile_format
from parsers.generic.apart import set_apart
from parsers.generic.columns import COLUMN_SLACK, digits_x1, end_figures, find_columns
from parsers.generic.found import Table
from parsers.generic.leads import DATE_FORMATS, starts_with_date
from parsers.generic.rows import read_rows
from parsers.generic.shapes import day_pairs, is_header
from parsers.layout.tokens import Token
from parsers.numbers import may_end_in_amount
from parsers.pdf.lines import Line

#: Number locales tried: the one that reads the most figures at line ends is the page's.
NUMBER_LOCALES = ("en", "de", "fr", "space")
#: The line a statement ends with (folded): English, German, French, Spanish, Portuguese,
#: Dutch.
_ENDS = re.compile(r"^\W*(?:end of (?:the )?statement|ende (?:des|der) (?:kontoauszug|"
                   r"auszug|ubersicht)s?|fin (?:du releve|del extracto|de(?:l)? estado de "
                   r"cuenta)|fim do extrato|einde (?:van (?:het|dit) )?(?:afschrift|"
                   r"overzicht))\W*$")
#: A figure grouped by a space before a decimal point (`2 795.35`).
_SPACED = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u202f]\d{3})+\.\d\d(?!\d)")


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
             if leads[id(ln)] and not day_pairs(ln, formats[0], locale)]
    apart = _other_tables(lines, dated)
    if apart:
        dated = [(ln, figures) for ln, figures in dated if id(ln) not in apart]
        everything = [ln for ln in everything if id(ln) not in apart]
    columns, anchors = find_columns([(t, ln) for ln, figures in dated for t in figures],
                                len(dated))
    table = Table(locale, tuple(formats), columns, anchors=anchors)
    read_rows(everything, leads, table)
    set_apart(everything, table)
    return table if table.rows else None


def _other_tables(lines: list[Line], dated: list[tuple[Line, list[Token]]]) -> set[int]:
    """The lines (ids) of tables other than the transactions': a header line starts a
    table, and one whose dated lines' figures stand in none of the columns of the table
    with the most dated lines (an account summary's `09/01 Beginning Balance $18,805.47`
    over the activity's header) is not read for rows."""
    block, blocks = 0, {}
    for ln in lines:
        if len(ln.words) > 1 and is_header(ln):
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

