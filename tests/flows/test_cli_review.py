"""`stmtflow review` and `book export --include-unreviewed`, in-process on a real ledger."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from test_review_flow import imported, misprint

from flows.cli import main
from flows.config import Settings


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_reviews_are_listed_shown_and_decided_from_the_command_line(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fixed, other = misprint(tmp_path / "a", seed=51), misprint(tmp_path / "b", seed=52)
    imported(Settings.from_env(), fixed.pdf, other.pdf)

    code, out = run(capsys, "review", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and [(r["review_id"], r["state"]) for r in listed] == [(1, "open"),
                                                                           (2, "open")]
    assert {r["file"] for r in listed} == {fixed.pdf.name, other.pdf.name}
    first = next(r for r in listed if r["file"] == fixed.pdf.name)["review_id"]
    second = 3 - first

    code, out = run(capsys, "book", "export", "--include-unreviewed")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and {r["verified"] for r in rows} == {"False"}
    assert run(capsys, "book", "export")[1].strip() == ("txn_id,bank,account_last4,currency,date,"
                                                        "description,amount,balance,decision_id,"
                                                        "verified"), "held rows are left out"

    code, out = run(capsys, "review", "show", str(first))
    assert code == 0 and "DIFFERS" in out and f"decide: stmtflow review accept {first}" in out
    assert f"    1.{fixed.row:<3} " in out, "the misprinted row with both balances"

    code, out = run(capsys, "review", "accept", str(first), "--by", "ana")
    assert code == 1 and "does not reconcile" in out
    code, out = run(capsys, "review", "correct", str(first), "--set", f"{fixed.row}.amount=1.00",
                    "--by", "ana")
    assert code == 1 and "still does not reconcile" in out and "closing is" in out
    code, out = run(capsys, "review", "correct", str(first), "--set",
                    f"{fixed.row}.amount={fixed.amount}", "--by", "ana", "--json")
    done = json.loads(out)
    assert code == 0 and done["applied"] and done["state"] == "corrected"
    assert done["changes"][0]["new"] == fixed.amount and done["decided_by"] == "ana"

    monkeypatch.setenv("STMTFLOW_OPERATOR", "ops-desk")
    with pytest.raises(SystemExit):
        main(["review", "reject", str(second)])
    code, out = run(capsys, "review", "reject", str(second), "--note", "a duplicate scan")
    assert code == 0 and "rejected by ops-desk" in out

    assert run(capsys, "review", "list")[1].strip() == "no open reviews"
    code, out = run(capsys, "review", "list", "--all", "--json")
    assert {(r["review_id"], r["state"]) for r in json.loads(out)} == {
        (first, "corrected"), (second, "rejected")}
    code, out = run(capsys, "review", "show", str(first), "--json")
    shown = json.loads(out)
    assert shown["version_uri"] and [e["action"] for e in shown["history"]] == [
        "opened", "refused", "refused", "corrected"]
    code, out = run(capsys, "book", "export", "--include-unreviewed")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["verified"] for r in rows} == {"True"}
    assert len(rows) == len(fixed.truth["accounts"][0]["transactions"])


def test_an_unknown_review_is_a_one_line_error(stmtflow_home: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "accept", "7"]) == 2
    assert capsys.readouterr().err.strip() == "stmtflow: error: DecisionError: no review '7'"


def test_review_show_prints_descriptions_whole_but_for_own_account_numbers() -> None:
    from flows.cli.review import _format

    row = {"account": 1, "row": 3, "date": "2026-01-05", "amount": "-12.50",
           "printed_balance": None, "computed_balance": "87.50",
           "description": "TRANSFER TO 9876541234 REF 2025110400193",
           "notes": ["account 1 (****1234) row 3: balance 10000.00 but the running total is "
                     "10012.50"]}
    out = _format({"review_id": 3, "state": "open", "job_id": "j-1", "source": "a.pdf",
                   "input": "in", "output_uri": "out", "version_uri": None, "problems": [],
                   "endings": ["1234"], "accounts": [], "rows": [row], "history": []})
    assert "TRANSFER TO ****1234 REF 2025110400193" in out
    assert "running total is 10012.50" in out, "an amount is no account number"
