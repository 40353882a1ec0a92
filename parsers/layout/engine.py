"""Run a template over a statement's lines and return the statement it describes.

The engine knows statements, not banks: it finds the period (the template's labels and the
shared vocabulary's), splits the file into account sections, reads each section's table
(`table.py`), then the figures printed outside the tables: account number, opening and
closing balance, summary figures. A figure that is not printed is derived only where the
statement itself pins it (an opening balance from the first running balance, a closing one
from the last), and how it was derived is recorded beside the statement, never silently.
Balance rows inside a table and every printed running balance are checked against the
running total. An account the document shows that did not become one (its section line
misread) is a problem: a table before the first section, a second account number or a second,
different balance in a section, a dated line with an amount that no table read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from parsers.dates import parse_date
from parsers.errors import TemplateFault
from parsers.layout.table import Row, TableReading, Token, doubts, read_table, tokens, weigh_ocr
from parsers.layout.template import Field, Template
from parsers.layout.vocabulary import (
    ACCOUNT,
    CLOSING,
    OPENING,
    Periods,
    amount_reader,
    every_labelled,
    exact_amount_reader,
    find_labelled,
    find_period_end,
    is_heading,
    label_without_value,
    read_last4,
)
from parsers.model import Account, Statement, Transaction, mask_account, mask_digits, money
from parsers.numbers import Amount, currency_agrees, read_amount
from parsers.ocr.trust import OCR_REVIEW_CONFIDENCE, Doubt
from parsers.pdf.lines import Line

T = TypeVar("T")
_DIGIT = re.compile(r"\d")


class TemplateMismatch(Exception):
    """The template does not describe this document (a required element is missing)."""


@dataclass
class AccountReading:
    """How one account was read: what `ParseResult.to_dict()` shows beside the statement."""

    #: figure -> how it was derived, for figures the statement does not print.
    derived: dict[str, str] = field(default_factory=dict)
    #: figure -> the label (and page) it was read after.
    found: dict[str, str] = field(default_factory=dict)
    rows: int = 0
    #: Rows with a printed running balance: the running total was checked on each of them.
    balances_printed: int = 0
    #: Balance brought/carried forward rows checked against the running total.
    balance_rows_checked: int = 0
    #: Figures OCR read below the review confidence (`trust.py` weighs them).
    doubts: list[Doubt] = field(default_factory=list)
    #: Labelled figures (`opening`, `closing`) OCR read with little confidence (a word of
    #: the figure itself, not another on its line): the only ones a repair from the running
    #: balance may mend.
    doubtful: set[str] = field(default_factory=set)
    #: Lines among the rows that no row took and that print no figure where amounts stand
    #: (`page N: text`): page furniture, which can change no number.
    furniture: list[str] = field(default_factory=list)
    #: No account number is printed: the account is booked without one.
    unnamed: bool = False
    #: Both balances are printed, labelled or as balance rows, at the ends of the rows: the
    #: rows' sum between them is proven (no row lost before or after those read).
    pinned: bool = False
    #: The pages the labelled figures were read from.
    pages: set[int] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {"derived": self.derived, "rows": self.rows,
                "balances_printed": self.balances_printed,
                "balance_rows_checked": self.balance_rows_checked,
                "found": self.found, "furniture": self.furniture, "unnamed": self.unnamed}

    def notes(self, where: str) -> list[str]:
        out = [f"{where}: {name} derived from {how}" for name, how in self.derived.items()]
        if self.unnamed:
            out.append(f"{where}: no account number is printed: the account is booked "
                       "without one")
        if 0 < self.balances_printed < self.rows:
            out.append(f"{where}: running balance printed on {self.balances_printed} of "
                       f"{self.rows} rows (checked where printed)")
        return out


@dataclass
class ParseOutput:
    statement: Statement
    problems: list[str] = field(default_factory=list)
    #: What OCR read with little confidence and other evidence vouches for (`trust.py`).
    trusted: list[str] = field(default_factory=list)
    readings: list[AccountReading] = field(default_factory=list)
    #: The table reading of each section, for `templates check`.
    tables: list[TableReading] = field(default_factory=list)
    #: How a reader without a template found the table (columns, conventions); empty for
    #: a template's reading.
    how: dict[str, Any] = field(default_factory=dict)
    #: The pages rows and labelled figures were read from (empty: not known, every page).
    pages: set[int] = field(default_factory=set)
    #: Lines that print a dated amount, as a row does, that no table of a template read.
    unread: int = 0

    @property
    def notes(self) -> list[str]:
        return [n for i, (a, r) in enumerate(zip(self.statement.accounts, self.readings,
                                                 strict=True))
                for n in r.notes(f"account {i + 1} ({mask_account(a.account_last4)})")]


@dataclass
class _Section:
    lines: list[Line]
    last4: str | None = None


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
        acct, info = _account(t, sec, preamble, reading, out.problems,
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
                    raise _fault(t, "period.pattern", ln, f"captured a date it cannot read "
                                 f"({exc})") from exc
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


def _split_sections(t: Template, lines: list[Line]) -> tuple[list[Line], list[_Section]]:
    """(lines before the first section, the sections). A section starts at each line the
    template's `[sections] start` matches; one that names the same account as the section
    before it (a page header repeated) continues that section."""
    if not t.section_start:
        return [], [_Section(lines)]
    regex = re.compile(t.expand(t.section_start), re.IGNORECASE)
    preamble: list[Line] = []
    sections: list[_Section] = []
    for ln in lines:
        m = regex.search(ln.text)
        if m:
            last4 = _last4_of_start(m, ln)
            if not sections or last4 is None or last4 != sections[-1].last4:
                sections.append(_Section([ln], last4))
                continue
        (sections[-1].lines if sections else preamble).append(ln)
    if not sections:
        return [], [_Section(lines)]
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
        if t.daily_headings and _pairs_of(toks, t.daily_date_formats, end):
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


# --- the figures of one account ---------------------------------------------------------

def _account(t: Template, sec: _Section, preamble: list[Line], reading: TableReading,
             problems: list[str], index: int) -> tuple[Account, AccountReading]:
    """Account `index` (from 1) of the statement; its problems name it, and its rows by
    their number in it, as validation and corrections do."""
    info = AccountReading(rows=len(reading.rows))
    mid_table = {id(m.line) for m in reading.markers
                 if 0 < m.before < len(reading.rows)}
    eligible = [ln for ln in sec.lines
                if reading.roles.get(id(ln)) not in ("row", "continuation", "header", "problem")
                and id(ln) not in mid_table]
    space = eligible + preamble
    last4 = sec.last4 or _find(t, "last4", t.last4, ACCOUNT, read_last4, read_last4, space,
                               info, _last4_value)
    if last4 is None:
        raise TemplateMismatch(f"{t.bank}: account number not found")
    amounts, exact = amount_reader(t.locale), exact_amount_reader(t.locale)
    printed: dict[str, Amount | None] = {}
    opening_labels, closing_labels = (*OPENING, *t.opening.labels), (*CLOSING, *t.closing.labels)
    for name, f, vocabulary, blockers in (("opening", t.opening, OPENING, closing_labels),
                                          ("closing", t.closing, CLOSING, opening_labels)):
        printed[name] = _find(t, name, f, vocabulary, amounts, exact, space, info,
                              _amount_value(t), blockers)
    summary: dict[str, Decimal] = {}
    for name, f in t.summary.items():
        value = _find(t, name, f, (), amounts, exact, space, info, _amount_value(t))
        if value is None:
            raise TemplateMismatch(_not_found(t, name, f.labels, space))
        summary[name] = value.value
    where = f"account {index} ({mask_account(last4)})"
    for name, a in printed.items():
        if a is not None and not currency_agrees(a.currency, t.currency):
            problems.append(f"{where}: {name} balance printed in {a.currency}, "
                            f"the statement is in {t.currency}")
    txs = [_transaction(t, r, problems, f"{where} row {n}")
           for n, r in enumerate(reading.rows, start=1)]
    weigh_ocr(reading, sec.lines, where)
    info.doubts = doubts(reading.rows)
    info.balances_printed = sum(tx.balance is not None for tx in txs)
    opening = _signed(printed["opening"], t.balance_unsigned) if printed["opening"] else None
    closing = _signed(printed["closing"], t.balance_unsigned) if printed["closing"] else None
    info.pinned = opening is not None and closing is not None
    if closing is None:
        if not txs or txs[-1].balance is None:
            raise TemplateMismatch(_not_found(t, "closing", closing_labels, space))
        closing = txs[-1].balance
        info.derived["closing_balance"] = "the last row's running balance"
    if opening is None:
        opening, how = _derive_opening(txs, closing, summary, reading)
        if opening is None:
            raise TemplateMismatch(_not_found(t, "opening", opening_labels, space))
        info.derived["opening_balance"] = how
    problems += _check_money_in_out(txs, summary, where)
    problems += _check_daily_balances(t, eligible, txs, opening, where, info)
    problems += _check_markers(t, reading, txs, opening, where, info)
    problems += _check_totals(reading, txs, where)
    problems += _check_day_ends(reading.rows, txs, where)
    problems += _check_one_account(t, eligible, last4, where)
    acct = Account(last4, t.currency, opening, closing, txs, summary=summary)
    return acct, info


def _check_one_account(t: Template, eligible: list[Line], last4: str, where: str) -> list[str]:
    """A section holds one account: a second account's number line, or a second opening or
    closing balance that differs from the first, is an account whose section line was not
    recognised and whose figures and rows were read as this one's."""
    problems = []
    others = {n for n in _every_labelled(eligible, ACCOUNT, read_last4, same_line=True)
              if n != last4}
    if others:
        problems.append(f"{where}: its section also prints the account number "
                        f"{', '.join(sorted(mask_account(n) for n in others))}: an account "
                        "the statement shows was not read")
    amounts = amount_reader(t.locale)
    opening_labels, closing_labels = (*OPENING, *t.opening.labels), (*CLOSING, *t.closing.labels)
    for name, labels, blockers, f in (("opening", opening_labels, closing_labels, t.opening),
                                      ("closing", closing_labels, opening_labels, t.closing)):
        if f.pattern:
            continue
        values = {_signed(a, t.balance_unsigned)
                  for a in _every_labelled(eligible, labels, amounts, blockers)}
        if len(values) > 1:
            problems.append(f"{where}: its section prints {len(values)} different {name} "
                            "balances: an account the statement shows was not read")
    return problems


