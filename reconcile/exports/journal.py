"""The book as an hledger/Ledger journal, the same shape as the Beancount export.

Each transaction posts to its bank account and to `Expenses:Uncategorized` or
`Income:Uncategorized` (amount inferred); tags carry the transaction id and source job. The
earliest statement's opening balance is asserted as it is posted, and every verified
statement's closing balance is a zero posting with a balance assertion, first thing on the
day after its period (journals check assertions in date order, then file order).
Descriptions lose `;`, which would start a comment in a journal. Accounts and commodities
are declared, so `ledger --strict` and `hledger check --strict` accept the file.
"""

from __future__ import annotations

from datetime import date

from parsers.model import money
from reconcile.exports.accounts import EXPENSES, INCOME, OPENING
from reconcile.exports.source import BookExport

WIDTH = 48


def render(book: BookExport) -> bytes:
    dated: list[tuple[date, int, str]] = []  # (date, order within the day, text)
    declared: list[str] = []
    for key in book.accounts():
        name, currency = book.names.name(key), book.currency(key)
        declared.append(name)
        opening = book.opening(key)
        if opening is not None:
            amount = f"{money(opening.amount)} {currency}"
            dated.append((opening.date, 1, _entry(
                opening.date, opening.verified, "Opening balance",
                {"source_job": opening.decision_id},
                [(name, f"{amount} = {amount}"), (OPENING, "")])))
        for a in book.assertions(key):
            dated.append((a.date, 0, _entry(
                a.date, True, "Statement closing balance", {"source_job": a.decision_id},
                [(name, f"0 {currency} = {money(a.amount)} {currency}")])))
        for t in book.transactions_of(key):
            dated.append((t.date, 2, _entry(
                t.date, t.verified, t.description,
                {"txn_id": t.txn_id, "source_job": t.decision_id},
                [(name, f"{money(t.amount)} {currency}"),
                 (EXPENSES if t.amount < 0 else INCOME, "")])))
    header = [f"; stmtflow book export: {len(book.transactions)} transactions, "
              f"{len(declared)} accounts\n"]
    header += [f"commodity {c}\n" for c in sorted({book.currency(k) for k in book.accounts()})]
    header += [f"account {name}\n"
               for name in dict.fromkeys((*declared, OPENING, EXPENSES, INCOME))]
    body = [text for _, _, text in sorted(dated, key=lambda d: (d[0], d[1]))]
    return ("".join(header) + "\n" + "\n".join(body)).encode()


def _entry(when: date, cleared: bool, description: str, tags: dict[str, str],
           postings: list[tuple[str, str]]) -> str:
    comment = ", ".join(f"{k}:{v}" for k, v in tags.items())
    text = " ".join(description.replace(";", ",").split())
    lines = [f"{when} {'*' if cleared else '!'} {text}  ; {comment}"]
    lines += [f"    {account:<{WIDTH}}  {amount}".rstrip() for account, amount in postings]
    return "\n".join(lines) + "\n"
