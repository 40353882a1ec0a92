"""Banks are data: a template dropped in a directory is detected, parsed and checkable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import Sample
from parsers.api import parse_pdf
from parsers.layout.template import (
    TemplateError,
    header_words,
    load_template,
    load_templates,
    template_dirs,
)

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
    templates = load_templates(template_dirs([cedar_dir]))
    assert "cedar" in {t.bank for t in templates}
    for s in cedar:
        result = parse_pdf(s.pdf.read_bytes(), templates=templates)
        expected = json.loads(s.truth.read_text())
        assert result.layout == "cedar"
        assert result.validation.ok
        assert result.statement.to_dict() == {**expected, "bank": "cedar"}


@pytest.mark.parametrize(("broken", "complaint"), [
    ('bank = "x"\n', "table"),
    (CEDAR.replace('role = "balance"', 'role = "saldo"'), "unknown role"),
    (CEDAR.replace('locale = "en"', 'locale = "xx"'), "unknown locale"),
    (CEDAR.replace("opening = ", "opening_x = "), "opening"),
])
def test_broken_template_names_its_fault(tmp_path: Path, broken: str, complaint: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(broken)
    with pytest.raises(TemplateError, match=complaint):
        load_template(path)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), start=1) if needle in ln)


@pytest.mark.parametrize(("edit", "needle", "key", "complaint"), [
    (("date_format = \"%d/%m/%Y\"\nend", "colums = 1\ndate_format = \"%d/%m/%Y\"\nend"),
     "colums", "table.colums", "unknown key"),
    (("markers = [", "min_scor = 1\nmarkers = ["), "min_scor", "detect.min_scor", "unknown key"),
    (("opening = '^Opening balance (?P<opening>{AMOUNT})$'",
      "opening = '^Opening balance (?P<opening>{AMOUNT}$'"),
     "opening = ", "account.opening", "bad regex"),
    (("opening = '^Opening balance (?P<opening>{AMOUNT})$'", "opening = '^Opening balance'"),
     "opening = ", "account.opening", "needs a group"),
    (('currency = "USD"', 'currency = "USD"\nhooks = ["card_sumary"]'),
     "hooks", "hooks", "unknown hook 'card_sumary'"),
    (('markers = ["CEDAR VALLEY BANK", "Money out", "Money in"]', 'markers = "CEDAR"'),
     "markers", "detect.markers", "must be a list of strings"),
    (('{ label = "Balance", role = "balance" }', '{ label = "Balance", role = "saldo" }'),
     "saldo", "table.columns[4].role", "unknown role"),
    (('date_format = "%d/%m/%Y"\nend', 'date_format = ["%d/%m/%Y", "%m/%d/%Y"]\nend'),
     "%m/%d/%Y", "table.date_format", "read '04/03/2026' as different dates"),
    (('date_format = "%d/%m/%Y"\nend', 'date_format = "%d/%m/%Y %H"\nend'),
     "%H", "table.date_format", "not supported"),
])
def test_a_template_fault_names_file_line_and_key(tmp_path: Path, edit: tuple[str, str],
                                                  needle: str, key: str, complaint: str) -> None:
    old, new = edit
    assert old in CEDAR
    text = CEDAR.replace(old, new)
    path = tmp_path / "cedar.toml"
    path.write_text(text)
    with pytest.raises(TemplateError) as info:
        load_template(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{_line_of(text, needle)}:"), message
    assert f": {key}: " in message and complaint in message


def test_a_bad_regex_names_where_in_the_pattern(tmp_path: Path) -> None:
    path = tmp_path / "cedar.toml"
    path.write_text(CEDAR.replace("[\\d-]*-(?P<last4>", "[\\d-*-(?P<last4>"))
    with pytest.raises(TemplateError, match=r"account\.last4: bad regex .* at position \d+"):
        load_template(path)


def test_labels_are_a_list_and_a_regex_is_a_string(tmp_path: Path) -> None:
    path = tmp_path / "cedar.toml"
    path.write_text(CEDAR.replace("opening = '^Opening balance (?P<opening>{AMOUNT})$'",
                                  'opening = ["Opening balance", "Balance brought forward"]'))
    t = load_template(path)
    assert t.opening.labels == ("Opening balance", "Balance brought forward")
    assert t.opening.pattern is None and t.closing.pattern is not None


def test_a_template_without_identity_is_identified_by_its_name(tmp_path: Path) -> None:
    path = tmp_path / "cedar.toml"
    path.write_text(CEDAR)
    assert load_template(path).identity == ("Cedar Valley Bank",)


@pytest.mark.parametrize(("printed", "words"), [
    ("Money In (£)", ["money", "in"]),
    ("Date/Valeur", ["datevaleur"]),
    ("Ref. #", ["ref", "#"]),
    ("Amount_USD\tBalance", ["amount_usd", "balance"]),
    ("Débit (€)", ["debit"]),
    ("BUCHUNGS-TAG  Wert.", ["buchungstag", "wert"]),
])
def test_header_words_are_folded_without_punctuation(printed: str, words: list[str]) -> None:
    assert header_words(printed) == words


def test_ascii_header_words_drop_what_the_unicode_rule_drops() -> None:
    # ASCII text takes a faster path than other text: every ASCII character must come out
    # of it as the rule for all text has it (a character beside a non-ASCII one takes that)
    for code in range(128):
        printed = f"a{chr(code)}b"
        assert header_words(printed) == header_words(printed + " 中")[:-1], repr(chr(code))
