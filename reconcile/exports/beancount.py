"""The book as a Beancount file: one account per bank account, checked by `bean-check`.

Each transaction posts to its bank account and, with the amount left for Beancount to fill
in, to `Expenses:Uncategorized` (money out) or `Income:Uncategorized` (money in): the file
balances as written and the user recategorises by renaming one account. The earliest
statement's opening balance comes from `Equity:Opening-Balances`; every verified
statement's closing balance becomes a `balance` assertion on the day after its period.
Transactions of a statement awaiting review (only when asked for) carry the `!` flag.
"""

from __future__ import annotations

from datetime import date

from parsers.model import money
from reconcile.exports.accounts import EXPENSES, INCOME, OPENING
from reconcile.exports.source import BookExport


def render(book: BookExport) -> bytes:
    names = book.names
    opened: dict[str, date] = {}
    currencies: dict[str, str] = {}
    dated: list[tuple[date, int, str]] = []  # (date, order within the day, text)

    def use(account: str, when: date) -> None:
        opened[account] = min(when, opened.get(account, when))

    for key in book.accounts():
        name, currency = names.name(key), book.currency(key)
        currencies[name] = currency
        opening = book.opening(key)
        if opening is not None:
            use(name, opening.date)
            use(OPENING, opening.date)
            dated.append((opening.date, 1, _transaction(
                opening.date, opening.verified, "Opening balance",
                {"source_job": opening.decision_id},
                name, money(opening.amount), currency, OPENING)))
        for a in book.assertions(key):
            use(name, a.date)
            dated.append((a.date, 0, f'{a.date} balance {name}  {money(a.amount)} {currency}\n'
                                     f'  source_job: {_string(a.decision_id)}\n'))
        for t in book.transactions_of(key):
            counter = EXPENSES if t.amount < 0 else INCOME
            use(name, t.date)
            use(counter, t.date)
            dated.append((t.date, 2, _transaction(
                t.date, t.verified, t.description,
                {"txn_id": t.txn_id, "source_job": t.decision_id},
                name, money(t.amount), currency, counter)))
    header = [f";; stmtflow book export: {len(book.transactions)} transactions, "
              f"{len(book.accounts())} accounts\n"]
    header += [f"{when} open {account} {currencies.get(account, '')}".rstrip() + "\n"
               for account, when in sorted(opened.items(), key=lambda i: (i[1], i[0]))]
    body = [text for _, _, text in sorted(dated, key=lambda d: (d[0], d[1]))]
    return ("".join(header) + "\n" + "\n".join(body)).encode()


def _transaction(when: date, verified: bool, narration: str, meta: dict[str, str],
                 account: str, amount: str, currency: str, counter: str) -> str:
    lines = [f"{when} {'*' if verified else '!'} {_string(narration)}"]
    lines += [f"  {key}: {_string(value)}" for key, value in meta.items()]
    lines += [f"  {account}  {amount} {currency}", f"  {counter}"]
    return "\n".join(lines) + "\n"


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
