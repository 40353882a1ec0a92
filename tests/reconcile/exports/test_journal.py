"""hledger reads the journal export, checks its balance assertions and agrees on balances."""

from __future__ import annotations

import dataclasses
import subprocess
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from readback import hledger_json, quantity

from parsers.model import money
from reconcile.exports import journal


def hledger(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real hledger binary (CI installs it; a missing binary fails the test)."""
    return subprocess.run(["hledger", "-f", str(path), *args], capture_output=True, text=True,
                          check=False, timeout=120)


def test_hledger_checks_the_journal_and_its_assertions(books, tmp_path: Path) -> None:
    path = tmp_path / "book.journal"
    export = books.export()
    path.write_bytes(journal.render(export))
    done = hledger(path, "check", "--strict")  # declared accounts and commodities too
    assert done.returncode == 0, done.stderr
    asserted = {(date.fromisoformat(t["tdate"]), p["paccount"],
                 quantity(p["pbalanceassertion"]["baamount"]["aquantity"]))
                for t in hledger_json(path) if t["tdescription"] == "Statement closing balance"
                for p in t["tpostings"]}
    assert asserted == {(b.period_end + timedelta(days=1), export.names.name(b.account),
                         b.closing_balance) for b in export.balances}


def test_hledger_ending_balance_is_the_latest_closing_balance(books, tmp_path: Path) -> None:
    path = tmp_path / "book.journal"
    export = books.export()
    path.write_bytes(journal.render(export))
    for key in export.accounts():
        name, latest = export.names.name(key), export.latest_balance(key)
        done = hledger(path, "balance", f"^{name}$", "-N", "--layout=bare", "-O", "csv")
        assert done.returncode == 0, done.stderr
        *_, row = done.stdout.strip().splitlines()
        amount = row.replace('"', "").split(",")[-1]
        assert Decimal(amount) == latest.closing_balance, (name, money(latest.closing_balance))


def test_a_missing_transaction_fails_an_assertion_in_hledger(books, tmp_path: Path) -> None:
    export = books.export()
    path = tmp_path / "short.journal"
    path.write_bytes(journal.render(dataclasses.replace(
        export, transactions=[t for t in export.transactions if t != export.transactions[2]])))
    done = hledger(path, "check")
    assert done.returncode != 0
    assert "balance assertion" in done.stderr.lower()


def test_semicolons_in_descriptions_do_not_become_comments(books, tmp_path: Path) -> None:
    export = books.export()
    odd = dataclasses.replace(export.transactions[0], description="RENT; FLAT 2")
    path = tmp_path / "odd.journal"
    path.write_bytes(journal.render(dataclasses.replace(
        export, transactions=[odd, *export.transactions[1:]])))
    [found] = [t for t in hledger_json(path) if dict(t["ttags"]).get("txn_id") == odd.txn_id]
    assert found["tdescription"] == "RENT, FLAT 2"
    assert dict(found["ttags"])["source_job"] == odd.decision_id
