"""Readings of an unknown table, and the one the statement's own numbers accept.

A reading says which column is the balance, whether money moves in one signed column or a
debit/credit pair (and which is which), and the order of day and month. Each is applied to
every section: dates (a yearless one takes its year from the period, so a December row of a
January statement is last year's), amounts (`CR`/`DR`, a minus or parentheses as printed; on
a card statement an unsigned figure is what is owed), the opening balance (printed, a
brought-forward row, or derived from the first running balance, and recorded as derived)
and the closing one. A reading is accepted only when it validates: opening + sum = closing
and every printed running balance and balance row agrees. Two readings that validate with
different results are refused as ambiguous, never decided by a guess.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from parsers.dates import compile_format, fold, parse_date
from parsers.errors import AmbiguousLayout
from parsers.generic.columns import column_of, end_figures
from parsers.generic.explain import Explanation
from parsers.generic.figures import (
    Section,
    account_last4,
    currency,
    find_statement_period,
    header_labels,
    header_roles,
    is_card,
    outside_rows,
    printed_balances,
    split_sections,
    summary_totals,
)
from parsers.generic.found import Row, Table
from parsers.generic.words import DUES
from parsers.layout.boxes import Boxed, boxed_figures
from parsers.layout.labelled import Found
from parsers.layout.outcome import AccountReading, ParseOutput
from parsers.layout.vocabulary import label_in
from parsers.model import Account, Statement, Transaction, mask_account, mask_digits, money
from parsers.numbers import Amount
from parsers.pdf.lines import Line
from parsers.validate import Validation, validate

Validator = Callable[[ParseOutput], Validation]
#: Column roles tried for a table of that many figure columns, before the header's own.
ROLE_SETS: dict[int, list[tuple[str, ...]]] = {
    1: [("amount",)],
    2: [("amount", "balance"), ("debit", "credit"), ("credit", "debit")],
    3: [("debit", "credit", "balance"), ("credit", "debit", "balance")],
}
#: The most figure columns a table is read with; more are a page of other figures.
MAX_COLUMNS = 6


@dataclass(frozen=True)
class Reading:
    roles: tuple[str, ...]
    date_format: str
    #: Whether a heading (`Deposits`, `Purchases`) says what an unsigned amount under it is.
    headings: bool = False

    def __str__(self) -> str:
        return f"columns {', '.join(self.roles)}, dates {self.date_format}" + (
            ", headings sign amounts" if self.headings else "")


@dataclass
class Context:
    lines: list[Line]
    table: Table
    sections: list[Section]
    card: bool
    currency: str
    #: What every reading reads alike, read once for all of them: the period by row date
    #: form, the account number printed anywhere, each section's printed balances.
    _periods: dict[str, tuple[date | None, date, str] | None] = field(
        default_factory=dict, repr=False)
    _balances: dict[int, tuple[Found[Amount] | None, Found[Amount] | None, str | None]] = field(
        default_factory=dict, repr=False)
    _boxed: dict[int, tuple[list[Line], list[Boxed]]] = field(default_factory=dict,
                                                              repr=False)
    #: (section id, row date form) -> its rows' dates in that form (`dates`)
    _dates: dict[tuple[int, str], list[date] | None] = field(default_factory=dict, repr=False)

    def period(self, row_format: str) -> tuple[date | None, date, str] | None:
        """`find_statement_period` of the lines."""
        if row_format not in self._periods:
            self._periods[row_format] = find_statement_period(self.lines, row_format)
        return self._periods[row_format]

    @functools.cached_property
    def last4(self) -> str | None:
        """`account_last4` of the lines outside the table's rows (a row's `CARD ENDING
        4410` names the card a payment was made with, not the statement's account)."""
        return account_last4([ln for ln in self.lines if id(ln) not in self.table.used])

    @functools.cached_property
    def signs(self) -> list[int]:
        """Per column, how its unsigned figures are printed: -1 where most of its figures
        carry a minus (a money-out column printed `-65.00`), else 1. A figure printed the
        other way from its column's own figures is a reversal (`-25.00` among unsigned
        withdrawals is money back in)."""
        out = []
        for i in range(len(self.table.columns)):
            values = [r.figures[i].amount.value for r in self.table.rows
                      if i in r.figures and r.figures[i].amount is not None
                      and not r.figures[i].amount.suffix]
            out.append(-1 if sum(v < 0 for v in values) > sum(v > 0 for v in values) else 1)
        return out

    def boxed(self, sec: Section) -> tuple[list[Line], list[Boxed]]:
        """The section's lines outside its rows, and the figures boxed among them."""
        if id(sec) not in self._boxed:
            space = outside_rows(sec, self.table)
            self._boxed[id(sec)] = (space, boxed_figures(space, self.table.locale))
        return self._boxed[id(sec)]

    def balances(self, sec: Section
                 ) -> tuple[Found[Amount] | None, Found[Amount] | None, str | None]:
        """`printed_balances` of one of the sections."""
        if id(sec) not in self._balances:
            self._balances[id(sec)] = printed_balances(*self.boxed(sec), self.table.locale)
        return self._balances[id(sec)]

    def dates(self, sec: Section, row_format: str) -> list[date] | None:
        """The dates of the section's rows in `row_format`, a yearless one's year from that
        form's period; None when a row's is no date in it (the readings that share a date
        form differ in their columns only)."""
        key = (id(sec), row_format)
        if key not in self._dates:
            period = self.period(row_format)
            self._dates[key] = _row_dates(sec.rows, row_format, period[1] if period else None)
        return self._dates[key]