def _every_labelled(lines: list[Line], labels: Sequence[str], read: Callable[[str], T | None],
                    blockers: Sequence[str] = (), same_line: bool = False) -> list[T]:
    """Every value `find_labelled` finds in `lines`, in order (`every_labelled`); with
    `same_line`, only values printed on the label's line (a word like `account` in running
    text has none)."""
    return [found.value for found in every_labelled(
        lines, labels, read, blockers=blockers,
        read_below=(lambda _: None) if same_line else None)]


def _find(t: Template, name: str, f: Field, vocabulary: Sequence[str],
          read: Callable[[str], T | None], read_below: Callable[[str], T | None],
          lines: list[Line], info: AccountReading,
          convert: Callable[[Template, str, str, Line], T],
          blockers: Sequence[str] = ()) -> T | None:
    """A figure by the template's regex, else after one of its labels or the vocabulary's."""
    if f.pattern:
        regex = re.compile(t.expand(f.pattern), re.IGNORECASE)
        for ln in lines:
            m = regex.search(ln.text)
            if m:
                text = m.group(name) if name in m.re.groupindex else m.group(1)
                info.found[name] = f"regex on page {ln.page}"
                info.pages.add(ln.page)
                return convert(t, name, text or "", ln)
        return None
    found = find_labelled(lines, (*vocabulary, *f.labels), read, read_below=read_below,
                          blockers=blockers)
    if found is None:
        return None
    info.found[name] = f"after {found.label!r} on page {found.line.page}" + (
        " (on the line under it)" if found.below else "")
    info.pages.add(found.line.page)
    # (a text layer's words carry no confidence: the value's words are looked for on OCR's)
    if found.line.ocr and any(w.conf is not None and w.conf < OCR_REVIEW_CONFIDENCE
                              for w in found.words(t.locale)):
        info.doubtful.add(name)
    return found.value


