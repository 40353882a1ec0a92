"""The generator: reproducible, plain unless asked, varied statements whose truth holds."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from corpus import BANKS, Sample, Variant, generate, statement


def truth(s: Sample) -> dict:
    return json.loads(s.truth.read_text())


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_seed_gives_the_same_files_byte_for_byte(tmp_path: Path) -> None:
    for run in ("a", "b"):
        generate(tmp_path / run, BANKS, 6, seed=41, varied=True)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    assert any(name.startswith("meridian") for name in files(tmp_path / "a"))


def test_statement_depends_on_seed_and_index_only(tmp_path: Path) -> None:
    """Statement 3 of a corpus of 4 is the same as statement 3 of a corpus of 9."""
    short = generate(tmp_path / "short", BANKS, 4, seed=5, varied=True)
    long = generate(tmp_path / "long", BANKS, 9, seed=5, varied=True)
    assert short[3].pdf.read_bytes() == long[3].pdf.read_bytes()
    assert short[3].variant == long[3].variant


def test_another_seed_varies_differently(tmp_path: Path) -> None:
    one = generate(tmp_path / "one", BANKS, 5, seed=1, varied=True)
    two = generate(tmp_path / "two", BANKS, 5, seed=2, varied=True)
    assert [s.variant for s in one] != [s.variant for s in two]


def test_plain_corpus_has_no_variant_files(tmp_path: Path) -> None:
    samples = generate(tmp_path, BANKS, 5, seed=3)
    assert all(s.variant == {} for s in samples)
    assert not list(tmp_path.glob("*.variant.json"))


def test_variant_file_names_the_kinds_and_knobs(tmp_path: Path) -> None:
    samples = generate(tmp_path, BANKS, 5, seed=3, varied=True)
    for s in samples:
        on_disk = json.loads(s.pdf.with_suffix("").with_suffix(".variant.json").read_text())
        assert on_disk == s.variant
        assert set(on_disk) == {"kinds", "knobs"}
    scan = next(s for s in samples if s.bank == "meridian")
    assert scan.variant["knobs"]["scan"]["dpi"] in (150, 200, 240, 300)
    assert any(k.startswith("scan:") for k in scan.variant["kinds"])


@pytest.mark.slow
def test_varied_truth_reconciles_and_running_balances_hold(varied: list[Sample]) -> None:
    for s in varied:
        for a in truth(s)["accounts"]:
            balance = Decimal(a["opening_balance"])
            for t in a["transactions"]:
                balance += Decimal(t["amount"])
                assert t["balance"] is None or Decimal(t["balance"]) == balance, s.pdf.name
            assert balance == Decimal(a["closing_balance"]), s.pdf.name


@pytest.mark.slow
def test_day_end_balances_leave_earlier_rows_of_a_day_without_balance(
        varied: list[Sample]) -> None:
    shown = [s for s in varied if "day-end-balance" in s.variant["kinds"]]
    assert shown
    for s in shown:
        for a in truth(s)["accounts"]:
            rows = a["transactions"]
            for i, t in enumerate(rows):
                last_of_day = i + 1 == len(rows) or rows[i + 1]["date"] != t["date"]
                assert (t["balance"] is not None) == last_of_day, s.pdf.name


@pytest.mark.slow
def test_split_sections_list_money_in_then_money_out_without_balances(
        varied: list[Sample]) -> None:
    shown = [s for s in varied if "split-sections" in s.variant["kinds"]]
    assert shown
    for s in shown:
        for a in truth(s)["accounts"]:
            signs = [Decimal(t["amount"]) > 0 for t in a["transactions"]]
            assert signs == sorted(signs, reverse=True), s.pdf.name
            assert all(t["balance"] is None for t in a["transactions"])


@pytest.mark.slow
def test_two_accounts_structure_puts_two_accounts_in_one_pdf(varied: list[Sample]) -> None:
    shown = [s for s in varied if "two-accounts" in s.variant["kinds"]]
    assert {s.bank for s in shown} >= {"northwind", "alpenbank", "meridian"}
    for s in shown:
        assert len(truth(s)["accounts"]) == 2, s.pdf.name


@pytest.mark.slow
def test_isolated_statements_show_one_variation_besides_scan_quality(
        varied: list[Sample]) -> None:
    alone = [s for s in varied if s.variant["knobs"]["isolated"]]
    assert len(alone) >= len(varied) // 5
    for s in alone:
        kinds = [k for k in s.variant["kinds"] if not k.startswith("scan:")]
        # page furniture is one variation, and so is a producer with its details
        groups = {k.split(":")[0].replace("fpdf2", "producer") for k in kinds}
        # a kind that needs a page break or two rows of a day may not reach the page at all
        assert len(groups) <= 1, (s.pdf.name, kinds)


def test_statement_draws_exactly_the_variant_given() -> None:
    plain = statement("bluebird", index=2)
    varied = statement("bluebird", Variant(case="upper", currency="after"), index=2)
    assert plain.truth == varied.truth
    assert plain.pdf != varied.pdf
    assert statement("bluebird", index=2).pdf == plain.pdf