def readings(lines: list[Line], table: Table) -> list[list[Reading]]:
    """Every reading worth trying, in tiers: first every column in a role (the header's
    roles first, where it names them), then, for a table none of those reads, readings that
    leave aside the columns whose header names figures that move no money (cashback,
    reward points, a foreign currency's amount)."""
    hinted = header_roles(lines, table)
    n = len(table.columns)
    sets = list(ROLE_SETS.get(n, []))
    if len(hinted) == n:
        named = tuple(hinted[i] for i in range(n))
        sets = [named, *[s for s in sets if s != named]]
    # a column is left aside only where its header says its figures move no money: a
    # figure nothing names is never ignored (it may be the balance that refutes a reading)
    kept = [i for i in range(n) if hinted.get(i) != "ignore"]
    aside = [] if len(kept) == n or n > MAX_COLUMNS else [
        tuple(roles[kept.index(i)] if i in kept else "ignore" for i in range(n))
        for roles in ROLE_SETS.get(len(kept), [])
        if all(hinted.get(i, role) == role for i, role in zip(kept, roles, strict=True))]
    headed = any(row.heading for row in table.rows)

    def each(role_sets: list[tuple[str, ...]]) -> list[Reading]:
        return [Reading(roles, fmt, by_heading) for fmt in table.formats for roles in role_sets
                for by_heading in ((True, False) if headed and "amount" in roles else (False,))]

    return [each(sets), each(aside)]


def decide(lines: list[Line], table: Table, validator: Validator,
           explain: Explanation | None = None) -> ParseOutput | None:
    """The one statement every validating reading agrees on. When none validates but one
    reading's balances agree and only its reading of the lines is in doubt (a line no row
    took), that reading, for review; None when nothing reconciles. What was found, and
    what each reading gave, is noted in `explain`."""
    ctx = Context(lines, table, split_sections(lines, table), is_card(lines),
                  currency(lines, table.locale))
    if explain is not None:
        _found(ctx, explain)
    log = explain.readings if explain is not None else None
    doubted: dict[str, tuple[Reading, ParseOutput]] = {}
    for tier in readings(lines, table):
        accepted: dict[str, tuple[Reading, ParseOutput]] = {}
        for r in tier:
            out = apply(r, ctx)
            if isinstance(out, str):
                if log is not None:
                    log.append(f"{r}: {out}")
                continue
            st = out.statement
            key = json.dumps([st.to_dict(), str(st.period_start), str(st.period_end)])
            verdict = validator(out)
            if verdict.ok:
                accepted.setdefault(key, (r, out))
            elif validate(st).ok:
                doubted.setdefault(key, (r, out))
            if log is not None:
                log.append(f"{r}: " + ("validates" if verdict.ok else
                                       "; ".join(verdict.problems[:3])))
        if len(accepted) > 1:
            found = "; ".join(str(r) for r, _ in accepted.values())
            raise AmbiguousLayout(f"no template matches and {len(accepted)} readings of the "
                                  f"table reconcile with different results ({found})")
        if accepted:
            return next(iter(accepted.values()))[1]
    return next(iter(doubted.values()))[1] if len(doubted) == 1 else None


