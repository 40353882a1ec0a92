"""A Beancount user's import.py identifies and extracts statements through stmtflow."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import NamedTuple

import pytest
from beancount import loader
from beancount.core import data
from beancount.parser import parser, printer

from corpus import BAD_INPUTS, statement
from corpus.bank_exports import write_exports
from flows.beangulp_importer import StatementImporter
from flows.book_exports import account_names
from parsers.layout.template import BUILTIN_DIR, load_templates
from parsers.model import Statement, transaction_ids
from reconcile.book_records import AccountKey
from reconcile.exports import AccountNames

IMPORT_PY = """\
import beangulp
from flows.beangulp_importer import StatementImporter

importers = [StatementImporter(accounts={accounts!r})]
if __name__ == "__main__":
    beangulp.Ingest(importers)()
"""


class Downloads(NamedTuple):
    folder: Path
    truths: list[Statement]
    #: import.py with an importer whose mapping names one Bluebird account
    script: Path
    names: AccountNames


@pytest.fixture
def downloads(tmp_path: Path) -> Downloads:
    """Three generated statements (a card among them), a note and a truncated PDF."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    truths = []
    for i, bank in enumerate(("northwind", "harbor", "bluebird")):
        drawn = statement(bank, index=i, seed=0)
        pdf, truth = drawn.pdf, drawn.truth
        (folder / f"{bank}-{i}.pdf").write_bytes(pdf)
        truths.append(truth)
    _, truncate = BAD_INPUTS["truncated"]
    (folder / "broken.pdf").write_bytes(truncate(pdf))
    (folder / "notes.txt").write_text("not a statement\n")
    savings = next(st for st in truths if st.bank == "bluebird").accounts[0].account_last4
    mapping = tmp_path / "accounts.toml"
    mapping.write_text(f'[accounts]\n"bluebird:{savings}" = "Assets:Bluebird:Savings"\n')
    script = tmp_path / "import.py"
    script.write_text(IMPORT_PY.format(accounts=str(mapping)))
    return Downloads(folder, truths, script, account_names(mapping, load_templates()))


def ingest(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, check=False, timeout=600, cwd=script.parent)


def test_identify_claims_the_statements_and_nothing_else(downloads: Downloads) -> None:
    folder = downloads.folder
    done = ingest(downloads.script, "identify", str(folder))
    assert done.returncode == 0, done.stderr
    claimed = {line.split("/")[-1].split(" ")[0] for line in done.stdout.splitlines()
               if line.startswith("*") and "... OK" in line}
    assert claimed == {"northwind-0.pdf", "harbor-1.pdf", "bluebird-2.pdf"}


def test_extract_gives_transactions_with_ids_and_assertions_that_hold(
        downloads: Downloads, tmp_path: Path) -> None:
    truths = downloads.truths
    out = tmp_path / "extracted.beancount"
    done = ingest(downloads.script, "extract", str(downloads.folder), "-o", str(out))
    assert done.returncode == 0, done.stderr
    entries, errors, _ = parser.parse_file(str(out))
    assert errors == []
    txns = [e for e in entries if isinstance(e, data.Transaction)]
    assert sorted(e.meta["txn_id"] for e in txns) == sorted(
        i for st in truths for a in st.accounts for i in transaction_ids(st.bank, a))
    assert all(e.flag == "*" and len(e.postings) == 1 for e in txns)
    names = {e.postings[0].account for e in txns}
    assert {n.split(":")[0] for n in names if "Harbor" in n} == {"Liabilities"}
    assert "Assets:Bluebird:Savings" in names
    balances = {(e.date, e.amount.number) for e in entries if isinstance(e, data.Balance)}
    assert balances == {(st.period_end + timedelta(days=1), a.closing_balance)
                        for st in truths for a in st.accounts}
    assert _complete_and_check(entries, downloads) == []


def _complete_and_check(entries: list, downloads: Downloads) -> list[str]:
    """What a user does next: opening balances, a category per transaction; then the
    extracted balance assertions must hold in Beancount's own checks."""
    first = min(e.date for e in entries) - timedelta(days=1)
    text = [f"{first} open Equity:Opening-Balances\n", f"{first} open Expenses:Uncategorized\n"]
    for st in downloads.truths:
        for a in st.accounts:
            name = downloads.names.name(AccountKey(st.bank, a.account_last4))
            text.append(f"{first} open {name}\n")
            text.append(f'{first} * "Opening"\n  {name}  {a.opening_balance} {a.currency}\n'
                        "  Equity:Opening-Balances\n")
    for e in entries:
        if isinstance(e, data.Transaction):
            e = e._replace(postings=[*e.postings, data.Posting(
                "Expenses:Uncategorized", None, None, None, None, None)])
        text.append(printer.format_entry(e))
    _, errors, _ = loader.load_string("\n".join(text))
    return [err.message for err in errors]


def test_extract_against_the_ledger_marks_what_it_holds_as_duplicates(
        downloads: Downloads, tmp_path: Path) -> None:
    folder, script = str(downloads.folder), downloads.script
    first = tmp_path / "first.beancount"
    assert ingest(script, "extract", folder, "-o", str(first)).returncode == 0
    again = tmp_path / "again.beancount"
    done = ingest(script, "extract", folder, "-e", str(first), "-o", str(again))
    assert done.returncode == 0, done.stderr
    entries, errors, _ = parser.parse_file(str(again))
    assert errors == []
    assert [e for e in entries if isinstance(e, data.Transaction | data.Balance)] == []
    assert again.read_text().count("txn_id") == first.read_text().count("txn_id") > 0


def test_a_statement_that_does_not_validate_is_flagged_and_asserts_nothing(
        downloads: Downloads, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A template that swaps Northwind's columns reads every amount with the wrong sign:
    the statement no longer reconciles, and the importer must not present it as cleared."""
    folder = downloads.folder
    swapped = tmp_path / "templates"
    swapped.mkdir()
    text = (BUILTIN_DIR / "northwind.toml").read_text()
    (swapped / "northwind.toml").write_text(
        text.replace('role = "debit"', 'role = "CREDIT"').replace('role = "credit"',
                                                                  'role = "debit"')
        .replace('role = "CREDIT"', 'role = "credit"'))
    monkeypatch.setenv("STMTFLOW_TEMPLATES", str(swapped))
    pdf = folder / "northwind-0.pdf"
    importer = StatementImporter(bank="northwind")
    assert importer.identify(str(pdf))
    entries = importer.extract(str(pdf), [])
    assert entries and all(isinstance(e, data.Transaction) for e in entries)
    assert all(e.flag == "!" and e.meta["validation"] == "needs review" and e.meta["problems"]
               for e in entries)


def test_importing_the_importer_does_not_start_prefect() -> None:
    done = subprocess.run([sys.executable, "-c", (
        "import sys, flows.beangulp_importer; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'prefect'))")],
        capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"


def test_an_unknown_bank_is_refused_when_configured() -> None:
    with pytest.raises(ValueError, match="unknown bank 'nowhere'"):
        StatementImporter(bank="nowhere")


def test_an_ofx_export_is_claimed_and_keeps_its_suffix(tmp_path: Path) -> None:
    truth = statement("northwind", index=0, seed=0).truth
    (path,) = write_exports(truth, tmp_path / "download", ("ofx",))
    importer = StatementImporter()
    assert importer.identify(str(path))
    assert importer.filename(str(path)) == f"northwind-{truth.accounts[0].account_last4}.ofx"