def _not_found(t: Template, name: str, labels: Sequence[str], lines: list[Line]) -> str:
    hint = label_without_value(lines, labels) if labels else None
    return f"{t.bank}: {name!r} not found" + (f" ({mask_digits(hint)})" if hint else "")


def _amount_value(t: Template) -> Callable[[Template, str, str, Line], Amount]:
    def convert(t: Template, name: str, text: str, ln: Line) -> Amount:
        try:
            return read_amount(text, t.locale)
        except ValueError as exc:
            raise _fault(t, name, ln, f"captured {text!r}, which is not an amount in locale "
                         f"{t.locale!r}") from exc
    return convert


def _last4_value(t: Template, name: str, text: str, ln: Line) -> str:
    digits = re.sub(r"\D", "", text)
    if len(digits) < 4:
        raise _fault(t, name, ln, f"captured {text!r}, which has no four digits")
    return digits[-4:]


def _fault(t: Template, key: str, ln: Line, problem: str) -> TemplateFault:
    return TemplateFault(f"{t.source}: {key} {problem}, on page {ln.page}: "
                         f"{mask_digits(ln.text)!r}")


def _signed(a: Amount, unsigned: str) -> Decimal:
    """Apply a layout's sign convention: `CR` is money in, `DR` money out, else as printed
    (an unsigned-means-debit layout prints what is owed, so its printed sign flips)."""
    if a.suffix == "CR":
        return abs(a.value)
    if a.suffix == "DR":
        return -abs(a.value)
    return -a.value if unsigned == "debit" else a.value