def _found(ctx: Context, explain: Explanation) -> None:
    """Note the table, the period and each account's number and balances."""
    table = ctx.table
    header = header_roles(ctx.lines, table)
    explain.table = {
        "locale": table.locale, "dates": list(table.formats), "rows": len(table.rows),
        "first_row": table.rows[0].line.text if table.rows else "",
        "columns": [{"right_edge": round(x, 1), "header": header.get(i, "")}
                    for i, x in enumerate(table.columns)]}
    period = ctx.period(table.formats[0])
    explain.period = (f"{period[0] or '?'} to {period[1]} ({period[2]})" if period else "")
    if not ctx.sections:
        explain.missing.append("account sections: an account named beside another prints no "
                               "rows of its own")
    for sec in ctx.sections:
        opening, closing, _ = ctx.balances(sec)
        account = {"number": mask_account(sec.last4 or ctx.last4) if (sec.last4 or ctx.last4)
                   else "none printed", "rows": str(len(sec.rows))}
        for name, found in (("opening", opening), ("closing", closing)):
            account[name] = (f"{money(signed(found.value, False))} after {found.label!r} on "
                             f"page {found.line.page}") if found else "not labelled"
        explain.accounts.append(account)


def apply(r: Reading, ctx: Context) -> ParseOutput | str:
    """The statement `r` reads, with its problems; what is missing when it cannot be read
    at all."""
    period = ctx.period(r.date_format)
    if period is None and not compile_format(r.date_format).has_year:
        return "rows without a year, and no statement period or date printed to give one"
    if period is None and any(ctx.period(f) for f in ctx.table.formats):
        return "the period is printed with day and month the other way round"
    end = period[1] if period else None
    out = ParseOutput(Statement("generic", [], period[0] if period else None, end))
    for sec in ctx.sections:
        acct = _account(r, ctx, sec, end, out)
        if isinstance(acct, str):
            return acct
        out.statement.accounts.append(acct)
    out.pages = {r.line.page for r in ctx.table.rows} | {
        f.line.page for sec in ctx.sections for f in ctx.balances(sec)[:2] if f is not None}
    txs = [t for a in out.statement.accounts for t in a.transactions]
    how = period[2] if period else "the span of the transactions"
    if period is None and txs:
        out.statement.period_start = min(t.date for t in txs)
        out.statement.period_end = max(t.date for t in txs)
    out.how = describe(r, ctx, how)
    return out


def describe(r: Reading, ctx: Context, period: str) -> dict[str, Any]:
    """How the statement was read: enough to write a template for it."""
    convention = ("card: an unsigned figure is money owed, CR marks a credit" if ctx.card
                  else "as printed: a minus, parentheses or DR is money out")
    return {"layout": "generic", "locale": ctx.table.locale, "date_format": r.date_format,
            "currency": ctx.currency, "period": period, "convention": convention,
            "header": header_labels(ctx.lines, ctx.table, r.roles),
            "columns": [{"role": role, "right_edge": round(x, 1)}
                        for role, x in zip(r.roles, ctx.table.columns, strict=True)],
            "sections": len(ctx.sections), "headings_sign_amounts": r.headings}


def _account(r: Reading, ctx: Context, sec: Section, end: date | None, out: ParseOutput
             ) -> Account | str:
    """The section's account as the reading reads it, its problems noted in `out`; why it
    cannot be read, where it cannot."""
    dates = ctx.dates(sec, r.date_format)
    if dates is None:
        return f"a row's date is no date in the form {r.date_format}"
    first = ctx.table.rows.index(sec.rows[0])
    printed = _in_print_order(r, ctx, sec, dates, first)
    if isinstance(printed, str):
        return printed
    info = AccountReading()
    if len(dates) > 1 and dates[0] > dates[-1] and all(map(operator.ge, dates, dates[1:])):
        printed.reverse()  # the newest row printed first: the balances run up the page
        info.derived["order"] = "rows printed newest first, read from the last"
    txs: list[Transaction] = []
    checks: list[tuple[int, Decimal]] = []  # (transactions before it, the balance it states)
    for entry in printed:
        if isinstance(entry, Transaction):
            txs.append(entry)
        else:
            checks.append((len(txs), entry))
    info.rows = len(txs)
    info.balances_printed = sum(t.balance is not None for t in txs)
    last4 = sec.last4 or ctx.last4
    if last4 is None:
        last4, info.unnamed = "", True
    balances = _ends(ctx, sec, first, checks, txs, info)
    if isinstance(balances, str):
        return balances
    opening, closing = balances
    where = f"account {mask_account(last4)}"
    closing = _checked_closing(r, ctx, sec, txs, where, out, (opening, closing), info)
    _note_lost_lines(ctx, sec, first, where, out, info)
    days = _days(r, ctx, sec, end)
    if days is None:
        return f"a day of the daily balances is no date in the form {r.date_format}"
    _check_running(opening, txs, checks, days, where, out, info)
    out.readings.append(info)
    return Account(last4, ctx.currency, opening, closing, txs)


