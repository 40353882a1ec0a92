"""The engine: figures outside the tables, derived balances, checks, sections, statements."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from parsers.api import parse_pdf
from parsers.errors import StatementError
from parsers.layout.engine import run_template
from parsers.layout.outcome import TemplateMismatch
from parsers.layout.template import Field, Template
from parsers.pdf.lines import Line
from parsers.validate import validate
from tests.parsers.sheets import HEAD, HEADER, TEAL, lines, pdf, template

D = Decimal
SUMMARY = [(75, [(50, "Opening balance"), (-300, "$1,000.00")]),
           (88, [(50, "Closing balance"), (-300, "$990.50")])]
ROWS = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
        (128, [(50, "3 Feb"), (95, "BOOKS"), (-410, "5.00"), (-560, "990.50")])]


@pytest.fixture
def teal(tmp_path: Path) -> Template:
    return template(tmp_path, TEAL)


def statement(*rows: tuple[float, list], head: list = HEAD, summary: list = SUMMARY,
              page: int = 1) -> list[Line]:
    return lines(*head, *summary, (100, HEADER), *rows, page=page)


def test_figures_outside_the_table_come_from_the_vocabulary(teal: Template) -> None:
    out = run_template(teal, statement(*ROWS))
    acct = out.statement.accounts[0]
    assert (acct.account_last4, acct.opening_balance, acct.closing_balance) == (
        "5678", D("1000.00"), D("990.50"))
    assert [t.amount for t in acct.transactions] == [D("-4.50"), D("-5.00")]
    assert validate(out.statement, out.problems).ok


def test_an_opening_balance_not_printed_is_derived_and_recorded(teal: Template) -> None:
    out = run_template(teal, statement(*ROWS, summary=SUMMARY[1:]))
    assert out.statement.accounts[0].opening_balance == D("1000.00")
    assert "opening_balance" in out.readings[0].derived
    assert any("opening_balance derived" in n for n in out.notes)
    assert "opening_balance" not in out.statement.to_dict()["accounts"][0] or \
        out.statement.to_dict()["accounts"][0]["opening_balance"] == "1000.00"


def test_without_an_opening_or_a_running_balance_the_statement_is_not_read(
        teal: Template) -> None:
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50")])]
    with pytest.raises(TemplateMismatch, match="'opening' not found"):
        run_template(teal, statement(*rows, summary=SUMMARY[1:]))


def test_balances_printed_at_day_end_are_checked_where_printed_and_null_elsewhere(
        teal: Template) -> None:
    rows = [(115, [(50, "2 Feb"), (95, "ONE"), (-410, "4.50")]),
            (128, [(50, "2 Feb"), (95, "TWO"), (-410, "5.00"), (-560, "990.50")])]
    out = run_template(teal, statement(*rows))
    txs = out.statement.accounts[0].transactions
    assert [t.balance for t in txs] == [None, D("990.50")]
    assert out.statement.to_dict()["accounts"][0]["transactions"][0]["balance"] is None
    assert out.readings[0].balances_printed == 1
    assert any("printed on 1 of 2 rows" in n for n in out.notes)
    assert validate(out.statement, out.problems).ok


def test_a_day_whose_last_row_has_no_balance_is_a_problem(teal: Template) -> None:
    rows = [(115, [(50, "2 Feb"), (95, "ONE"), (-410, "4.50"), (-560, "995.50")]),
            (128, [(50, "3 Feb"), (95, "TWO"), (-410, "5.00")])]
    out = run_template(teal, statement(*rows))
    assert any("last row of 2026-02-03 has no running balance" in p for p in out.problems)


def test_a_balance_row_that_disagrees_with_the_running_total_is_a_problem(
        teal: Template) -> None:
    good = run_template(teal, statement(
        *ROWS[:1], (121, [(95, "Balance carried forward"), (-560, "995.50")]), *ROWS[1:]))
    assert good.problems == [] and good.readings[0].balance_rows_checked == 1
    assert len(good.statement.accounts[0].transactions) == 2
    bad = run_template(teal, statement(
        *ROWS[:1], (121, [(95, "Balance carried forward"), (-560, "999.50")]), *ROWS[1:]))
    assert any("says 999.50, the running total there is 995.50" in p for p in bad.problems)


def test_a_misread_amount_costs_its_own_row_not_every_balance_row_after_it(
        teal: Template) -> None:
    # 4.50 read as 9.50: its row's balance disagrees; the balance rows after it agree with
    # the balances printed above them
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "9.50"), (-560, "995.50")]),
            (121, [(95, "Balance carried forward"), (-560, "995.50")]),
            (128, [(50, "3 Feb"), (95, "BOOKS"), (-410, "5.00"), (-560, "990.50")]),
            (134, [(95, "Balance carried forward"), (-560, "990.50")])]
    out = run_template(teal, statement(*rows))
    assert out.problems == [] and out.readings[0].balance_rows_checked == 2
    problems = validate(out.statement, out.problems).problems
    assert [p for p in problems if "row 1" in p] == [
        "account 1 (****5678) row 1: balance 995.50 but the running total is 990.50"]
    assert not any("balance row" in p for p in problems)


def test_a_regex_capturing_something_not_an_amount_is_a_template_error(
        teal: Template) -> None:
    broken = replace(teal, opening=Field(pattern=r"^Opening balance (?P<opening>\S+)"))
    with pytest.raises(StatementError) as info:
        run_template(broken, statement(*ROWS, summary=[
            (75, [(50, "Opening balance"), (-300, "see-page-2")]), SUMMARY[1]]))
    assert info.value.reason == "template_error"
    assert "'see-page-2'" in info.value.message and "Opening balance" in info.value.message


def test_a_balance_in_another_currency_is_a_problem(teal: Template) -> None:
    out = run_template(teal, statement(*ROWS, summary=[
        (75, [(50, "Opening balance"), (-300, "EUR 1,000.00")]), SUMMARY[1]]))
    assert not validate(out.statement, out.problems).ok


def test_accounts_start_at_section_lines_and_a_repeated_account_line_continues_one(
        tmp_path: Path) -> None:
    t = template(tmp_path, TEAL + "\n    [sections]\n    start = '^(?:current|savings) account'\n")
    one = [(75, [(50, "Current account 11-22-3333")]), *[(r[0] + 13, r[1]) for r in SUMMARY]]
    page1 = lines(*HEAD, *one, (113, HEADER), (128, ROWS[0][1]))
    page2 = lines((30, [(50, "Current account 11-22-3333")]), (45, HEADER), (60, ROWS[1][1]),
                  (90, [(50, "Savings account 44-55-6666")]),
                  (103, [(50, "Opening balance"), (-300, "$50.00")]),
                  (116, [(50, "Closing balance"), (-300, "$60.00")]), (130, HEADER),
                  (145, [(50, "9 Feb"), (95, "INTEREST"), (-480, "10.00"), (-560, "60.00")]),
                  page=2)
    out = run_template(t, [*page1, *page2])
    accounts = out.statement.accounts
    assert [(a.account_last4, len(a.transactions)) for a in accounts] == [("3333", 2),
                                                                         ("6666", 1)]
    assert validate(out.statement, out.problems).ok


def test_several_statements_in_one_file_take_their_own_period(tmp_path: Path) -> None:
    t = template(tmp_path, TEAL + "\n    [sections]\n    start = '^statement period'\n")
    jan = lines((45, [(50, "Statement period: 1 Jan 2026 to 31 Jan 2026")]),
                (60, [(50, "Account No. 12-34-5678")]), *SUMMARY[:1],
                (88, [(50, "Closing balance"), (-300, "$1,000.00")]), (100, HEADER),
                (115, [(50, "30 Jan"), (95, "A"), (-480, "1.00"), (-560, "1,001.00")]),
                (128, [(50, "31 Jan"), (95, "B"), (-410, "1.00"), (-560, "1,000.00")]))
    feb = statement(*ROWS, head=HEAD[1:], page=2)
    out = run_template(t, [*lines(HEAD[0]), *jan, *feb])
    jan_acct, feb_acct = out.statement.accounts
    assert (jan_acct.period_start.month, feb_acct.period_start.month) == (1, 2)
    assert jan_acct.transactions[0].date.month == 1
    assert validate(out.statement, out.problems).ok


def test_money_in_and_out_of_a_summary_are_checked_and_open_an_unprinted_balance(
        tmp_path: Path) -> None:
    t = template(tmp_path, TEAL + """
    [summary]
    money_in = ["Money in"]
    money_out = ["Money out"]
    """)
    totals = [(75, [(50, "Money in"), (-300, "$0.00")]), (88, [(50, "Money out"), (-300, "$9.50")]),
              (62, [(250, "Closing balance"), (-400, "$990.50")])]
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50")]),
            (128, [(50, "3 Feb"), (95, "BOOKS"), (-410, "5.00")])]
    out = run_template(t, statement(*rows, summary=totals))
    assert out.statement.accounts[0].opening_balance == D("1000.00")
    assert "summary" in out.readings[0].derived["opening_balance"]
    wrong = [(75, [(50, "Money in"), (-300, "$0.00")]), (88, [(50, "Money out"), (-300, "$9.00")]),
             (62, [(250, "Closing balance"), (-400, "$990.50")])]
    out = run_template(t, statement(*rows, summary=wrong))
    assert any("money out is 9.00, the transactions add up to 9.50" in p for p in out.problems)


def test_an_account_whose_table_lists_nothing_opens_at_its_closing_balance(
        teal: Template) -> None:
    out = run_template(teal, statement(summary=SUMMARY[1:]))
    acct = out.statement.accounts[0]
    assert acct.transactions == [] and acct.opening_balance == acct.closing_balance
    assert "no transaction" in out.readings[0].derived["opening_balance"]


def test_parse_result_shows_how_it_read_beside_the_normalised_statement(
        tmp_path: Path) -> None:
    (tmp_path / "teal.toml").write_text(TEAL.replace("\n    ", "\n"))
    from parsers.layout.template import load_templates

    data = pdf([[*HEAD, *SUMMARY[1:], (100, HEADER), *ROWS]])
    result = parse_pdf(data, templates=load_templates([tmp_path]))
    d = result.to_dict()
    assert result.layout == "teal" and result.validation.ok
    assert set(d) >= {"bank", "accounts", "validation", "reading"}
    assert "opening_balance" in d["reading"]["accounts"][0]["derived"]
    assert result.statement.to_dict() == {"bank": "teal", "accounts": d["accounts"]}


def test_a_label_without_a_readable_figure_is_named_in_the_refusal(teal: Template) -> None:
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50")])]
    with pytest.raises(TemplateMismatch) as info:
        run_template(teal, statement(*rows, summary=[
            (75, [(50, "Opening balance"), (-300, "£40,000,00")]), SUMMARY[1]]))
    assert "'opening' not found ('Opening balance' on page 1 is followed by '£40,000,00')" in \
        str(info.value)


def test_a_table_of_day_end_balances_is_checked_against_the_transactions(
        tmp_path: Path) -> None:
    no_balance = TEAL.replace('  { label = "Balance", role = "balance", optional = true },\n', '')
    t = template(tmp_path, no_balance + '[daily_balances]\nheadings = ["Daily balance"]\n')
    daily = [(160, [(50, "DAILY BALANCE")]), (173, [(50, "Date"), (120, "Balance")]),
             (186, [(50, "2 Feb"), (-200, "995.50"), (250, "3 Feb"), (-400, "990.50")])]
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50")]),
            (128, [(50, "3 Feb"), (95, "BOOKS"), (-410, "5.00")]), (150, [(50, "Total 9.50")])]
    good = run_template(t, statement(*rows, *daily))
    assert good.problems == [] and good.readings[0].balance_rows_checked == 2
    daily[2] = (186, [(50, "2 Feb"), (-200, "999.50"), (250, "3 Feb"), (-400, "990.50")])
    bad = run_template(t, statement(*rows, *daily))
    assert bad.problems == ["account 1 (****5678): the day-end balance of 2026-02-02 says 999.50, "
                            "the transactions up to that day give 995.50"]


@pytest.mark.parametrize(("low", "doubtful"), [
    ({"28": 40.0, "Feb": 40.0}, set()),  # a date beside a balance read confidently
    ({"$990.50": 60.0}, {"closing"}),
])
def test_only_a_balance_read_with_little_confidence_is_doubtful(
        teal: Template, low: dict[str, float], doubtful: set[str]) -> None:
    summary = [SUMMARY[0], (88, [(50, "Closing balance"), (200, "28 Feb"), (-300, "$990.50")])]
    scanned = [Line(ln.page, [w._replace(conf=low.get(w.text, 96.0)) for w in ln.words])
               for ln in statement(*ROWS, summary=summary)]
    out = run_template(teal, scanned)
    assert out.statement.accounts[0].closing_balance == D("990.50")
    assert out.readings[0].doubtful == doubtful
