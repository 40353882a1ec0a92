"""Per-figure trust: a low-confidence figure is trusted only where the running balance pins it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from parsers.model import Account, Transaction
from parsers.trust import Doubt, pinned, weigh

D = Decimal


def account(amounts: list[str], balances: list[str | None], opening: str = "100.00",
            closing: str = "94.50") -> Account:
    txs = [Transaction(date(2026, 1, i + 1), f"row {i}", D(a), D(b) if b else None)
           for i, (a, b) in enumerate(zip(amounts, balances, strict=True))]
    return Account("1234", "USD", D(opening), D(closing), txs)


def test_every_figure_of_an_unbroken_chain_is_pinned() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", "95.50", "94.50"])
    assert pinned(acct, True, True) == ({0, 1, 2}, {0, 1, 2})


def test_amounts_of_a_day_end_balance_are_not_pinned_one_by_one() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", None, "94.50"])
    amounts, balances = pinned(acct, True, True)
    assert amounts == {0} and balances == {0, 2}


def test_a_derived_opening_or_closing_pins_nothing_at_its_end() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="95.50")
    # the last balance stands alone (the closing is derived from it), so does the amount to it
    assert pinned(acct, False, False) == (set(), {0})


def test_an_account_that_does_not_reconcile_pins_nothing() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", "95.50", "94.50"], closing="94.60")
    assert pinned(acct, True, True) == (set(), set())


def test_weigh_trusts_pinned_doubts_and_says_why_others_go_to_review() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", None, "94.50"])
    problems, trusted = weigh(acct, [Doubt(0, "amount", 41.0), Doubt(1, "amount", 55.0)],
                              True, True, "account 1")
    assert trusted == ["account 1 row 1: amount -10.00 read by OCR with confidence 41, "
                       "trusted: the running balance pins it"]
    assert problems == ["account 1 row 2: amount 5.50 read by OCR with confidence 55, and the "
                        "running balance does not pin it: no balance is printed on its row"]