def _in_print_order(r: Reading, ctx: Context, sec: Section, dates: list[date], first: int
                    ) -> list[Transaction | Decimal] | str:
    """The section in print order: its rows (a transaction, or the balance a row prints
    alone: `SALDO DO DIA`) and its balance rows, each a balance after the rows before it;
    why not, where a row prints no amount in the reading's columns."""
    printed: list[Transaction | Decimal] = []
    markers = sorted(((m.before - first, signed(m.value.amount, ctx.card)) for m in sec.markers
                      if m.value.amount is not None), key=operator.itemgetter(0))
    k = 0
    for n, (row, when) in enumerate(zip(sec.rows, dates, strict=True)):
        while k < len(markers) and markers[k][0] <= n:
            printed.append(markers[k][1])
            k += 1
        entry = _transaction(r, ctx, row, when)
        if entry is None:
            return (f"row {n + 1} ({row.line.text[:60]!r}) prints no amount in the columns "
                    f"{', '.join(r.roles)}")
        printed.append(entry)
    printed += [value for _, value in markers[k:]]
    return printed


def _ends(ctx: Context, sec: Section, first: int, checks: list[tuple[int, Decimal]],
          txs: list[Transaction], info: AccountReading) -> tuple[Decimal, Decimal] | str:
    """(opening, closing) of the section: labelled, else from its balance rows or running
    balances (recorded as derived); why not, where either is found nowhere. Notes in
    `info` whether both ends are pinned by printed balances."""
    opening_found, closing_found, _ = ctx.balances(sec)
    opening, closing = _opening(opening_found, checks, txs, ctx.card, info)
    if closing_found is not None:
        closing = signed(closing_found.value, ctx.card)
    elif closing is not None:
        info.derived["closing_balance"] = "the last running balance or balance row"
    # both ends printed as balances, labelled or as balance rows, not taken from the last
    # running balance read (rows lost after it would go unseen)
    ends = {m.before - first for m in sec.markers}
    start, stop = (len(sec.rows), 0) if "order" in info.derived else (0, len(sec.rows))
    info.pinned = (opening_found is not None or start in ends) and (
        closing_found is not None or stop in ends)
    if opening is None:
        return "no opening balance: none labelled, no balance row before the first "\
               "transaction, no running balance to derive it from"
    if closing is None:
        return "no closing balance: none labelled, and no running balance or balance row "\
               "after the last transaction"
    return opening, closing


def _checked_closing(r: Reading, ctx: Context, sec: Section, txs: list[Transaction],
                     where: str, out: ParseOutput, ends: tuple[Decimal, Decimal],
                     info: AccountReading) -> Decimal:
    """The closing balance once the summary box has checked the rows (a due rounded to
    whole units read exactly where it does); a slipped decimal mark in either end noted."""
    opening, closing = ends
    _, closing_found, slipped = ctx.balances(sec)
    summed = len(ctx.sections) == 1 and _summary_checked(r, ctx, sec, txs, where, out)
    if summed and closing_found is not None:
        closing = _rounded_due(opening, txs, closing, closing_found.label, info)
    if slipped is not None:
        info.derived[slipped] = ("a figure printed with a slipped decimal mark, read as "
                                 f"{money(opening if slipped == 'opening_balance' else closing)}"
                                 " (the balance equation confirms it or refuses the statement)")
    return closing


