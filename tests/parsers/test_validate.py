from __future__ import annotations

from datetime import date
from decimal import Decimal

from parsers.layout.hooks import card_summary
from parsers.model import Account, Statement, Transaction
from parsers.validate import repair_ends, repair_from_running_balance, validate

D = Decimal


def account(amounts: list[str], balances: list[str], opening: str = "100.00",
            closing: str | None = None) -> Account:
    txs = [Transaction(date(2026, 1, i + 1), f"row {i}", D(a), D(b))
           for i, (a, b) in enumerate(zip(amounts, balances, strict=True))]
    return Account("1234", "USD", D(opening), D(closing or balances[-1]), txs)


def statement(acct: Account) -> Statement:
    return Statement("x", [acct], date(2026, 1, 1), date(2026, 1, 31))


def test_reconciling_statement_validates() -> None:
    v = validate(statement(account(["-10.00", "5.50"], ["90.00", "95.50"])))
    assert v.ok and v.problems == []


def test_one_cent_off_is_never_validated() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="95.51")
    v = validate(statement(acct))
    assert not v.ok
    assert "closing is 95.51" in v.problems[0]


def test_date_outside_period_is_a_problem() -> None:
    acct = account(["-10.00"], ["90.00"])
    st = Statement("x", [acct], date(2026, 2, 1), date(2026, 2, 28))
    assert any("outside" in p for p in validate(st).problems)


def test_misread_amount_pinned_by_running_balance_is_repaired() -> None:
    acct = account(["-10.00", "8.50", "-1.00"], ["90.00", "95.50", "94.50"])  # 5.50 read as 8.50
    repairs = repair_from_running_balance(acct)
    assert repairs == ["row 2: amount 8.50 read as 5.50"]
    assert acct.transactions[1].amount == D("5.50")
    assert validate(statement(acct)).ok


def test_a_balance_ocr_could_not_read_costs_only_the_repairs_beside_it() -> None:
    # row 5's balance unread; row 2's 5.50 read as 8.50 is still pinned by rows 1-3
    acct = account(["-10.00", "8.50", "-1.00", "2.00", "-3.00", "1.00"],
                   ["90.00", "95.50", "94.50", "96.50", "93.50", "94.50"])
    acct.transactions[4] = Transaction(date(2026, 1, 5), "row 4", D("-3.00"), None)
    assert repair_from_running_balance(acct) == ["row 2: amount 8.50 read as 5.50"]
    assert validate(statement(acct)).ok
    # beside the unread balance, nothing confirms one: the misread stays for review
    acct = account(["-10.00", "5.50", "-1.00", "2.00", "-8.00", "1.00"],
                   ["90.00", "95.50", "94.50", "96.50", "93.50", "94.50"])
    acct.transactions[5] = Transaction(date(2026, 1, 6), "row 5", D("1.00"), None)
    assert repair_from_running_balance(acct) == []
    assert not validate(statement(acct)).ok


def test_misread_balance_confirmed_by_next_row_is_repaired() -> None:
    acct = account(["-10.00", "5.50", "-1.00"], ["90.00", "96.50", "94.50"])  # 95.50 as 96.50
    assert repair_from_running_balance(acct) == ["row 2: balance 96.50 read as 95.50"]
    assert validate(statement(acct)).ok


def test_two_unrelated_errors_are_not_guessed_away() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="999.00")
    acct.transactions[0] = Transaction(date(2026, 1, 1), "row 0", D("-70.00"), D("30.00"))
    repair_from_running_balance(acct)
    assert not validate(statement(acct)).ok


def test_card_summary_must_add_up() -> None:
    acct = Account("4821", "USD", D("-500.00"), D("-420.00"), [
        Transaction(date(2026, 1, 2), "PAYMENT THANK YOU", D("200.00")),
        Transaction(date(2026, 1, 3), "SHOP", D("-120.00")),
    ], summary={"payments": D("200.00"), "credits": D("0"), "purchases": D("120.00"),
                "fees": D("0"), "interest": D("0")})
    assert card_summary(acct) == []
    acct.summary["purchases"] = D("121.00")
    assert len(card_summary(acct)) == 2


def test_money_never_rounds_silently() -> None:
    import pytest

    from parsers.model import money

    assert money(D("-0.00")) == "0.00" and money(D("1234567.8")) == "1234567.80"
    with pytest.raises(ValueError):
        money(D("0.005"))


def test_misread_opening_is_never_repaired_into_the_first_amount() -> None:
    # 100.00 read as 180.00: 20.00 -> -60.00 is one glyph and a sign, and would then agree
    acct = account(["20.00", "-5.00"], ["120.00", "115.00"], opening="180.00")
    assert repair_from_running_balance(acct) == []
    assert not validate(statement(acct)).ok


def test_a_doubtful_closing_one_glyph_from_the_last_balance_is_repaired() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="35.50")  # 9 read as 3
    assert repair_ends(acct, {"closing"}) == {"closing": "closing balance 35.50 read as 95.50"}
    assert validate(statement(acct)).ok


def test_a_doubtful_opening_the_first_amount_cannot_explain_is_repaired() -> None:
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], opening="700.00")  # 1 read as 7
    assert repair_ends(acct, {"opening"}) == {"opening": "opening balance 700.00 read as 100.00"}
    assert validate(statement(acct)).ok


def test_an_end_is_not_repaired_unless_it_alone_can_explain_the_difference() -> None:
    def mended(acct: Account, doubtful: set[str]) -> dict[str, str]:
        before = (acct.opening_balance, acct.closing_balance)
        found = repair_ends(acct, doubtful)
        assert found or before == (acct.opening_balance, acct.closing_balance)
        return found

    # read confidently: the figure stands as printed
    assert mended(account(["-10.00", "5.50"], ["90.00", "95.50"], closing="35.50"), set()) == {}
    # two glyphs off: not an OCR slip
    assert mended(account(["-10.00", "5.50"], ["90.00", "95.50"], closing="35.20"),
                  {"closing"}) == {}
    # a row disagrees with the balances around it: the chain pins nothing
    assert mended(account(["-10.00", "7.50"], ["90.00", "95.50"], closing="35.50"),
                  {"closing"}) == {}
    # the other end disagrees too
    assert mended(account(["-10.00", "5.50"], ["90.00", "95.50"], opening="700.00",
                          closing="35.50"), {"opening", "closing"}) == {}
    # the first amount one glyph off would explain the opening as well (180.00 or -60.00)
    assert mended(account(["20.00", "-5.00"], ["120.00", "115.00"], opening="180.00"),
                  {"opening"}) == {}
    # no balance on the last row: its amount may be the misread figure
    acct = account(["-10.00", "5.50"], ["90.00", "95.50"], closing="35.50")
    acct.transactions[-1] = Transaction(date(2026, 1, 2), "row 1", D("5.50"))
    assert mended(acct, {"closing"}) == {}
