"""`stmtflow templates check`: a template tried on a sample shows how every line was read."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from flows.cli import main
from parsers.exports.csvtemplate import load_csv_template
from tests.parsers.sheets import HEAD, HEADER, TEAL, pdf

ROWS = [(115, [(50, "2 Feb"), (95, "COFFEE HOUSE"), (-410, "4.50"), (-560, "995.50")]),
        (128, [(95, "123 MAIN ST")]),
        (141, [(50, "Continued on page 2")])]
SUMMARY = [(75, [(50, "Opening balance"), (-300, "$1,000.00")]),
           (88, [(50, "Closing balance"), (-300, "$995.50")])]
TRUTH = {"accounts": [{"account_last4": "5678", "currency": "USD",
                       "opening_balance": "1000.00", "closing_balance": "995.50",
                       "transactions": [{"date": "2026-02-02",
                                         "description": "COFFEE HOUSE 123 MAIN ST",
                                         "amount": "-4.50", "balance": "995.50"}]}]}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    toml = tmp_path / "teal.toml"
    toml.write_text(textwrap.dedent(TEAL))
    sample = tmp_path / "teal.pdf"
    sample.write_bytes(pdf([[*HEAD, *SUMMARY, (100, HEADER), *ROWS]]))
    return toml, sample


def test_check_shows_lines_header_spans_row_readings_and_figures(
        files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    toml, sample = files
    assert main(["templates", "check", str(toml), str(sample)]) == 0
    out = capsys.readouterr().out
    assert "identity found: Teal Savings Bank" in out and "markers 1/1 found" in out
    assert "header       Date Details Paid out Paid in Balance" in out
    assert "debit=Paid out@" in out and "balance=Balance@" in out
    assert "2026-02-02 'COFFEE HOUSE' balance 995.50, debit 4.50" in out
    assert "continuation 123 MAIN ST" in out
    assert "furniture    Continued on page 2" in out
    assert "opening: after 'Opening balance' on page 1" in out
    assert "result: validated, 1 transactions" in out


def test_check_compares_with_an_expected_statement(
        files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml, sample = files
    golden = tmp_path / "teal.json"
    golden.write_text(json.dumps(TRUTH))
    assert main(["templates", "check", str(toml), str(sample), "--expected", str(golden)]) == 0
    assert "matches" in capsys.readouterr().out
    TRUTH["accounts"][0]["transactions"][0]["amount"] = "-4.05"
    golden.write_text(json.dumps(TRUTH))
    assert main(["templates", "check", str(toml), str(sample), "--expected", str(golden)]) == 1
    assert "accounts[0].transactions[0].amount: got '-4.50', expected '-4.05'" in \
        capsys.readouterr().out


def test_check_shows_each_problem_with_the_text_of_its_row(
        tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    toml, _ = files
    sample = tmp_path / "bad.pdf"
    sample.write_bytes(pdf([[*HEAD, *SUMMARY, (100, HEADER),
                             (115, [(50, "2 Fob"), (95, "COFFEE"), (-410, "4.50"),
                                    (-560, "995.50")])]]))
    assert main(["templates", "check", str(toml), str(sample)]) == 1
    out = capsys.readouterr().out
    assert "unreadable date '2 Fob' in a table row: '2 Fob COFFEE 4.50 995.50'" in out
    assert "result: NEEDS REVIEW" in out


def test_check_shows_how_far_a_reading_got_when_it_stops(
        tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    toml, _ = files
    sample = tmp_path / "noopening.pdf"
    sample.write_bytes(pdf([[*HEAD, SUMMARY[1], (100, HEADER),
                             (115, [(50, "2 Feb"), (95, "COFFEE"), (-410, "4.50")])]]))
    assert main(["templates", "check", str(toml), str(sample)]) == 1
    out = capsys.readouterr().out
    assert "row          2 Feb COFFEE 4.50" in out
    assert "unreadable: recognised as teal: 'opening' not found" in out


def test_check_of_a_sample_of_another_bank_is_a_bank_mismatch(
        files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml, _ = files
    other = tmp_path / "other.pdf"
    other.write_bytes(pdf([[(30, [(50, "ACME BANK")]), *HEAD[1:], *SUMMARY, (100, HEADER)]]))
    assert main(["templates", "check", str(toml), str(other)]) == 1
    out = capsys.readouterr().out
    assert "identity NOT FOUND" in out and "bank_mismatch" in out


def test_a_broken_template_is_named_with_file_line_and_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], files: tuple[Path, Path]) -> None:
    _, sample = files
    toml = tmp_path / "broken.toml"
    text = textwrap.dedent(TEAL).replace('date_format = "%d %b"\n',
                                         'date_format = "%d %b"\ncary_date = true\n')
    toml.write_text(text)
    assert main(["templates", "check", str(toml), str(sample)]) == 2
    line = text.splitlines().index("cary_date = true") + 1
    assert f"{toml}:{line}:1: table.cary_date: unknown key" in capsys.readouterr().err


def test_suggest_prints_the_csv_template_a_bank_csv_reads_under(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = Path(__file__).parent.parent / "parsers" / "export_samples" / \
        "ing-umsatzanzeige.csv"
    assert main(["templates", "suggest", str(sample), "--bank", "ing"]) == 0
    printed = capsys.readouterr().out
    assert 'date_format = "%d.%m.%Y"' in printed and 'amount = "Betrag"' in printed
    kept = tmp_path / "ing.csv.toml"
    kept.write_text(printed)
    (header,) = [ln.split(";") for ln in sample.read_bytes().decode("latin-1").splitlines()
                 if ln.startswith("Buchung;")]
    assert load_csv_template(kept).matches(header)
    assert not load_csv_template(kept).matches(header[1:])
