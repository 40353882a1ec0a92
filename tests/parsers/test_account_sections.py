"""Every account a statement shows becomes an account of the reading, or it is not validated.

Meridian draws several accounts, each after a line of its own (`Account No. XXXXXX1234`)
that starts its section. When OCR misreads that line (a look-alike glyph in the label, a
speck after the number), the section is not recognised: its lines fall before the first
section or into the account above. Such a reading must never validate with the other
accounts alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import draw_for
from corpus.banks import render_meridian_text
from corpus.variant import Variant
from parsers.generic import parse_generic
from parsers.layout.engine import run_template
from parsers.layout.outcome import ParseOutput
from parsers.layout.template import Template, load_templates
from parsers.limits import Limits
from parsers.model import Statement, mask_account
from parsers.pdf.lines import Line, page_lines
from parsers.pdf.pdfium_reader import PdfiumReader
from parsers.validate import validate
from tests.parsers.sheets import HEAD, HEADER, TEAL, lines, template

MISSED = "an account the statement shows was not read"
#: Statement 0 draws accounts with transactions; statement 5 draws two without any.
STATEMENTS = (0, 5)


def meridian() -> Template:
    return next(t for t in load_templates() if t.bank == "meridian")


def drawn(index: int) -> tuple[list[Line], Statement]:
    """The lines of a two-account Meridian statement as its text page prints them."""
    out = render_meridian_text(draw_for(index, random.Random(f"7:{index}"), True),
                               Variant(structure="two-accounts"))
    pages = PdfiumReader().read(out.pdf, Limits())
    return [ln for p in pages for ln in page_lines(p)], out.truth


def look_alike_label(ln: Line) -> Line:
    return replace(ln, words=[ln.words[0]._replace(text="Acc0unt"), *ln.words[1:]])


def speck_after_number(ln: Line) -> Line:
    last = ln.words[-1]
    return replace(ln, words=[*ln.words[:-1], last._replace(text=last.text + "'")])


def disturbed(found: list[Line], account: int, disturb: Callable[[Line], Line]) -> None:
    """`found` with the section line of `account` replaced by its `disturb`ed reading."""
    i = [k for k, ln in enumerate(found) if ln.text.startswith("Account No.")][account]
    found[i] = disturb(found[i])


@pytest.mark.parametrize("index", STATEMENTS)
def test_both_accounts_are_read_when_their_lines_are_read_right(index: int) -> None:
    found, truth = drawn(index)
    out = run_template(meridian(), found)
    assert len(truth.accounts) == 2
    assert out.statement.to_dict() == truth.to_dict()
    assert validate(out.statement, out.problems).ok


def misread(index: int, account: int, disturb: Callable[[Line], Line]
            ) -> tuple[ParseOutput, Statement]:
    found, truth = drawn(index)
    disturbed(found, account, disturb)
    return run_template(meridian(), found), truth


@pytest.mark.parametrize("index", STATEMENTS)
@pytest.mark.parametrize("disturb", [look_alike_label, speck_after_number])
def test_a_first_account_whose_line_is_misread_is_never_validated_without_it(
        index: int, disturb: Callable[[Line], Line]) -> None:
    """Its lines fall before the first section: its table is read by no account."""
    out, truth = misread(index, 0, disturb)
    assert [a.account_last4 for a in out.statement.accounts] == [truth.accounts[1].account_last4]
    assert not validate(out.statement, out.problems).ok
    assert any(MISSED in p for p in out.problems)


@pytest.mark.parametrize("disturb", [look_alike_label, speck_after_number])
def test_an_empty_account_whose_line_is_misread_is_never_validated_without_it(
        disturb: Callable[[Line], Line]) -> None:
    """Its balances fall into the account above, whose table lists nothing either."""
    out, truth = misread(5, 1, disturb)
    assert [a.account_last4 for a in out.statement.accounts] == [truth.accounts[0].account_last4]
    assert not validate(out.statement, out.problems).ok
    assert [p for p in out.problems if MISSED in p] == [
        f"account 1 ({mask_account(truth.accounts[0].account_last4)}): its section prints 2 "
        f"different {name} balances: {MISSED}" for name in ("opening", "closing")]


@pytest.mark.parametrize("disturb", [look_alike_label, speck_after_number])
def test_the_rows_of_an_account_whose_line_is_misread_do_not_reconcile_in_the_one_above(
        disturb: Callable[[Line], Line]) -> None:
    out, truth = misread(0, 1, disturb)
    assert len(out.statement.accounts[0].transactions) == sum(
        len(a.transactions) for a in truth.accounts)
    assert not validate(out.statement, out.problems).ok


@pytest.mark.parametrize("account", [0, 1])
@pytest.mark.parametrize("disturb", [look_alike_label, speck_after_number])
def test_the_generic_reader_reads_an_account_whose_line_is_misread(
        account: int, disturb: Callable[[Line], Line]) -> None:
    """Without a template the accounts are told apart by their own balances and tables."""
    found, truth = drawn(0)
    disturbed(found, account, disturb)
    out = parse_generic(found, lambda o: validate(o.statement, o.problems))
    assert out is not None
    assert out.statement.to_dict()["accounts"] == truth.to_dict()["accounts"]
    assert validate(out.statement, out.problems).ok


def test_a_second_opening_and_closing_balance_in_one_section_is_a_problem(
        tmp_path: Path) -> None:
    """Two empty accounts under a template without sections: the second one's figures."""
    summary = [(75, [(50, "Opening balance"), (-300, "$1,000.00")]),
               (88, [(50, "Closing balance"), (-300, "$1,000.00")]), (100, HEADER),
               (130, [(50, "Opening balance"), (-300, "$25.00")]),
               (143, [(50, "Closing balance"), (-300, "$25.00")]), (155, HEADER)]
    out = run_template(template(tmp_path, TEAL), lines(*HEAD, *summary))
    assert len(out.statement.accounts) == 1
    assert [p for p in out.problems if MISSED in p] == [
        "account 1 (****5678): its section prints 2 different opening balances: " + MISSED,
        "account 1 (****5678): its section prints 2 different closing balances: " + MISSED]
    assert not validate(out.statement, out.problems).ok


