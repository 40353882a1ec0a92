"""Repairs from the running balance, as validation weighs them beside OCR's doubts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from parsers.api import _validate
from parsers.layout.outcome import AccountReading, ParseOutput
from parsers.model import Account, Statement, Transaction
from parsers.ocr.trust import Doubt

D = Decimal


def output(amounts: list[str], balances: list[str], doubts: list[Doubt],
           opening: str = "100.00", closing: str | None = None,
           doubtful: frozenset[str] = frozenset()) -> ParseOutput:
    txs = [Transaction(date(2026, 1, i + 1), f"row {i}", D(a), D(b))
           for i, (a, b) in enumerate(zip(amounts, balances, strict=True))]
    acct = Account("1234", "USD", D(opening), D(closing or balances[-1]), txs)
    reading = AccountReading(rows=len(txs), doubts=doubts, doubtful=set(doubtful))
    return ParseOutput(Statement("x", [acct], date(2026, 1, 1), date(2026, 1, 31)),
                       readings=[reading])


def test_a_doubtful_figure_repaired_from_confident_neighbours_validates() -> None:
    # 5.50 read as 8.50 with little confidence; every figure around it read confidently
    out = output(["-10.00", "8.50", "-1.00"], ["90.00", "95.50", "94.50"],
                 [Doubt(1, "amount", 56.0)])
    v = _validate(out, None, ocr=True)
    assert v.ok, v.problems
    assert v.repairs == ["row 2: amount 8.50 read as 5.50"]


def test_a_repair_beside_another_doubtful_figure_goes_to_a_person() -> None:
    out = output(["-10.00", "8.50", "-1.00"], ["90.00", "95.50", "94.50"],
                 [Doubt(1, "amount", 56.0), Doubt(0, "balance", 70.0)])
    v = _validate(out, None, ocr=True)
    assert not v.ok
    assert any("a figure was repaired" in p for p in v.problems)


def test_a_repaired_closing_pins_no_doubtful_figure() -> None:
    # the closing 95.50 read as 35.50: mended, yet the last balance it was mended from stays
    # doubtful, for nothing else vouches for it
    out = output(["-10.00", "5.50"], ["90.00", "95.50"], [Doubt(1, "balance", 60.0)],
                 closing="35.50", doubtful=frozenset({"closing"}))
    v = _validate(out, None, ocr=True)
    assert v.repairs == ["account 1: closing balance 35.50 read as 95.50"]
    assert not v.ok
    assert any("row 2: balance 95.50" in p and "does not pin it" in p for p in v.problems)
    clean = output(["-10.00", "5.50"], ["90.00", "95.50"], [], closing="35.50",
                   doubtful=frozenset({"closing"}))
    assert _validate(clean, None, ocr=True).ok
