"""`parse --explain`, `parse --json` and `templates suggest` on a statement no template knows:
a refusal says what the generic reader found and which figure disagrees."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from corpus import banks, generate
from flows.cli import main


def cedar(folder: Path, off: str = "0") -> Path:
    """A statement of a bank no template knows, its second row printed `off` from the amount
    its balances were drawn with (0: a true statement)."""
    real = banks.account

    def drawn(*args: Any, **kwargs: Any) -> Any:
        acct = real(*args, **kwargs)
        t = acct.transactions[1]
        acct.transactions[1] = replace(t, amount=t.amount + Decimal(off))
        return acct

    with pytest.MonkeyPatch.context() as m:
        m.setattr(banks, "account", drawn)
        [sample] = generate(folder, ("cedar",), 1, seed=23)
    return sample.pdf


def test_explain_of_a_refused_statement_names_what_was_found_and_what_disagrees(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = cedar(tmp_path, off="0.60")
    assert main(["parse", str(pdf), "--explain"]) == 1
    err = capsys.readouterr().err
    assert "unrecognised_layout" in err
    assert "table:" in err and "figure column(s)" in err  # the columns it found
    assert "period:" in err and "account 1: number ****" in err
    assert "+ transactions =" in err and "but closing is" in err  # the figure that disagrees


def test_a_refusals_json_carries_the_same_details(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = cedar(tmp_path, off="0.60")
    assert main(["parse", str(pdf), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["error"] == "unrecognised_layout"
    details = doc["details"]
    assert details["table"]["columns"] and details["table"]["rows"] > 0
    assert details["accounts"][0]["number"].startswith("****")
    assert any("but closing is" in r for r in details["readings"])


def test_explain_of_a_read_statement_says_how_it_was_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = cedar(tmp_path)
    assert main(["parse", str(pdf), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "validated" in out
    assert "table: generic reading" in out and "columns " in out
    assert "account 1:" in out


def test_suggest_on_a_refused_statement_shows_what_was_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = cedar(tmp_path, off="0.60")
    assert main(["templates", "suggest", str(pdf)]) == 1
    out = capsys.readouterr().out
    assert "what the generic reader found:" in out
    assert "figure column(s)" in out and "but closing is" in out
