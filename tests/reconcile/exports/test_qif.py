"""quiffen reads the QIF export: an account per bank account, its opening balance first."""

from __future__ import annotations

from pathlib import Path

import quiffen
from overlap import document, generated, overlapping

from reconcile.book import Delivery
from reconcile.exports import qif


def test_accounts_types_and_opening_balances(books, tmp_path: Path) -> None:
    path = tmp_path / "book.qif"
    export = books.export()
    path.write_bytes(qif.render(export))
    accounts = quiffen.Qif.parse(str(path), day_first=False).accounts
    assert set(accounts) == {export.names.name(k) for k in export.accounts()}
    for key in export.accounts():
        name = export.names.name(key)
        [(kind, txns)] = accounts[name].transactions.items()
        assert kind.value == ("CCard" if key.bank == "harbor" else "Bank")
        opening, *rest = txns
        expected = export.opening(key)
        assert (opening.payee, opening.to_account, opening.amount, opening.date.date()) == (
            "Opening Balance", name, expected.amount, expected.date)
        assert [(t.date.date(), t.amount, t.payee, t.cleared) for t in rest] == [
            (t.date, t.amount, t.description, "*") for t in export.transactions_of(key)]


def test_unreviewed_transactions_are_not_cleared(books, tmp_path: Path) -> None:
    _, later = overlapping(generated("northwind", 40))
    books.book.consume(Delivery("j-flagged", "in-flagged", "out-flagged",
                                document(later, ok=False)))
    path = tmp_path / "book.qif"
    path.write_bytes(qif.render(books.export(include_unreviewed=True)))
    txns = [t for a in quiffen.Qif.parse(str(path)).accounts.values()
            for ts in a.transactions.values() for t in ts if t.memo]
    flagged = [t for t in txns if t.memo.endswith("(needs review)")]
    assert len(flagged) == len(later.accounts[0].transactions)
    assert all(t.cleared is None for t in flagged)
    assert all(t.cleared == "*" for t in txns if t not in flagged)
