"""The rows of a table as transactions, signed by the layout's convention.

A layout says what an unsigned figure means (`amount_unsigned`, `balance_unsigned`), a
heading may say it for the rows under it, and a `CR` or `DR` printed with a figure says it
for that figure; the account's figures and every check of them are signed the same way.
"""

from __future__ import annotations

from decimal import Decimal

from parsers.layout.table_rows import Row
from parsers.layout.template import Template
from parsers.layout.tokens import Token
from parsers.model import Transaction
from parsers.numbers import Amount, currency_agrees


def signed(a: Amount, unsigned: str) -> Decimal:
    """Apply a layout's sign convention: `CR` is money in, `DR` money out, else as printed
    (an unsigned-means-debit layout prints what is owed, so its printed sign flips)."""
    if a.suffix == "CR":
        return abs(a.value)
    if a.suffix == "DR":
        return -abs(a.value)
    return -a.value if unsigned == "debit" else a.value


def transaction(t: Template, r: Row, problems: list[str], row: str) -> Transaction:
    """The transaction of the row `r` (named `row` in its problems)."""
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
    """A figure of a row, signed by the layout's convention (`signed`); a figure printed
    in another currency is a problem of the row."""
    if tok is None or tok.amount is None:
        return None
    if tok.amount.currency is not None and not currency_agrees(tok.amount.currency,
                                                              t.currency):
        problems.append(f"{row}: {tok.text!r} is not in {t.currency}")
    return signed(tok.amount, unsigned)


def _has_suffix(tok: Token) -> bool:
    return tok.amount is not None and bool(tok.amount.suffix)
