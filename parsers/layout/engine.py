"""Run a template over a statement's lines and return the statement it describes.

The engine knows statements, not banks: it finds the period (the template's labels and the
shared vocabulary's), splits the file into account sections, reads each section's table
(`table.py`), then the figures printed outside the tables: account number, opening and
closing balance, summary figures (`account.py`). A figure that is not printed is derived
only where the statement itself pins it (an opening balance from the first running
balance, a closing one from the last), and how it was derived is recorded beside the
statement, never silently. Balance rows inside a table and every printed running balance
are checked against the running total (`checks.py`). An account the document shows that
did not become one (its section line misread) is a problem: a table before the first
section, a second account number or a second, different balance in a section, a dated line
with an amount that no table read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from parsers.dates import parse_date
from parsers.layout.account import Section, read_account
from parsers.layout.checks import pairs_of
from parsers.layout.labelled import find_labelled, read_last4
from parsers.layout.outcome import ParseOutput, TemplateMismatch, template_fault
from parsers.layout.periods import Periods, find_period_end
from parsers.layout.table import read_table
from parsers.layout.table_rows import TableReading
from parsers.layout.template import Template
from parsers.layout.tokens import tokens
from parsers.layout.vocabulary import ACCOUNT
from parsers.model import Statement
from parsers.pdf.lines import Line

_DIGIT = re.compile(r"\d")


def run_template(t: Template, lines: list[Line], trace: list[TableReading] | None = None
                 ) -> ParseOutput:
    """The statement `lines` print, read the way `t` says; `trace` (when given) receives each
    section's table reading as soon as it is read, so a reading that stops half-way can
    still be shown."""
    finder = Periods(t.period_formats, t.period_labels)
    period, labelled = _period(t, lines, finder)
    if period is None:
        raise TemplateMismatch(f"{t.bank}: statement period not found")
    preamble, sections = _split_sections(t, lines)
    out = ParseOutput(Statement(t.bank, [], period[0], period[1]))
    before = _table_before_sections(t, preamble, period)
    out.problems += before
    out.unread += len(before)
    for sec in sections:
        # a statement of one section is not read for its period a second time
        own = labelled if sec.lines is lines else _labelled_period(t, sec.lines, finder)
        start, end = own or period
        reading = read_table(t, sec.lines, end, start)
        if trace is not None:
            trace.append(reading)
        unread = _rows_no_table_took(t, sec.lines, reading, end)
        out.problems += unread
        out.unread += len(unread)
        acct, info = read_account(t, sec, preamble, reading, out.problems,
                                  len(out.statement.accounts) + 1)
        if own:
            acct.period_start, acct.period_end = start, end
        out.statement.accounts.append(acct)
        out.readings.append(info)
        out.tables.append(reading)
        out.pages |= info.pages | {ln.page for r in reading.rows for ln in r.lines}
        out.problems += reading.problems
        out.trusted += reading.trusted
    return out


# --- the period and the sections --------------------------------------------------------

Period = tuple[date | None, date]


def _period(t: Template, lines: Sequence[Line], finder: Periods
            ) -> tuple[Period | None, Period | None]:
    """(the statement period, the period a label names: what `_labelled_period` finds in
    the same lines), from one reading of the lines (`finder`: `Periods` of the template's
    formats and labels)."""
    if t.period_pattern:
        regex = re.compile(t.expand(t.period_pattern), re.IGNORECASE)
        for ln in lines:
            m = regex.search(ln.text)
            if m:
                g = m.groupdict()
                try:
                    end = parse_date(g["end"], t.period_formats)
                    start = (parse_date(g["start"], t.period_formats, end) if g.get("start")
                             else None)
                except ValueError as exc:
                    raise template_fault(t, "period.pattern", ln, "captured a date it cannot "
                                         f"read ({exc})") from exc
                return (start, end), None
        return None, None
    labelled, anywhere = finder(lines)
    if labelled:
        return (labelled[0], labelled[1]), (labelled[0], labelled[1])
    if anywhere:
        return (anywhere[0], anywhere[1]), None
    single = find_period_end(lines, t.period_formats, t.period_end_labels)
    return ((None, single.value) if single else None), None


def _labelled_period(t: Template, lines: Sequence[Line], finder: Periods) -> Period | None:
    """The period a label names in `lines` (a section's own), never a range found anywhere
    (`find_period`'s `labelled_only`); a template's period pattern names none."""
    if t.period_pattern:
        return None
    found = finder(lines)[0]
    return (found[0], found[1]) if found else None


def _split_sections(t: Template, lines: list[Line]) -> tuple[list[Line], list[Section]]:
    """(lines before the first section, the sections). A section starts at each line the
    template's `[sections] start` matches; one that names the same account as the section
    before it (a page header repeated) continues that section."""
    if not t.section_start:
        return [], [Section(lines)]
    regex = re.compile(t.expand(t.section_start), re.IGNORECASE)
    preamble: list[Line] = []
    sections: list[Section] = []
    for ln in lines:
        m = regex.search(ln.text)
        if m:
            last4 = _last4_of_start(m, ln)
            if not sections or last4 is None or last4 != sections[-1].last4:
                sections.append(Section([ln], last4))
                continue
        (sections[-1].lines if sections else preamble).append(ln)
    if not sections:
        return [], [Section(lines)]
    return preamble, sections


def _last4_of_start(m: re.Match[str], ln: Line) -> str | None:
    if "last4" in m.re.groupindex and m.group("last4"):
        digits = re.sub(r"\D", "", m.group("last4"))
        return digits[-4:] if len(digits) >= 4 else None
    return read_last4(ln.text[m.end():]) or _vocabulary_last4(ln)


def _vocabulary_last4(ln: Line) -> str | None:
    found = find_labelled([ln], ACCOUNT, read_last4)
    return found.value if found else None


def _table_before_sections(t: Template, preamble: list[Line],
                           period: tuple[date | None, date]) -> list[str]:
    """A table printed before the first section line is an account whose section line was
    not recognised (a label or number misread): its rows would belong to no account."""
    if not preamble:
        return []
    reading = read_table(t, preamble, period[1], period[0])
    problems = _rows_no_table_took(t, preamble, reading, period[1])
    if reading.headers or reading.rows or reading.markers:
        problems.append(f"page {preamble[0].page}: a table of {len(reading.rows)} row(s) "
                        "stands before the first account's section line: an account the "
                        "statement shows was not read")
    return problems


def _rows_no_table_took(t: Template, lines: list[Line], reading: TableReading,
                        end: date) -> list[str]:
    """Lines that start with a date and print an amount, as a transaction does, that no
    table read (outside every table, or after one stopped): rows no account holds."""
    problems = []
    for ln in lines:
        if reading.roles.get(id(ln), "outside") != "outside" or not ln.has_digit:
            continue  # a line the table read, or one that prints no amount
        # (the date first: most lines outside a table start with none, and it costs less
        # than reading the line's figures)
        dated = _row_date_at_start(t, ln, end)
        if dated is None:
            continue
        toks = tokens(ln, t.locale)
        if t.daily_headings and pairs_of(toks, t.daily_date_formats, end):
            continue  # a line of a day-end balance list
        if any(tok.amount is not None and tok.x0 > dated[1] for tok in toks):
            problems.append(f"page {ln.page}: a line dated {dated[0]!r} prints an amount, "
                            "and no account's table read it")
    return problems


def _row_date_at_start(t: Template, ln: Line, end: date) -> tuple[str, float] | None:
    """The row date that starts `ln` and where it ends (its right edge), or None."""
    for n in range(1, min(3, len(ln.words)) + 1):
        text = " ".join(w.text for w in ln.words[:n])
        if _DIGIT.search(text) is None:  # every date form prints a digit
            continue
        try:
            parse_date(text, t.row_date_formats, end)
        except ValueError:
            continue
        return text, ln.words[n - 1].x1
    return None