def test_a_repeated_balance_summary_is_one_account(tmp_path: Path) -> None:
    """The same figures printed twice (a summary repeated on a page) name one account."""
    summary = [(75, [(50, "Opening balance"), (-300, "$1,000.00")]),
               (88, [(50, "Closing balance"), (-300, "$1,000.00")]),
               (100, [(50, "Opening balance"), (-300, "$1,000.00")]),
               (113, [(50, "Closing balance"), (-300, "$1,000.00")]), (125, HEADER)]
    out = run_template(template(tmp_path, TEAL), lines(*HEAD, *summary))
    assert not [p for p in out.problems if MISSED in p]


def test_dated_rows_after_the_table_stopped_are_rows_no_account_holds(tmp_path: Path) -> None:
    """An end line stops the table; the rows under it belong to no table, and the closing
    balance taken from the last row read would agree without them."""
    rows = [(115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50"), (-560, "995.50")]),
            (128, [(50, "Interest rates may change")]),
            (141, [(50, "3 Feb"), (95, "BOOKS"), (-410, "5.00"), (-560, "990.50")])]
    opening = [(75, [(50, "Opening balance"), (-300, "$1,000.00")])]
    t = template(tmp_path, TEAL + "    end = ['^interest rates']\n")
    out = run_template(t, lines(*HEAD, *opening, (100, HEADER), *rows))
    assert len(out.statement.accounts[0].transactions) == 1
    assert [p for p in out.problems if "no account's table" in p] == [
        "page 1: a line dated '3 Feb' prints an amount, and no account's table read it"]
    assert not validate(out.statement, out.problems).ok