def _transaction(t: Template, r: Row, problems: list[str], row: str) -> Transaction:
    f = r.figures
    amount: Decimal | None
    if "amount" in f:
        tok = f["amount"]
        amount = _value(t, tok, t.amount_unsigned, problems, row)
        if r.sign is not None and amount is not None and not _has_suffix(tok):
            amount = abs(amount) if r.sign == "credit" else -abs(amount)
    elif "debit" in f or "credit" in f:
        debit = _value(t, f.get("debit"), "credit", problems, row)
        credit = _value(t, f.get("credit"), "credit", problems, row)
        amount = (credit or Decimal(0)) - abs(debit or Decimal(0))
    else:
        amount = None
    if amount is None:
        problems.append(f"{row}: a transaction row without an amount")
        amount = Decimal(0)
    return Transaction(r.date, " ".join(r.desc), amount,
                       _value(t, f.get("balance"), t.balance_unsigned, problems, row))


def _value(t: Template, tok: Token | None, unsigned: str, problems: list[str],
           row: str) -> Decimal | None:
    """A figure of a row, signed by the layout's convention (`_signed`); a figure printed
    in another currency is a problem of the row."""
    if tok is None or tok.amount is None:
        return None
    if tok.amount.currency is not None and not currency_agrees(tok.amount.currency,
                                                              t.currency):
        problems.append(f"{row}: {tok.text!r} is not in {t.currency}")
    return _signed(tok.amount, unsigned)


def _has_suffix(tok: Token) -> bool:
    return tok.amount is not None and bool(tok.amount.suffix)


def _derive_opening(txs: list[Transaction], closing: Decimal, summary: dict[str, Decimal],
                    reading: TableReading) -> tuple[Decimal | None, str]:
    """The opening balance a statement pins without printing it, and how."""
    total = Decimal(0)
    for tx in txs:
        total += tx.amount
        if tx.balance is not None:
            return tx.balance - total, ("the first printed running balance less the amounts "
                                        "up to it")
    if {"money_in", "money_out"} <= summary.keys():
        return (closing - abs(summary["money_in"]) + abs(summary["money_out"]),
                "the closing balance less the summary's money in, plus its money out")
    if reading.empty:
        return closing, "the closing balance: the account's table lists no transaction"
    return None, ""


def _check_money_in_out(txs: list[Transaction], summary: dict[str, Decimal],
                        where: str) -> list[str]:
    """A summary's money in and money out (`money_in`, `money_out`) must be what the
    transactions add up to."""
    if not summary.keys() & {"money_in", "money_out"}:
        return []  # (most layouts print no summary: nothing to add up)
    problems = []
    sums = {"money_in": sum((tx.amount for tx in txs if tx.amount > 0), Decimal(0)),
            "money_out": -sum((tx.amount for tx in txs if tx.amount < 0), Decimal(0))}
    for name, total in sums.items():
        if name in summary and abs(summary[name]) != total:
            problems.append(f"{where}: the summary's {name.replace('_', ' ')} is "
                            f"{money(abs(summary[name]))}, the transactions add up to "
                            f"{money(total)}")
    return problems