def _note_lost_lines(ctx: Context, sec: Section, first: int, where: str, out: ParseOutput,
                     info: AccountReading) -> None:
    """Rows whose date is damaged, and lines among the section's rows no row took: a
    problem where one prints a figure where amounts stand (a row may be lost), else
    furniture."""
    for n, row in enumerate(sec.rows, start=1):
        if row.bad_date:
            out.problems.append(f"{where} row {n}: {row.bad_date!r} stands where its date "
                                "does and is no date: the row's day is unknown")
    for ln, before, near in ctx.table.strays:
        if not (first < before < first + len(sec.rows)
                or (near and before == first + len(sec.rows))):
            continue
        if any(column_of(ctx.table, t, ln) is not None
               for t in end_figures(ln, ctx.table.locale)):
            out.problems.append(f"{where}: a line between two rows on page {ln.page} prints a "
                                f"figure where amounts stand and no row took it: {ln.text!r}")
        else:
            info.furniture.append(f"page {ln.page}: {mask_digits(ln.text)}")


def _check_running(opening: Decimal, txs: list[Transaction], checks: list[tuple[int, Decimal]],
                   days: list[tuple[date, Decimal]], where: str, out: ParseOutput,
                   info: AccountReading) -> None:
    """Every balance row and daily balance against the running total there: a problem in
    `out` where one disagrees."""
    #: the amounts up to each row, summed in the rows' order (as a sum of each first few is)
    upto = list(itertools.accumulate((t.amount for t in txs), initial=Decimal(0))) if (
        checks or days) else []
    for before, value in checks:
        running = opening + upto[before]
        info.balance_rows_checked += 1
        if value != running:
            out.problems.append(f"{where}: a balance row says {money(value)}, the running "
                                f"total there is {money(running)}")
    # rows in date order: those up to a day are the first few (found by halving, not read)
    when = [t.date for t in txs] if days else []
    ordered = all(map(operator.le, when, when[1:]))
    for day, value in days:
        running = opening + (upto[bisect.bisect_right(when, day)] if ordered else sum(
            (t.amount for t in txs if t.date <= day), Decimal(0)))
        info.balance_rows_checked += 1
        if value != running:
            out.problems.append(f"{where}: the daily balance of {day} is {money(value)}, the "
                                f"transactions up to that day give {money(running)}")


def _summary_checked(r: Reading, ctx: Context, sec: Section, txs: list[Transaction],
                     where: str, out: ParseOutput) -> bool:
    """Check the money in and out a summary box prints against the rows, which it totals
    (the statement's one account); whether it printed both and both agree. A row counts
    on the side of the column it is printed in: a reversal printed in the withdrawals
    lessens the money out, as the summary nets it."""
    totals = summary_totals(ctx.boxed(sec)[1])
    if not totals:
        return False
    rows = {"in": Decimal(0), "out": Decimal(0)}
    if "debit" in r.roles or "credit" in r.roles:
        for row in sec.rows:
            for side, role in (("in", "credit"), ("out", "debit")):
                i = r.roles.index(role) if role in r.roles else -1
                a = row.figures[i].amount if i in row.figures else None
                if a is not None:
                    rows[side] += _in_column(a, ctx.signs[i])
    else:
        rows = {"in": sum((t.amount for t in txs if t.amount > 0), Decimal(0)),
                "out": -sum((t.amount for t in txs if t.amount < 0), Decimal(0))}
    for side, printed in totals.items():
        if printed != rows[side]:
            out.problems.append(f"{where}: the summary's money {side} is {money(printed)}, "
                                f"the rows add up to {money(rows[side])}")
    return totals.keys() == {"in", "out"} and all(totals[k] == rows[k] for k in totals)


def _rounded_due(opening: Decimal, txs: list[Transaction], closing: Decimal, label: str,
                 info: AccountReading) -> Decimal:
    """The closing balance where the statement prints only what is due, rounded to whole
    units (`Total Dues 1,660.00` for 1,659.75): opening + the rows, when that rounds to the
    printed figure and the summary's money in and out, checked against the rows, pin them;
    else the printed figure."""
    exact = opening + sum((t.amount for t in txs), Decimal(0))
    whole = exact.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    if exact == closing or whole != closing or not label_in(fold(label), DUES):
        return closing
    info.derived["closing_balance"] = (
        f"the opening balance and the rows, {money(exact)}: {label!r} prints it rounded to "
        f"whole units, {money(closing)}, and the summary's money in and out agree with the "
        "rows")
    return exact


