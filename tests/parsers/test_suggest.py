"""`templates suggest`: a template drawn from a validated generic reading reads its sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import statement
from parsers.api import parse_pdf
from parsers.generic.suggest import suggest
from parsers.layout.template import load_template


@pytest.mark.parametrize("bank", ["northwind", "alpenbank"])
def test_a_suggested_template_reads_its_sample(tmp_path: Path, bank: str) -> None:
    drawn = statement(bank, index=3, seed=11)
    generic = parse_pdf(drawn.pdf, templates=[])
    assert generic.validation.ok
    toml = suggest(generic.reading()["table"], "teal", drawn.truth.bank.title())
    path = tmp_path / "teal.toml"
    path.write_text(toml)
    template = load_template(path)
    result = parse_pdf(drawn.pdf, templates=[template])
    assert result.layout == "teal" and result.validation.ok
    assert result.statement.to_dict()["accounts"] == drawn.truth.to_dict()["accounts"]