def _check_markers(t: Template, reading: TableReading, txs: list[Transaction],
                   opening: Decimal, where: str, info: AccountReading) -> list[str]:
    """Every balance brought/carried forward row must equal the running total there: the
    balance printed on the row before it, where one is (each row's balance is checked
    against the one before it, so a misread amount costs its own row, not every balance
    row after it), else the opening balance and the amounts up to it."""
    problems = []
    for m in reading.markers:
        if m.value is None or m.value.amount is None:
            continue
        printed = _signed(m.value.amount, t.balance_unsigned)
        above = txs[m.before - 1].balance if 0 < m.before <= len(txs) else None
        running = above if above is not None else opening + sum(
            (tx.amount for tx in txs[:m.before]), Decimal(0))
        info.balance_rows_checked += 1
        if printed != running:
            problems.append(f"{where}: balance row on page {m.line.page} says "
                            f"{money(printed)}, the running total there is {money(running)}")
    return problems


def _check_totals(reading: TableReading, txs: list[Transaction], where: str) -> list[str]:
    """Every section total a template names must be what the rows above it add up to (the
    figure is compared unsigned: a section prints its total as a plain amount)."""
    problems = []
    for total in reading.totals:
        if total.value is None or total.value.amount is None:
            problems.append(f"{where}: the total line on page {total.line.page} prints no "
                            f"figure: {mask_digits(total.line.text)!r}")
            continue
        label = mask_digits(total.line.text.replace(total.value.text, "").strip())
        rows = sum((tx.amount for tx in txs[total.after:total.before]), Decimal(0))
        printed = total.value.amount.value
        if abs(printed) != abs(rows):
            problems.append(f"{where}: {label!r} on page {total.line.page} is "
                            f"{money(abs(printed))}, its rows add up to {money(abs(rows))}")
    return problems


def _check_daily_balances(t: Template, lines: list[Line], txs: list[Transaction],
                          opening: Decimal, where: str, info: AccountReading) -> list[str]:
    """A table of day-end balances printed apart (`DAILY ENDING BALANCE`: date, balance
    pairs under a heading) must agree with the transactions up to each day."""
    if not t.daily_headings or not txs:
        return []
    problems = []
    end = max(tx.date for tx in txs)
    for day, amount in _daily_pairs(t, lines, end):
        printed = _signed(amount, t.balance_unsigned)
        running = opening + sum((tx.amount for tx in txs if tx.date <= day), Decimal(0))
        info.balance_rows_checked += 1
        if printed != running:
            problems.append(f"{where}: the day-end balance of {day} says {money(printed)}, "
                            f"the transactions up to that day give {money(running)}")
    return problems


def _daily_pairs(t: Template, lines: list[Line], end: date) -> list[tuple[date, Amount]]:
    """(date, balance) pairs of the lines under a daily-balance heading; the first line
    that is not pairs after some were read ends the table."""
    pairs: list[tuple[date, Amount]] = []
    under = False
    for ln in lines:
        if is_heading(ln.text, t.daily_headings):
            under = True
        elif under:
            found = _pairs_of(tokens(ln, t.locale), t.daily_date_formats, end)
            if found:
                pairs += found
            elif pairs:
                break
    return pairs


def _pairs_of(toks: list[Token], formats: tuple[str, ...], end: date
              ) -> list[tuple[date, Amount]] | None:
    """The (date, amount) pairs a line consists of, or None when it holds anything else."""
    found: list[tuple[date, Amount]] = []
    words: list[str] = []
    for tok in toks:
        if tok.amount is None:
            words.append(tok.text)
            continue
        try:
            found.append((parse_date(" ".join(words), formats, end), tok.amount))
        except ValueError:
            return None
        words = []
    return found if found and not words else None


def _check_day_ends(rows: list[Row], txs: list[Transaction], where: str) -> list[str]:
    """In a table with a balance column the balance may stand on a day's last row only,
    but there it must stand: a missing figure is never taken for an unprinted one."""
    problems = []
    for i, (r, tx) in enumerate(zip(rows, txs, strict=True)):
        last_of_day = i + 1 == len(txs) or txs[i + 1].date != tx.date
        if r.has_balance and tx.balance is None and last_of_day:
            problems.append(f"{where} row {i + 1}: the last row of {tx.date} has no running "
                            f"balance")
    return problems
