"""The Beancount export passes bean-check, balance assertions included, and says what it is."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from beancount import loader
from beancount.core import data
from overlap import document, generated, overlapping
from readback import read_beancount

from reconcile.book import Delivery
from reconcile.exports import AccountNames, beancount

BEAN_CHECK = Path(sys.executable).parent / "bean-check"


def bean_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BEAN_CHECK), str(path)], capture_output=True, text=True,
                          check=False, timeout=120)


def test_bean_check_passes_with_an_assertion_per_statement(books, tmp_path: Path) -> None:
    path = tmp_path / "book.beancount"
    export = books.export()
    path.write_bytes(beancount.render(export))
    done = bean_check(path)
    assert done.returncode == 0, done.stdout + done.stderr
    entries, errors, _ = loader.load_file(str(path))
    assert errors == []
    asserted = {(e.date, e.account, e.amount.number) for e in entries
                if isinstance(e, data.Balance)}
    expected = {(b.period_end + timedelta(days=1), export.names.name(b.account),
                 b.closing_balance) for b in export.balances}
    assert asserted == expected and len(expected) == 2 * sum(
        len(st.accounts) for st in books.originals)


def test_a_missing_transaction_fails_the_next_balance_assertion(books, tmp_path: Path) -> None:
    export = books.export()
    path = tmp_path / "short.beancount"
    path.write_bytes(beancount.render(dataclasses.replace(
        export, transactions=[t for t in export.transactions if t != export.transactions[2]])))
    done = bean_check(path)
    assert done.returncode != 0
    assert "Balance failed" in done.stdout + done.stderr


def test_transactions_carry_id_source_job_and_an_uncategorised_counter_posting(
        books, tmp_path: Path) -> None:
    path = tmp_path / "book.beancount"
    path.write_bytes(beancount.render(books.export()))
    entries, _, _ = loader.load_file(str(path))
    txns = [e for e in entries if isinstance(e, data.Transaction) and "txn_id" in e.meta]
    assert all(e.flag == "*" and e.meta["source_job"].startswith("j-") for e in txns)
    for e in txns:
        bank, counter = e.postings
        assert counter.account == ("Expenses:Uncategorized" if bank.units.number < 0
                                   else "Income:Uncategorized")
        assert counter.units.number == -bank.units.number
    openings = [e for e in entries if isinstance(e, data.Transaction) and e.narration ==
                "Opening balance"]
    first = {(st.bank, a.account_last4): a.opening_balance
             for st in books.originals for a in st.accounts}
    assert sorted(e.postings[0].units.number for e in openings) == sorted(first.values())
    assert all(e.postings[1].account == "Equity:Opening-Balances" for e in openings)


def test_accounts_follow_the_mapping_and_cards_default_to_liabilities(
        books, tmp_path: Path) -> None:
    northwind = next(st for st in books.originals if st.bank == "northwind")
    last4 = northwind.accounts[0].account_last4
    mapping = tmp_path / "accounts.toml"
    mapping.write_text(f'[accounts]\n"northwind:{last4}" = "Assets:US:Northwind:Checking"\n')
    path = tmp_path / "book.beancount"
    path.write_bytes(beancount.render(books.export(
        names=AccountNames.load(mapping, card_banks={"harbor"}))))
    rows = read_beancount(path)
    accounts = {r.account.rsplit(":", 1)[0] for r in rows}
    assert accounts == {"Assets:US:Northwind", "Assets:Bluebird", "Liabilities:Harbor",
                        "Assets:Alpenbank"}
    assert bean_check(path).returncode == 0


def test_unreviewed_statement_is_left_out_unless_asked_and_then_flagged(
        books, tmp_path: Path) -> None:
    st = generated("northwind", 40)
    _, later = overlapping(st)
    books.book.consume(Delivery("j-flagged", "in-flagged", "out-flagged",
                                document(later, ok=False)))
    default = tmp_path / "default.beancount"
    default.write_bytes(beancount.render(books.export()))
    assert "j-flagged" not in default.read_text()
    asked = tmp_path / "asked.beancount"
    asked.write_bytes(beancount.render(books.export(include_unreviewed=True)))
    entries, errors, _ = loader.load_file(str(asked))
    assert errors == []
    flagged = [e for e in entries if getattr(e, "meta", {}).get("source_job") == "j-flagged"]
    assert flagged and all(isinstance(e, data.Transaction) and e.flag == "!" for e in flagged)


def test_quotes_and_backslashes_in_descriptions_survive(books, tmp_path: Path) -> None:
    export = books.export()
    odd = dataclasses.replace(export.transactions[0], description='PAY "ACME" C:\\ REF')
    path = tmp_path / "odd.beancount"
    path.write_bytes(beancount.render(dataclasses.replace(
        export, transactions=[odd, *export.transactions[1:]])))
    entries, errors, _ = loader.load_file(str(path))
    assert errors == []
    assert 'PAY "ACME" C:\\ REF' in {e.narration for e in entries
                                    if isinstance(e, data.Transaction)}