def _days(r: Reading, ctx: Context, sec: Section, end: date | None
          ) -> list[tuple[date, Decimal]] | None:
    """The section's daily balances (the balance at the end of each day listed); None when
    a day does not read in the reading's date form."""
    mine = {id(ln) for ln in sec.lines}
    out = []
    for text, tok, ln in ctx.table.days:
        if id(ln) not in mine or tok.amount is None:
            continue
        try:
            out.append((parse_date(text, r.date_format, end), signed(tok.amount, ctx.card)))
        except ValueError:
            return None
    return out


def _row_dates(rows: list[Row], row_format: str, end: date | None) -> list[date] | None:
    out = []
    for row in rows:
        try:
            out.append(parse_date(row.date_text, row_format, end))
        except ValueError:
            return None
    return out


def _transaction(r: Reading, ctx: Context, row: Row, when: date
                 ) -> Transaction | Decimal | None:
    """The row's transaction; the balance it prints, where it prints no amount (a balance
    of the day); None where it prints neither."""
    figures = {role: row.figures[i].amount for i, role in enumerate(r.roles)
               if i in row.figures and role != "ignore"}
    column = {role: i for i, role in enumerate(r.roles)}
    unsigned = figures.get("amount") is not None and figures["amount"].value > 0 and not (
        figures["amount"].suffix)
    balance = figures.get("balance")
    if "amount" in figures and r.headings and row.heading and unsigned:
        value = abs(figures["amount"].value)
        amount = value if row.heading == "credit" else -value
    elif "amount" in figures:
        amount = signed(figures["amount"], ctx.card)
    elif "debit" in figures or "credit" in figures:
        debit, credit = figures.get("debit"), figures.get("credit")
        amount = _in_column(credit, ctx.signs[column["credit"]]) if credit else Decimal(0)
        amount -= _in_column(debit, ctx.signs[column["debit"]]) if debit else Decimal(0)
    elif balance is not None and balance.value:
        return signed(balance, ctx.card)
    elif balance is not None:
        # a lone zero moves no money and states no balance the rows after it follow from
        # (`Acc Status Enq ... 0.00`): a row of no amount, whichever column prints it
        return Transaction(when, " ".join(row.desc), Decimal(0), None)
    else:
        return None
    return Transaction(when, " ".join(row.desc), amount,
                       None if balance is None else signed(balance, ctx.card))


def _in_column(a: Amount, sign: int) -> Decimal:
    """A debit or credit column's figure as the money it moves that way: `CR`/`DR` as
    printed, else as the column prints its figures (`sign`, `Context.signs`), a figure signed
    the other way being a reversal."""
    if a.suffix:
        return signed(a, False) if a.suffix == "CR" else -signed(a, False)
    return a.value * sign


def signed(a: Amount | None, card: bool) -> Decimal:
    """`CR` is money in, `DR` money out, else as printed (on a card, what is owed)."""
    if a is None:
        return Decimal(0)
    if a.suffix == "CR":
        return abs(a.value)
    if a.suffix == "DR":
        return -abs(a.value)
    return -a.value if card else a.value


def _opening(found: Found[Amount] | None, markers: list[tuple[int, Decimal]],
             txs: list[Transaction], card: bool, info: AccountReading
             ) -> tuple[Decimal | None, Decimal | None]:
    """(opening, closing) where the statement pins them without a label: the opening
    printed, else a balance row above the first transaction, else the first running balance
    less the amounts up to it; the closing from a balance row after the last transaction,
    else the last running balance."""
    at_end = [v for before, v in markers if before == len(txs)]
    closing = at_end[-1] if at_end else (txs[-1].balance if txs else None)
    if found is not None:
        return signed(found.value, card), closing
    at_start = [v for before, v in markers if before == 0]
    if at_start:
        info.derived["opening_balance"] = "a balance row above the first transaction"
        return at_start[0], closing
    opening = _from_first_balance(txs)
    if opening is not None:
        info.derived["opening_balance"] = ("the first printed running balance less the "
                                           "amounts up to it")
    return opening, closing


def _from_first_balance(txs: list[Transaction]) -> Decimal | None:
    total = Decimal(0)
    for t in txs:
        total += t.amount
        if t.balance is not None:
            return t.balance - total
    return None
