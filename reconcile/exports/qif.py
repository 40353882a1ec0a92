"""The book as a QIF file: an `!Account` block per account, then its transactions.

Dates are `MM/DD/YYYY` (what Quicken and most importers read by default). Each account starts
with Quicken's opening-balance convention (payee `Opening Balance`, category the account
itself). QIF has no id field: the transaction id goes in the memo. Verified transactions
are cleared (`C*`); one of a statement awaiting review (only when asked for) is not, and its
memo says so.
"""

from __future__ import annotations

from datetime import date

from parsers.model import money
from reconcile.exports.source import BookExport


def render(book: BookExport) -> bytes:
    out = ["!Option:AutoSwitch"]
    kinds = {}
    for key in book.accounts():
        kinds[key] = "CCard" if book.names.is_card(key) else "Bank"
        out += ["!Account", f"N{book.names.name(key)}", f"T{kinds[key]}", "^"]
    out.append("!Clear:AutoSwitch")
    for key in book.accounts():
        name = book.names.name(key)
        out += ["!Account", f"N{name}", f"T{kinds[key]}", "^", f"!Type:{kinds[key]}"]
        opening = book.opening(key)
        if opening is not None:
            out += [f"D{_day(opening.date)}", f"T{money(opening.amount)}",
                    "POpening Balance", f"L[{name}]", "C*" if opening.verified else "", "^"]
        for t in book.transactions_of(key):
            memo = f"txn_id {t.txn_id}" + ("" if t.verified else " (needs review)")
            out += [f"D{_day(t.date)}", f"T{money(t.amount)}", f"P{_line(t.description)}",
                    f"M{memo}", "C*" if t.verified else "", "^"]
    return ("\n".join(line for line in out if line) + "\n").encode()


def _day(d: date) -> str:
    return d.strftime("%m/%d/%Y")


def _line(text: str) -> str:
    return " ".join(text.split())
