"""Finding a statement's period: a range of two dates, a month, or a single end date.

The range printed after a period label (on its line or the line above) is the period, else
the first range printed anywhere; a template with a month format takes a whole month after
a label (`Kontoauszug Dezember 2021`), and a card statement prints only the date its period
ends. A statement's lines are read once for all of these, however many readers ask
(`Periods`): the statement's period, then each account section's own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from datetime import date

from parsers.dates import date_pattern, is_month, parse_date, parse_month
from parsers.layout.labelled import Found, find_labelled
from parsers.layout.vocabulary import PERIOD, PERIOD_END, PERIOD_FROM, PERIOD_TO, match_label
from parsers.pdf.lines import Line

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
