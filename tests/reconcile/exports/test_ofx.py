"""ofxtools parses the OFX export: the right statements, accounts, amounts, dates and ids."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest
from ofxtools.models.bank.stmt import CCSTMTRS, STMTRS
from ofxtools.Parser import OFXTree

from reconcile.exports import ofx


def parsed(path: Path):  # type: ignore[no-untyped-def]
    tree = OFXTree()
    tree.parse(str(path))
    return tree.convert()


def midnight(day) -> datetime:  # type: ignore[no-untyped-def]
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def test_a_statement_per_account_and_a_card_statement_for_the_card(books,
                                                                     tmp_path: Path) -> None:
    path = tmp_path / "book.ofx"
    export = books.export()
    path.write_bytes(ofx.render(export))
    statements = parsed(path).statements
    kinds = {(type(s).__name__, s.account.acctid, s.curdef) for s in statements}
    assert kinds == {("CCSTMTRS" if k.bank == "harbor" else "STMTRS", k.last4,
                      export.currency(k)) for k in export.accounts()}
    for s in statements:
        if isinstance(s, STMTRS):
            assert (s.account.bankid, s.account.accttype) == (
                next(k.bank for k in export.accounts() if k.last4 == s.account.acctid),
                "CHECKING")
        else:
            assert isinstance(s, CCSTMTRS)


def test_amounts_dates_ids_and_ledger_balance_are_the_books(books, tmp_path: Path) -> None:
    path = tmp_path / "book.ofx"
    export = books.export()
    path.write_bytes(ofx.render(export))
    for s in parsed(path).statements:
        [key] = [k for k in export.accounts() if k.last4 == s.account.acctid]
        mine = export.transactions_of(key)
        assert [(t.fitid, t.dtposted, t.trnamt, t.trntype) for t in s.transactions] == [
            (t.txn_id, midnight(t.date), t.amount, "DEBIT" if t.amount < 0 else "CREDIT")
            for t in mine]
        latest = export.latest_balance(key)
        assert (s.balance.balamt, s.balance.dtasof) == (latest.closing_balance,
                                                        midnight(latest.period_end))
        start, end = export.span(key)
        assert (s.banktranlist.dtstart, s.banktranlist.dtend) == (midnight(start),
                                                                  midnight(end))


def test_long_and_markup_descriptions_fit_the_name_and_memo(books, tmp_path: Path) -> None:
    export = books.export()
    text = "MÜLLER & SÖHNE <GMBH> " + " ".join(["REFERENCE"] * 10)
    odd = dataclasses.replace(export.transactions[0], description=text)
    path = tmp_path / "odd.ofx"
    path.write_bytes(ofx.render(dataclasses.replace(
        export, transactions=[odd, *export.transactions[1:]])))
    [found] = [t for s in parsed(path).statements for t in s.transactions
               if t.fitid == odd.txn_id]
    assert found.name == text[:32].rstrip() and found.memo == text


def test_an_account_without_a_statement_balance_is_refused_by_name(books) -> None:
    export = books.export()
    with pytest.raises(ValueError, match=r"no statement balance for \w+ \*\*\*\*\d{4}"):
        ofx.render(dataclasses.replace(export, balances=[]))
