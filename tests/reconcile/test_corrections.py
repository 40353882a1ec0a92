"""Corrections are read strictly, applied with their old values, and checked by validation."""

from __future__ import annotations

import pytest

from reconcile.corrections import (
    Change,
    CorrectionError,
    apply_changes,
    endings_of,
    evidence,
    for_reviewer,
    make_change,
    parse_change,
    problems,
)


def doc(*rows: tuple[str, str | None], opening: str = "100.00", closing: str = "70.00") -> dict:
    """One account; rows are (amount, printed balance) on consecutive January days."""
    return {"bank": "northwind", "accounts": [{
        "account_last4": "1234", "currency": "USD", "opening_balance": opening,
        "closing_balance": closing,
        "transactions": [{"date": f"2026-01-{n:02d}", "description": f"ROW {n}", "amount": a,
                          "balance": b} for n, (a, b) in enumerate(rows, start=1)]}]}


#: the second amount was misread: -25.00 printed where the balances say -20.00
MISREAD = doc(("-10.00", "90.00"), ("-25.00", "70.00"))


@pytest.mark.parametrize(("text", "change"), [
    ("3.amount=-12.50", Change(1, 3, "amount", "-12.50")),
    ("account2.3.balance=100.00", Change(2, 3, "balance", "100.00")),
    ("account1.closing_balance=1,342.55", Change(1, None, "closing_balance", "1,342.55")),
    ("2.description=COFFEE = TEA", Change(1, 2, "description", "COFFEE = TEA")),
    ("9.balance=none", Change(1, 9, "balance", "none")),
    ("drop 4", Change(1, 4, "drop", None)),
    (" drop account2.1 ", Change(2, 1, "drop", None)),
])
def test_corrections_are_read_from_their_written_form(text: str, change: Change) -> None:
    assert parse_change(text) == change


@pytest.mark.parametrize(("text", "why"), [
    ("3.amount", "TARGET=VALUE"),
    ("3.colour=red", "row field"),
    ("account1.balance=1.00", "account field"),
    ("0.amount=1.00", "numbered from 1"),
    ("3.amount=12.505", "whole cents"),
    ("3.amount=1.234,56", "whole cents"),
    ("3.date=05/01/2026", "YYYY-MM-DD"),
    ("3.description=", "cannot be empty"),
    ("drop account1.closing_balance", "account field"),
    ("drop 3.amount", "drop takes a row"),
])
def test_unreadable_corrections_are_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(CorrectionError, match=why):
        parse_change(text)


def test_misread_amount_corrected_then_reconciles_with_old_and_new_values() -> None:
    assert problems(MISREAD)
    fixed, applied = apply_changes(MISREAD, [parse_change("2.amount=-20.00")])
    assert problems(fixed) == []
    assert [a.to_dict() for a in applied] == [
        {"target": "account1.2.amount", "old": "-25.00", "new": "-20.00"}]
    assert MISREAD["accounts"][0]["transactions"][1]["amount"] == "-25.00", "copy, not in place"


def test_a_wrong_correction_leaves_the_statement_unreconciled() -> None:
    fixed, _ = apply_changes(MISREAD, [parse_change("2.amount=-2.00")])
    found = problems(fixed)
    assert any("closing is 70.00" in p for p in found)
    assert any("row 2: balance 70.00 but the running total is 88.00" in p for p in found)


def test_dropped_rows_are_numbered_as_under_review() -> None:
    st = doc(("0.00", "100.00"), ("-10.00", "90.00"), ("-20.00", "70.00"))
    fixed, applied = apply_changes(st, [parse_change("drop 1"), parse_change("3.amount=-20.00")])
    assert [t["description"] for t in fixed["accounts"][0]["transactions"]] == ["ROW 2", "ROW 3"]
    assert applied[0].old == "2026-01-01 ROW 1 0.00 100.00" and applied[0].new is None
    assert problems(fixed) == []


def test_corrections_outside_the_statement_are_refused() -> None:
    with pytest.raises(CorrectionError, match="has 2 rows"):
        apply_changes(MISREAD, [parse_change("3.amount=1.00")])
    with pytest.raises(CorrectionError, match="1 account"):
        apply_changes(MISREAD, [parse_change("account2.closing_balance=1.00")])
    with pytest.raises(CorrectionError, match="no correction"):
        apply_changes(MISREAD, [])


