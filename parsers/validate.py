"""Validation: a statement is trusted only when its own numbers agree, to the cent.

Per account: opening + sum of amounts = closing; the running balance row by row where the
layout prints one; every date inside the statement period; layout hooks add their own
checks (a card's summary arithmetic). Where the running balance pins a misread amount (an
OCR slip), the amount is repaired and the repair recorded; a statement that still does not
agree is reported with its problems and never presented as validated.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import timedelta
from decimal import Decimal

from parsers.model import Account, Statement, mask_account, money

#: The revision of the rules below; pinned on every job so a policy change is visible.
POLICY_REVISION = "balances-v1"
#: A card statement prints only its closing date; its period is at most this long.
MAX_PERIOD = timedelta(days=62)


@dataclass
class Validation:
    ok: bool
    problems: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    #: Figures OCR read with little confidence that the running balance pins (`trust.py`).
    trusted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "problems": self.problems, "repairs": self.repairs,
                "trusted": self.trusted}


def validate(st: Statement, parse_problems: list[str] | None = None) -> Validation:
    problems = list(parse_problems or [])
    if not st.accounts:
        problems.append("no account found")
    if st.period_start and st.period_end and st.period_start > st.period_end:
        problems.append(f"statement period starts {st.period_start} after it ends {st.period_end}")
    for index, acct in enumerate(st.accounts):
        where = f"account {index + 1} ({mask_account(acct.account_last4)})"
        total = acct.opening_balance + sum((t.amount for t in acct.transactions), Decimal(0))
        if total != acct.closing_balance:
            problems.append(
                f"{where}: opening {money(acct.opening_balance)} + transactions = "
                f"{money(total)}, but closing is {money(acct.closing_balance)}"
            )
        running = acct.opening_balance
        for row, t in enumerate(acct.transactions, start=1):
            running += t.amount
            if t.balance is not None and t.balance != running:
                problems.append(f"{where} row {row}: balance {money(t.balance)} "
                                f"but the running total is {money(running)}")
                running = t.balance
        problems += _dates_outside_period(st, acct, where)
    return Validation(ok=not problems, problems=problems)


def _dates_outside_period(st: Statement, acct: Account, where: str) -> list[str]:
    """Every date inside the account's own period (several statements in one file), else
    inside the statement's."""
    own = acct.period_end is not None
    end = acct.period_end if own else st.period_end
    if end is None:
        return []
    start = (acct.period_start if own else st.period_start) or end - MAX_PERIOD
    return [f"{where} row {row}: date {t.date} outside {start}..{end}"
            for row, t in enumerate(acct.transactions, start=1)
            if not start <= t.date <= end]


def repair_from_running_balance(acct: Account) -> list[str]:
    """Fix single misread amounts or balances that the neighbouring rows pin down exactly.

    A row's amount is replaced only when the balances on both sides of it agree with each
    other and with every other row (so the printed balance chain, not a guess, decides it);
    likewise a misread balance is replaced only when the next row confirms the recomputed one.
    The first row's amount is never replaced: the opening balance before it is a single
    reading that nothing else confirms, and a misread opening balance would be "repaired" into
    the first amount, where the two wrong figures agree with everything else. A row is
    weighed only where the balances before it, on it and after it are printed: one that OCR
    could not read costs the rows beside it, not every repair of the account.
    Returns a note per repair; `acct.transactions` is updated in place.
    """
    txs = acct.transactions
    repairs: list[str] = []
    for i, t in enumerate(txs):
        prev = acct.opening_balance if i == 0 else txs[i - 1].balance
        if prev is None or t.balance is None:
            continue
        if prev + t.amount == t.balance:
            continue
        nxt = txs[i + 1] if i + 1 < len(txs) else None
        if nxt is not None and nxt.balance is None:
            continue  # nothing after it confirms a repair
        next_ok = nxt is None or t.balance + nxt.amount == nxt.balance
        closing_ok = nxt is not None or t.balance == acct.closing_balance
        if next_ok and closing_ok and i > 0:
            fixed = t.balance - prev
            if _one_glyph_apart(t.amount, fixed):
                repairs.append(f"row {i + 1}: amount {money(t.amount)} read as {money(fixed)}")
                txs[i] = replace(t, amount=fixed)
                continue
        recomputed = prev + t.amount
        confirmed = (recomputed == acct.closing_balance if nxt is None
                     else recomputed + nxt.amount == nxt.balance)
        if confirmed and _one_glyph_apart(t.balance, recomputed):
            repairs.append(f"row {i + 1}: balance {money(t.balance)} read as {money(recomputed)}")
            txs[i] = replace(t, balance=recomputed)
    return repairs


def repair_ends(acct: Account, doubtful: Collection[str]) -> dict[str, str]:
    """Mend an opening or closing balance OCR read with little confidence (`doubtful` names
    which) when the printed running balance leaves it one possible value, one glyph from
    what was read: {figure: note} for each one mended, `acct` updated in place.

    Only when the rows agree among themselves on every printed balance, the first and the last
    row print theirs, and the other end agrees: then no other single figure changed makes the
    account reconcile (a row's figure would break its own row), except, for the opening, the
    first row's amount, so the opening is mended only when that amount cannot be one glyph off.
    """
    txs = acct.transactions
    if not txs or txs[0].balance is None or txs[-1].balance is None:
        return {}
    running = txs[0].balance
    for t in txs[1:]:
        running += t.amount
        if t.balance is not None and t.balance != running:
            return {}
    first, last = txs[0], txs[-1].balance
    opening_ok = acct.opening_balance + first.amount == first.balance
    closing_ok = last == acct.closing_balance
    if opening_ok and not closing_ok and "closing" in doubtful \
            and _one_glyph_apart(acct.closing_balance, last):
        note = f"closing balance {money(acct.closing_balance)} read as {money(last)}"
        acct.closing_balance = last
        return {"closing": note}
    fixed = first.balance - first.amount
    if closing_ok and not opening_ok and "opening" in doubtful \
            and _one_glyph_apart(acct.opening_balance, fixed) \
            and not _one_glyph_apart(first.amount, first.balance - acct.opening_balance):
        note = f"opening balance {money(acct.opening_balance)} read as {money(fixed)}"
        acct.opening_balance = fixed
        return {"opening": note}
    return {}


def _one_glyph_apart(a: Decimal, b: Decimal) -> bool:
    """True when two amounts differ in at most one digit or in sign only: an OCR slip."""
    x, y = money(abs(a)), money(abs(b))
    if x == y:
        return True
    if len(x) != len(y):
        return False
    return sum(1 for p, q in zip(x, y, strict=True) if p != q) == 1
