"""A bank is its template plus its golden file: each built-in template's generated sample
read to the `statement.json` document kept in `tests/golden/<bank>.expected.json`.

A change that alters what a bank's statement reads as (a figure, a description, a note, how
it was read) shows as a difference here, to be looked at and taken in on purpose:
`STMTFLOW_GOLDEN=update python -m pytest tests/golden` writes the files again.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from corpus import PLAIN, draw_for
from corpus.banks import RENDERERS
from corpus.lookalikes import LOOKALIKES
from parsers.api import builtin_templates, parse_pdf
from parsers.worker.statement_files import statement_document

HERE = Path(__file__).parent
#: the banks whose generated sample is a scan: read by OCR, whose output follows the
#: tesseract build (their reading is pinned by the scan tests instead)
SCANNED = {"meridian"}
BANKS = sorted(t.bank for t in builtin_templates() if t.bank not in SCANNED)


def sample(bank: str) -> bytes:
    """The bank's sample: its reference layout's, or its real-world look-alike's."""
    drawn = draw_for(3, random.Random(f"golden-{bank}"), False)
    if bank in RENDERERS:
        return RENDERERS[bank](drawn, PLAIN).pdf
    return LOOKALIKES[bank](drawn).pdf


@pytest.mark.parametrize("bank", BANKS)
def test_a_banks_sample_reads_as_its_golden_file(bank: str) -> None:
    doc = statement_document(parse_pdf(sample(bank)), None, {})
    got = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    golden = HERE / f"{bank}.expected.json"
    if os.environ.get("STMTFLOW_GOLDEN") == "update":
        golden.write_text(got)
    assert golden.exists(), f"no golden file for {bank}: STMTFLOW_GOLDEN=update writes it"
    assert doc["validation"]["ok"], doc["validation"]["problems"]
    assert json.loads(got) == json.loads(golden.read_text())


def test_every_golden_file_has_its_template() -> None:
    assert sorted(p.name.removesuffix(".expected.json")
                  for p in HERE.glob("*.expected.json")) == BANKS
