"""The generic reader: statements no template describes, read only when their numbers agree."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from corpus import statement
from parsers.api import parse_pdf
from parsers.engine import ParseOutput
from parsers.errors import AmbiguousLayout
from parsers.generic import parse_generic
from parsers.validate import Validation, validate
from tests.parsers.sheets import Cell, lines

DATE, DESC, COL1, COL2, BAL = 50.0, 100.0, -400.0, -480.0, -560.0


def check(out: ParseOutput) -> Validation:
    return validate(out.statement, out.problems)


def sheet(head: list[str], rows: list[list[Cell]]) -> list:
    """A one-page statement: header lines, a column header, then the rows, 14 pt apart."""
    top = 40.0
    spec: list[tuple[float, list[Cell]]] = []
    for text in head:
        spec.append((top, [(DATE, text)]))
        top += 14
    spec.append((top, [(DATE, "Date"), (DESC, "Description"), (-400, "Out"), (-480, "In"),
                       (-560, "Balance")]))
    for cells in rows:
        top += 14
        spec.append((top, cells))
    return lines(*spec)


HEAD = ["Account Number: ****4321", "Statement Period: 12/15/2025 - 01/14/2026",
        "Opening Balance: 100.00", "Closing Balance: 100.00"]


@pytest.mark.parametrize("bank", ["northwind", "bluebird", "harbor", "alpenbank"])
def test_generated_statements_read_without_templates(bank: str) -> None:
    drawn = statement(bank, index=3, seed=11)
    result = parse_pdf(drawn.pdf, templates=[])
    assert result.layout == "generic"
    assert result.validation.ok, result.validation.problems
    assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
    table = result.reading()["table"]
    assert table["layout"] == "generic" and table["columns"]


def test_two_readings_that_reconcile_differently_are_refused() -> None:
    rows = [[(DATE, "12/20"), (DESC, "TRANSFER A"), (COL1, "10.00")],
            [(DATE, "12/22"), (DESC, "TRANSFER B"), (COL2, "10.00")]]
    with pytest.raises(AmbiguousLayout) as exc:
        parse_generic(sheet(HEAD, rows), check)
    assert exc.value.reason == "ambiguous_layout"


def test_a_reading_that_only_totals_right_is_never_accepted() -> None:
    # Out and in swapped still give opening + sum = closing (30 out, 30 in), but the
    # running balance agrees with one reading only.
    rows = [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")],
            [(DATE, "01/03"), (DESC, "REFUND"), (COL2, "30.00"), (BAL, "100.00")]]
    out = parse_generic(sheet(HEAD, rows), check)
    assert out is not None and check(out).ok
    amounts = [t.amount for t in out.statement.accounts[0].transactions]
    assert amounts == [Decimal("-30.00"), Decimal("30.00")]
    assert [c["role"] for c in out.how["columns"]] == ["debit", "credit", "balance"]


def test_a_running_balance_that_disagrees_is_never_validated() -> None:
    rows = [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")],
            [(DATE, "01/03"), (DESC, "REFUND"), (COL2, "30.00"), (BAL, "99.00")]]
    out = parse_generic(sheet(HEAD, rows), check)
    assert out is None or not check(out).ok


def test_yearless_dates_cross_the_year_and_furniture_is_no_row() -> None:
    rows = [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")],
            [(DESC, "Member FDIC")],
            [(DATE, "12/31"), (DESC, "COFFEE"), (COL1, "5.00"), (BAL, "65.00")],
            [(DESC, "Continued on page 2")],
            [(DATE, "01/03"), (DESC, "SALARY"), (COL2, "35.00"), (BAL, "100.00")]]
    out = parse_generic(sheet(HEAD, rows), check)
    assert out is not None and check(out).ok
    txs = out.statement.accounts[0].transactions
    assert [t.date for t in txs] == [date(2025, 12, 20), date(2025, 12, 31), date(2026, 1, 3)]
    assert [t.description for t in txs] == ["RENT", "COFFEE", "SALARY"]


def test_derived_opening_is_recorded() -> None:
    head = ["Account Number: ****4321", "Statement Period: 12/15/2025 - 01/14/2026"]
    rows = [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")],
            [(DATE, "01/03"), (DESC, "SALARY"), (COL2, "35.00"), (BAL, "105.00")]]
    out = parse_generic(sheet(head, rows), check)
    assert out is not None and check(out).ok
    acct = out.statement.accounts[0]
    assert (acct.opening_balance, acct.closing_balance) == (Decimal("100.00"), Decimal("105.00"))
    assert "opening_balance" in out.readings[0].derived


def test_a_line_lost_between_rows_sends_the_statement_to_review() -> None:
    spec = sheet(HEAD, [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")]])
    spec += lines((spec[-1].top + 40, [(DESC, "MEMO FAR BELOW")]),
                  (spec[-1].top + 54, [(DATE, "01/03"), (DESC, "SALARY"), (COL2, "30.00"),
                                       (BAL, "100.00")]))
    out = parse_generic(spec, check)
    assert out is not None
    problems = check(out).problems
    assert problems and all("not read" in p for p in problems)


def test_a_statement_without_transactions() -> None:
    out = parse_generic(sheet(HEAD, []), check)
    assert out is not None and check(out).ok
    acct = out.statement.accounts[0]
    assert (acct.account_last4, acct.opening_balance, acct.transactions) == (
        "4321", Decimal("100.00"), [])


def test_a_statement_without_transactions_but_other_figures_is_not_read() -> None:
    head = [*HEAD, "Deposits and Additions: 25.00"]
    assert parse_generic(sheet(head, []), check) is None
