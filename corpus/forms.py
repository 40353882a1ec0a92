"""How a variant prints a statement's parts: figures with their sign and currency, labels,
periods, summary blocks, day-grouped dates and balances, wrapped descriptions, carried-forward
rows and the rows of the usual tables. Every renderer in `banks.py` reads the variant through
these helpers, so a knob means the same thing in every layout.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from corpus.render import Col, Sheet
from corpus.truth import day_end_balances, without_balances
from corpus.variant import PLAIN, Variant
from parsers.model import Account
from parsers.numbers import format_amount


def signed(v: Decimal, variant: Variant = PLAIN, locale: str = "en") -> str:
    """A signed figure as the variant prints it: `-4.50`, `4.50-` or `(4.50)`."""
    body = format_amount(v, locale)
    if v >= 0:
        return body
    return {"trailing": body + "-", "parentheses": f"({body})"}.get(variant.sign, "-" + body)


def money(v: Decimal, variant: Variant = PLAIN, code: str = "USD", symbol: str = "$",
          locale: str = "en") -> str:
    """A summary figure with its currency where the variant puts it: `$1,234.56`,
    `USD 1,234.56`, `1,234.56 USD` or bare; a bank without a symbol prints its code after."""
    figure = signed(v, variant, locale)
    placement = variant.currency
    if placement == "standard":
        if not symbol:
            return f"{figure} {code}"
        if v < 0 and variant.sign == "standard":
            return f"-{symbol}{figure[1:]}"
        if v < 0 and variant.sign == "parentheses":
            return f"({symbol}{figure[1:]}"
        return symbol + figure
    return {"before": f"{code} {figure}", "after": f"{figure} {code}"}.get(placement, figure)


def plain(v: Decimal) -> str:
    return signed(v)


def summary(s: Sheet, v: Variant, rows: list[tuple[str, str]], x: float = 60,
            right: float = -330, bold: bool = False) -> None:
    """Labelled figures, on one line or (`value_below`) with the figure under its label."""
    for label, value in rows:
        if v.value_below:
            s.line((x, label), bold=bold)
            s.line((x + 12, value), bold=bold)
        else:
            s.line((x, label), (right, value), bold=bold)


def period_line(v: Variant, standard: str, start: str, end: str, german: bool = False) -> str:
    if v.period_form == "short":
        return f"{v.cased('Zeitraum' if german else 'Period')} : {start} - {end}"
    if v.period_form == "from-to":
        return (f"{v.cased('Auszugszeitraum vom')} {start} {v.cased('bis')} {end}" if german
                else f"{v.cased('Statement period from')} {start} {v.cased('to')} {end}")
    return standard


def shape(acct: Account, v: Variant) -> Account:
    """The truth of an account as the variant prints it (balances per day or none)."""
    if v.structure == "split-sections":
        return without_balances(acct, [t for t in acct.transactions if t.amount > 0]
                                + [t for t in acct.transactions if t.amount < 0])
    return day_end_balances(acct) if v.day_end_balance else acct


def dates(acct: Account, v: Variant, fmt: str) -> list[str]:
    """The date cell of each row: with `date_once`, only a day's first row shows it."""
    out, previous = [], None
    for t in acct.transactions:
        out.append("" if v.date_once and t.date == previous else t.date.strftime(fmt))
        previous = t.date
    return out


def lines(s: Sheet, v: Variant, text: str, width: float) -> list[str]:
    """A description wrapped in its column; `narrow` wraps it sooner where it still fits in
    three lines; a wide font may need a fourth line for the longest descriptions."""
    for w in ([width * 0.72] if v.narrow else []) + [width]:
        try:
            return s.wrap(text, w)
        except ValueError:
            pass
    return s.wrap(text, width, max_lines=4)


def carry_row(v: Variant, cells: int, desc: int, fmt: Callable[[Decimal], str]
              ) -> Callable[[str, Decimal], list[str]]:
    """Cells of a `Balance carried/brought forward` row: the words under the description,
    the balance in the last column."""
    def row(kind: str, balance: Decimal) -> list[str]:
        out = [""] * cells
        out[desc] = v.cased(f"Balance {kind} forward")
        out[-1] = fmt(balance)
        return out
    return row


def out_in_rows(s: Sheet, v: Variant, acct: Account, running: list[Decimal],
                 date_format: str, width: float, balance: Callable[[Decimal], str]) -> None:
    """Rows of a table with money out and money in in two columns and a running balance."""
    for t, when, after in zip(acct.transactions, dates(acct, v, date_format), running,
                              strict=True):
        first, *rest = lines(s, v, t.description, width)
        s.row([when, first, format_amount(t.amount) if t.amount < 0 else "",
               format_amount(t.amount) if t.amount > 0 else "",
               "" if t.balance is None else balance(t.balance)], rest, running=after)


def amount_sections(s: Sheet, v: Variant, acct: Account, titles: tuple[str, str],
                     date_format: str, width: float) -> None:
    """Money in and money out in sections of their own, each with one unsigned Amount."""
    cols = [Col("Date", 50), Col("Description", 95, width=width + 60),
            Col("Amount", 560, "right")]
    for title, money_in in zip(titles, (True, False), strict=True):
        rows = [t for t in acct.transactions if (t.amount > 0) == money_in]
        if not rows:
            continue
        s.ensure(4)
        s.line((50, v.cased(title)), bold=True)
        s.table_header(cols)
        part = Account(acct.account_last4, acct.currency, acct.opening_balance,
                       acct.closing_balance, rows)
        for t, when in zip(rows, dates(part, v, date_format), strict=True):
            first, *rest = lines(s, v, t.description, width + 60)
            s.row([when, first, format_amount(t.amount)], rest)
        s.end_table()
        s.line((50, v.cased(f"Total {title.lower()}")),
               (-560, money(sum((t.amount for t in rows), Decimal(0)).copy_abs(), v)))
        s.skip()


def runs(acct: Account) -> list[Decimal]:
    """The account's balance after each row, printed or not."""
    out, balance = [], acct.opening_balance
    for t in acct.transactions:
        balance += t.amount
        out.append(balance)
    return out
