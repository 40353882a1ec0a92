"""Which figures OCR read with little confidence the running balance still vouches for.

A scanned figure read below the review confidence is not taken on OCR's word. It is trusted
when the printed running balance pins it: the account reconciles (opening + amounts =
closing, every printed balance equal to the running total), and the figure sits in an
unbroken stretch of printed balances: an amount between two printed balances (the printed
opening counts as the first), a balance followed by another printed balance or by the
printed closing balance. Two independent readings then agree on it, and a misread digit
would have broken the chain. A figure not pinned that way (a day-end balance that sums
several rows, a derived opening or closing balance) goes to review, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from parsers.model import Account, money


@dataclass(frozen=True)
class Doubt:
    """A figure OCR read below the review confidence."""

    row: int  # from 0, in the account's transactions
    figure: str  # "amount" or "balance"
    confidence: float


def weigh(acct: Account, doubts: list[Doubt], opening_printed: bool, closing_printed: bool,
          where: str) -> tuple[list[str], list[str]]:
    """(problems, trusted): a problem for every doubtful figure the chain does not pin, a
    note for every one it does."""
    amounts, balances = pinned(acct, opening_printed, closing_printed)
    problems, trusted = [], []
    for d in doubts:
        t = acct.transactions[d.row]
        value = t.amount if d.figure == "amount" else t.balance
        said = (f"{where} row {d.row + 1}: {d.figure} {money(value or Decimal(0))} read by OCR "
                f"with confidence {d.confidence:.0f}")
        if d.row in (amounts if d.figure == "amount" else balances):
            trusted.append(f"{said}, trusted: the running balance pins it")
        else:
            problems.append(f"{said}, and the running balance does not pin it: "
                            f"{_why(acct, d, opening_printed, closing_printed)}")
    return problems, trusted


def pinned(acct: Account, opening_printed: bool, closing_printed: bool
           ) -> tuple[set[int], set[int]]:
    """(rows whose amount, rows whose balance) the printed running balance pins."""
    txs = acct.transactions
    if not _reconciles(acct):
        return set(), set()
    anchors = [t.balance is not None for t in txs]
    # later[i]: a printed balance after row i, or the printed closing balance
    later = [False] * len(txs)
    after = closing_printed
    for i in range(len(txs) - 1, -1, -1):
        later[i] = after
        after = after or anchors[i]
    balances = {i for i in range(len(txs)) if anchors[i] and later[i]}
    amounts = {i for i in balances if (anchors[i - 1] if i else opening_printed)}
    return amounts, balances


def _reconciles(acct: Account) -> bool:
    running = acct.opening_balance
    for t in acct.transactions:
        running += t.amount
        if t.balance is not None and t.balance != running:
            return False
    return running == acct.closing_balance


def _why(acct: Account, d: Doubt, opening_printed: bool, closing_printed: bool) -> str:
    txs = acct.transactions
    if not _reconciles(acct):
        return "the account does not reconcile"
    if txs[d.row].balance is None:
        return "no balance is printed on its row"
    if d.figure == "amount" and (txs[d.row - 1].balance is None if d.row
                                 else not opening_printed):
        return ("no balance is printed on the row before it" if d.row
                else "the opening balance is not printed")
    return ("the closing balance is not printed" if not closing_printed
            else "no balance is printed after it")