def test_a_missing_balance_can_be_set_and_removed() -> None:
    st = doc(("-10.00", None), ("-20.00", "70.00"))
    fixed, applied = apply_changes(st, [parse_change("1.balance=90.00")])
    assert applied[0].old is None and fixed["accounts"][0]["transactions"][0]["balance"] == "90.00"
    back, _ = apply_changes(fixed, [parse_change("1.balance=none")])
    assert back["accounts"][0]["transactions"][0]["balance"] is None


def test_evidence_names_rows_by_number_date_and_arithmetic() -> None:
    found = ["account 1 (****1234) row 2: balance 70.00 but the running total is 65.00",
             "2026-01-01: OCR read a word of this row with confidence 62 (below 90)"]
    accounts, rows = evidence(MISREAD, found)
    assert [(a.opening, a.total, a.computed_closing, a.printed_closing, a.reconciles)
            for a in accounts] == [("100.00", "-35.00", "65.00", "70.00", False)]
    assert [(r.row, r.amount, r.printed_balance, r.computed_balance) for r in rows] == [
        (1, "-10.00", "90.00", "90.00"), (2, "-25.00", "70.00", "65.00")]
    assert rows[0].notes == (found[1],)
    assert rows[1].notes == (found[0],)
    _, unnamed = evidence(MISREAD, [])
    assert [(r.row, r.notes) for r in unnamed] == [(2, ("printed balance 70.00, computed 65.00",))]


def test_a_row_is_named_in_evidence_as_a_correction_names_it() -> None:
    from reconcile.corrections import parse_change, row_ref

    assert (row_ref(1, 3), row_ref(2, 3)) == ("3", "account2.3")
    for account, row in ((1, 3), (2, 3)):
        change = parse_change(f"{row_ref(account, row)}.amount=1.00")
        assert (change.account, change.row) == (account, row)


def test_a_change_given_field_by_field_is_read_as_its_written_form() -> None:
    assert make_change(1, 3, "amount", "-12.50") == parse_change("3.amount=-12.50")
    assert make_change(2, None, "closing_balance", "1.00") == parse_change(
        "account2.closing_balance=1.00")
    assert make_change(1, 4, "drop", "") == parse_change("drop 4")
    with pytest.raises(CorrectionError, match="row field"):
        make_change(1, 3, "opening_balance", "1.00")


WITH_NUMBERS = doc(("-30.00", "70.00"))
WITH_NUMBERS["accounts"][0]["transactions"][0]["description"] = \
    "TRANSFER TO 9876541234 REF 2025110400193"


def test_a_reviewer_sees_the_description_whole_but_for_the_statements_own_account() -> None:
    text = WITH_NUMBERS["accounts"][0]["transactions"][0]["description"]
    assert for_reviewer(text, endings_of(WITH_NUMBERS)) == \
        "TRANSFER TO ****1234 REF 2025110400193"
    _, [applied] = apply_changes(WITH_NUMBERS, [parse_change(
        "1.description=TRANSFER TO ****1234 REF 2025110400198")])
    assert applied.new == "TRANSFER TO 9876541234 REF 2025110400198", "the number as read"


@pytest.mark.parametrize("short", ["TRANSFER TO ****1234", "transfer to 9876541234 REF"])
def test_a_description_cut_short_is_refused_with_the_reason(short: str) -> None:
    with pytest.raises(CorrectionError, match=r"cut short .*leaves out .*give it whole"):
        apply_changes(WITH_NUMBERS, [parse_change(f"1.description={short}")])
    trailing = dict(WITH_NUMBERS, accounts=[{**WITH_NUMBERS["accounts"][0], "transactions": [
        {**WITH_NUMBERS["accounts"][0]["transactions"][0], "description": "COFFEE HOUSE ~|"}]}])
    _, [applied] = apply_changes(trailing, [parse_change("1.description=COFFEE HOUSE")])
    assert applied.new == "COFFEE HOUSE", "stray marks after the words may go"
