"""Banks are data: a template dropped in a directory is detected, parsed and checkable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import Sample
from parsers.api import parse_pdf
from parsers.template import TemplateError, load_template, load_templates

CEDAR = """
bank = "cedar"
name = "Cedar Valley Bank"
currency = "USD"
locale = "en"

[detect]
markers = ["CEDAR VALLEY BANK", "Money out", "Money in"]

[period]
pattern = 'Statement period (?P<start>\\d{2}/\\d{2}/\\d{4}) - (?P<end>\\d{2}/\\d{2}/\\d{4})'
date_format = "%d/%m/%Y"

[account]
last4 = 'Account number [\\d-]*-(?P<last4>\\d{4})$'
opening = '^Opening balance (?P<opening>{AMOUNT})$'
closing = '^Closing balance (?P<closing>{AMOUNT})$'

[table]
columns = [
  { label = "Date", role = "date" },
  { label = "Details", role = "description" },
  { label = "Money out", role = "debit" },
  { label = "Money in", role = "credit" },
  { label = "Balance", role = "balance" },
]
date_format = "%d/%m/%Y"
end = ['^Page \\d+$']
"""


@pytest.fixture
def cedar_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cedar.toml").write_text(CEDAR)
    monkeypatch.setenv("STMTFLOW_TEMPLATES", str(tmp_path))
    return tmp_path


def test_bank_defined_only_by_a_template_is_detected_and_parsed(
        cedar_dir: Path, corpus: list[Sample]) -> None:
    cedar = [s for s in corpus if s.bank == "cedar"][:6]
    assert "cedar" in {t.bank for t in load_templates()}
    for s in cedar:
        result = parse_pdf(s.pdf.read_bytes())
        expected = json.loads(s.truth.read_text())
        assert result.layout == "cedar"
        assert result.validation.ok
        assert result.statement.to_dict() == {**expected, "bank": "cedar"}


def test_templates_check_shows_what_a_template_extracted(
        cedar_dir: Path, corpus: list[Sample], capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli import main

    sample = next(s for s in corpus if s.bank == "cedar")
    assert main(["templates", "check", str(cedar_dir / "cedar.toml"), str(sample.pdf)]) == 0
    out = capsys.readouterr().out
    assert "markers 3/3 found" in out
    assert json.loads(out[out.index("{"):])["validation"]["ok"] is True


def test_templates_check_fails_for_the_wrong_sample(
        cedar_dir: Path, corpus: list[Sample], capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli import main

    other = next(s for s in corpus if s.bank == "northwind")
    assert main(["templates", "check", str(cedar_dir / "cedar.toml"), str(other.pdf)]) == 1
    assert "bank_mismatch" in capsys.readouterr().out


@pytest.mark.parametrize(("broken", "complaint"), [
    ('bank = "x"\n', "table"),
    (CEDAR.replace('role = "balance"', 'role = "saldo"'), "unknown role"),
    (CEDAR.replace('locale = "en"', 'locale = "fr"'), "unknown locale"),
    (CEDAR.replace("opening = ", "opening_x = "), "opening"),
])
def test_broken_template_names_its_fault(tmp_path: Path, broken: str, complaint: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(broken)
    with pytest.raises(TemplateError, match=complaint):
        load_template(path)
