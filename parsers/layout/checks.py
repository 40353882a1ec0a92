"""The checks of an account's figures against its rows, each a list of problems.

What a statement prints about its rows, besides the rows, is checked against them: the
summary's money in and out, balance brought/carried forward rows and day-end balances
against the running total, section totals against the rows above them, a running balance
on every day's last row; and a section must hold one account. A check that fails is a
problem of the account, never a silent mend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from decimal import Decimal
from typing import TypeVar

from parsers.dates import parse_date
from parsers.layout.labelled import amount_reader, every_labelled, read_last4
from parsers.layout.outcome import AccountReading
from parsers.layout.table_rows import Row, TableReading
from parsers.layout.template import Template
from parsers.layout.tokens import Token, tokens
from parsers.layout.transactions import signed
from parsers.layout.vocabulary import ACCOUNT, CLOSING, OPENING, is_heading
from parsers.model import Transaction, mask_account, mask_digits, money
from parsers.numbers import Amount
from parsers.pdf.lines import Line

T = TypeVar("T")


def check_one_account(t: Template, eligible: list[Line], last4: str, where: str) -> list[str]:
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
        values = {signed(a, t.balance_unsigned)
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


def check_money_in_out(txs: list[Transaction], summary: dict[str, Decimal],
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


def check_markers(t: Template, reading: TableReading, txs: list[Transaction],
                  opening: Decimal, where: str, info: AccountReading) -> list[str]:
    """Every balance brought/carried forward row must equal the running total there: the
    balance printed on the row before it, where one is (each row's balance is checked
    against the one before it, so a misread amount costs its own row, not every balance
    row after it), else the opening balance and the amounts up to it."""
    problems = []
    for m in reading.markers:
        if m.value is None or m.value.amount is None:
            continue
        printed = signed(m.value.amount, t.balance_unsigned)
        above = txs[m.before - 1].balance if 0 < m.before <= len(txs) else None
        running = above if above is not None else opening + sum(
            (tx.amount for tx in txs[:m.before]), Decimal(0))
        info.balance_rows_checked += 1
        if printed != running:
            problems.append(f"{where}: balance row on page {m.line.page} says "
                            f"{money(printed)}, the running total there is {money(running)}")
    return problems


def check_totals(reading: TableReading, txs: list[Transaction], where: str) -> list[str]:
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


def check_daily_balances(t: Template, lines: list[Line], txs: list[Transaction],
                         opening: Decimal, where: str, info: AccountReading) -> list[str]:
    """A table of day-end balances printed apart (`DAILY ENDING BALANCE`: date, balance
    pairs under a heading) must agree with the transactions up to each day."""
    if not t.daily_headings or not txs:
        return []
    problems = []
    end = max(tx.date for tx in txs)
    for day, amount in _daily_pairs(t, lines, end):
        printed = signed(amount, t.balance_unsigned)
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
            found = pairs_of(tokens(ln, t.locale), t.daily_date_formats, end)
            if found:
                pairs += found
            elif pairs:
                break
    return pairs


def pairs_of(toks: list[Token], formats: tuple[str, ...], end: date
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


def check_day_ends(rows: list[Row], txs: list[Transaction], where: str) -> list[str]:
    """In a table with a balance column the balance may stand on a day's last row only,
    but there it must stand: a missing figure is never taken for an unprinted one."""
    problems = []
    for i, (r, tx) in enumerate(zip(rows, txs, strict=True)):
        last_of_day = i + 1 == len(txs) or txs[i + 1].date != tx.date
        if r.has_balance and tx.balance is None and last_of_day:
            problems.append(f"{where} row {i + 1}: the last row of {tx.date} has no running "
                            f"balance")
    return problems
