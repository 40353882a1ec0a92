"""parse_pdf: which reader reads a statement, and whose statement it is then."""

from __future__ import annotations

from pathlib import Path

from corpus import generate
from parsers.api import parse_pdf
from parsers.layout.template import load_template

TEMPLATES = Path(__file__).resolve().parents[2] / "parsers" / "templates"


def test_a_detected_bank_read_by_the_generic_reader_keeps_its_bank(tmp_path: Path) -> None:
    """A template that detects the statement but cannot read it (here: a period it looks
    for is not printed, as OCR may misread one) leaves the table to the generic reader; the
    statement is still the detected bank's, so the book files it under that bank rather
    than under `generic`."""
    [sample] = generate(tmp_path / "in", ("northwind",), 1, seed=3)
    source = (TEMPLATES / "northwind.toml").read_text().replace(
        "[period]", "[period]\npattern = 'Printed only on paper (?P<start>\\S+) to (?P<end>\\S+)'",
        1)
    (tmp_path / "northwind.toml").write_text(source)
    result = parse_pdf(sample.pdf.read_bytes(), templates=[load_template(
        tmp_path / "northwind.toml")])
    assert result.layout == "generic" and result.validation.ok
    assert any("recognised as northwind" in note for note in result.notes)
    assert result.statement.bank == "northwind"
