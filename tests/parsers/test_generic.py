"""The generic reader: statements no template describes, read only when their numbers agree."""

from __future__ import annotations

import random
from datetime import date
from decimal import Decimal

import pytest

from corpus import statement
from corpus.banks import Printed
from corpus.lookalikes import LOOKALIKES
from corpus.truth import Draw
from parsers.api import parse_pdf
from parsers.errors import AmbiguousLayout, StatementError
from parsers.generic import parse_generic
from parsers.layout.outcome import ParseOutput
from parsers.model import Statement
from parsers.numbers import format_amount
from parsers.validate import Validation, validate
from tests.parsers.sheets import Cell, lines, misprinted

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


def test_a_line_of_words_between_rows_is_furniture_and_joins_no_description() -> None:
    spec = sheet(HEAD, [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")]])
    spec += lines((spec[-1].top + 40, [(DESC, "MEMO FAR BELOW")]),
                  (spec[-1].top + 54, [(DATE, "01/03"), (DESC, "SALARY"), (COL2, "30.00"),
                                       (BAL, "100.00")]))
    out = parse_generic(spec, check)
    assert out is not None and check(out).ok
    txs = out.statement.accounts[0].transactions
    assert [t.description for t in txs] == ["RENT", "SALARY"]
    assert out.readings[0].furniture == ["page 1: MEMO FAR BELOW"]


def test_a_figure_between_rows_that_no_row_took_sends_the_statement_to_review() -> None:
    spec = sheet(HEAD, [[(DATE, "12/20"), (DESC, "RENT"), (COL1, "30.00"), (BAL, "70.00")]])
    spec += lines((spec[-1].top + 40, [(DESC, "MEMO FAR BELOW"), (COL1, "12.00")]),
                  (spec[-1].top + 54, [(DATE, "01/03"), (DESC, "SALARY"), (COL2, "30.00"),
                                       (BAL, "100.00")]))
    out = parse_generic(spec, check)
    assert out is not None
    problems = check(out).problems
    assert problems and all("no row took it" in p for p in problems)


def test_a_statement_without_transactions() -> None:
    out = parse_generic(sheet(HEAD, []), check)
    assert out is not None and check(out).ok
    acct = out.statement.accounts[0]
    assert (acct.account_last4, acct.opening_balance, acct.transactions) == (
        "4321", Decimal("100.00"), [])


def test_a_statement_without_transactions_but_other_figures_is_not_read() -> None:
    head = [*HEAD, "Deposits and Additions: 25.00"]
    assert parse_generic(sheet(head, []), check) is None


def lookalike(bank: str, count: int) -> Printed:
    return LOOKALIKES[bank](Draw(random.Random(f"{bank}-{count}"), count, False, False))


def money_rows(st: Statement) -> list[tuple[date, Decimal]]:
    return [(t.date, t.amount) for a in st.accounts for t in a.transactions]


@pytest.mark.parametrize("count", [3, 45])
def test_a_dated_balance_brought_forward_is_no_transaction_and_dates_the_row_under_it(
        count: int) -> None:
    # Santander-like: `15th Dec Balance brought forward ... 428.15`, then rows of that day
    # without a date of their own; `Balance carried forward` closes the table.
    drawn = lookalike("santander-uk", count)
    result = parse_pdf(drawn.pdf, templates=[])
    assert result.layout == "generic"
    assert result.validation.ok, result.validation.problems
    assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
    assert result.readings[0].balance_rows_checked >= 2


@pytest.mark.parametrize("count", [3, 45])
def test_checks_dated_when_paid_and_daily_balances_without_templates(count: int) -> None:
    # Chase-like: deposits and withdrawals under headings, checks listed as number, mark,
    # date paid; a daily ending balance list; the period heads every page.
    drawn = lookalike("chase", count)
    result = parse_pdf(drawn.pdf, templates=[])
    assert result.layout == "generic"
    assert result.validation.ok, result.validation.problems
    assert money_rows(result.statement) == money_rows(drawn.truth)
    got, want = result.statement.accounts[0], drawn.truth.accounts[0]
    assert (got.opening_balance, got.closing_balance) == (want.opening_balance,
                                                          want.closing_balance)
    checks = [t for t in got.transactions if t.description.endswith("^")]
    assert len(checks) == sum(t.description == "^" for t in want.transactions)
    assert result.readings[0].balance_rows_checked > 0, "the daily balances were checked"


def test_a_daily_balance_that_disagrees_is_never_validated() -> None:
    drawn = lookalike("chase", 14)
    acct = drawn.truth.accounts[0]
    running, day_end = acct.opening_balance, {}
    for t in sorted(acct.transactions, key=lambda t: t.date):
        running += t.amount
        day_end[t.date] = running
    figure = format_amount(next(v for v in day_end.values()
                                if v not in (acct.opening_balance, acct.closing_balance)))
    wrong = figure[:-1] + ("1" if figure[-1] != "1" else "2")
    try:
        result = parse_pdf(misprinted(drawn.pdf, figure, wrong), templates=[])
    except StatementError:
        return
    assert not result.validation.ok


def test_an_opening_balance_with_a_slipped_decimal_mark_is_read_when_the_sums_prove_it(
        ) -> None:
    # Postbank-like: the opening balance printed `+ 6.259.91` where `+ 6.259,91` was meant.
    drawn = lookalike("postbank", 14)
    opening = format_amount(drawn.truth.accounts[0].opening_balance, "de")
    result = parse_pdf(misprinted(drawn.pdf, opening, opening.replace(",", ".")),
                       templates=[])
    assert result.layout == "generic"
    assert result.validation.ok, result.validation.problems
    assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
    assert "opening_balance" in result.readings[0].derived
    assert any("slipped decimal mark" in n for n in result.notes)


def test_a_slipped_figure_the_sums_do_not_prove_is_never_validated() -> None:
    drawn = lookalike("postbank", 14)
    opening = format_amount(drawn.truth.accounts[0].opening_balance, "de")
    wrong = opening.replace(",", ".")[:-1] + ("1" if opening[-1] != "1" else "2")
    try:
        result = parse_pdf(misprinted(drawn.pdf, opening, wrong), templates=[])
    except StatementError:
        return
    assert not result.validation.ok


def checking(paid: str) -> list:
    """Three pages whose header starts with the period: deposits, a checkbook form, then a
    check paid on `paid` (a lone `DATE` over `PAID`) and the daily ending balances."""
    def head(page: int) -> list:
        return lines((30, [(390, "July 1, 2026 through July 31, 2026")]),
                     (42, [(378, "Primary Account: 00004433214321")]), page=page)

    first = head(1) + lines(
        (70, [(36, "Beginning Balance"), (-384, "$100.00")]),
        (82, [(36, "Ending Balance"), (-384, "$130.00")]),
        (110, [(41, "DEPOSITS AND ADDITIONS")]),
        (122, [(41, "DATE"), (104, "DESCRIPTION"), (-540, "AMOUNT")]),
        (134, [(41, "07/02"), (104, "Deposit"), (-540, "50.00")]),
        (146, [(42, "Total Deposits and Additions"), (-540, "$50.00")]))
    form = head(2) + lines(
        (100, [(63, "1. Write in the Ending Balance shown on this statement:")]),
        (120, [(387, "Step 2 Total: $")]),
        (140, [(387, "Step 4 Total: - $")]), page=2)
    last = head(3) + lines(
        (80, [(39, "CHECKS PAID")]),
        (92, [(414, "DATE")]),
        (100, [(34, "CHECK NUMBER"), (129, "DESCRIPTION"), (414, "PAID"), (-540, "AMOUNT")]),
        (112, [(34, "4711"), (129, "^"), (414, paid), (-540, "20.00")]),
        (140, [(39, "DAILY ENDING BALANCE")]),
        (152, [(35, "DATE"), (212, "AMOUNT"), (371, "DATE"), (508, "AMOUNT")]),
        (164, [(35, "07/02"), (-243, "150.00"), (367, "07/14"), (-540, "130.00")]), page=3)
    return first + form + last


def test_a_page_of_other_text_between_table_pages_is_no_part_of_the_table() -> None:
    out = parse_generic(checking("07/14"), check)
    assert out is not None and check(out).ok, check(out).problems if out else None
    txs = out.statement.accounts[0].transactions
    assert [(t.date, t.amount, t.description) for t in txs] == [
        (date(2026, 7, 2), Decimal("50.00"), "Deposit"),
        (date(2026, 7, 14), Decimal("-20.00"), "4711 ^")]
    assert out.readings[0].balance_rows_checked == 2


def test_a_check_dated_against_the_daily_balances_is_never_validated() -> None:
    # Paid on 07/01 the check still totals right; the 07/02 day-end balance disagrees.
    out = parse_generic(checking("07/01"), check)
    assert out is not None
    assert any("daily balance of 2026-07-02" in p for p in check(out).problems)


def test_a_row_whose_printed_date_is_no_day_never_takes_the_day_above() -> None:
    # `12/45` has the form of the statement's dates and is no day: a damaged date, not a
    # row printed under the day above (which would validate with a wrong date)
    rows, balance = [], 100
    for letter, day in zip("ABCDEF", ["12/16", "12/17", "12/18", "12/45", "12/22", "12/23"],
                           strict=True):
        balance -= 10
        rows.append([(DATE, day), (DESC, f"TRANSFER {letter}"), (COL1, "10.00"),
                     (BAL, f"{balance}.00")])
    out = parse_generic(sheet([*HEAD[:3], "Closing Balance: 40.00"], rows), check)
    assert out is not None
    assert out.statement.accounts[0].transactions[3].date == date(2025, 12, 18)
    assert check(out).problems == ["account ****4321 row 4: '12/45' stands where its date "
                                   "does and is no date: the row's day is unknown"]


def test_a_statement_without_rows_validates_only_with_both_balances_printed() -> None:
    both = lines((40, [(DATE, "Account Number: ****4321")]),
                 (54, [(DATE, "Statement Period: 12/15/2025 - 01/14/2026")]),
                 (68, [(DATE, "Opening Balance: 100.00")]),
                 (82, [(DATE, "Closing Balance: 100.00")]))
    out = parse_generic(both, check)
    assert out is not None and check(out).ok
    assert out.statement.accounts[0].opening_balance == Decimal("100.00")
    # one balance alone proves nothing of rows that may be lost (text a damaged font garbled)
    assert parse_generic([ln for ln in both if "Opening" not in ln.text], check) is None
