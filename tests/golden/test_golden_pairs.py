"""A bank is its template plus its golden pair: `tests/golden/<bank>/input.pdf`, a statement
of the bank's layout, and `tests/golden/<bank>/statement.json`, the whole document
(`parsers.worker.statement_files.statement_document`) that input must read as.

The check reads the committed input, never the generator, so that a change to the parser
that alters what a bank's statement reads as (a figure, a description, a note, how it was
read) shows here as a difference to look at and take in on purpose, and a change to the
generator alone changes nothing here. The document names its input's sha256, so an expected
file only passes beside the input it was read from. Every built-in template
(`parsers.api.builtin_templates()`) must have its pair, and every pair its template.

One command writes every pair again from the generator (statement 3 of the bank's reference
layout, or of its real-world look-alike, seeded by the bank's name), then reads it:

    STMTFLOW_GOLDEN=update .venv/bin/python -m pytest tests/golden

Meridian's statements are drawn as scans, read by OCR, whose text follows the tesseract
build; its pair holds instead the text rendering the scan is made from
(`corpus.banks.render_meridian_text`), which the same template reads from its text layer.
How its scans read stays tested where the scan path is (tests/parsers/test_scans.py, against
the statement's truth rather than a golden file).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from parsers.api import builtin_templates, parse_pdf
from parsers.worker.statement_files import statement_document

HERE = Path(__file__).parent
BANKS = sorted(t.bank for t in builtin_templates())
PAIR = ("input.pdf", "statement.json")
UPDATE = os.environ.get("STMTFLOW_GOLDEN") == "update"


def generated_input(bank: str) -> bytes:
    """What `STMTFLOW_GOLDEN=update` writes as the bank's input: its reference layout's
    sample (Meridian's as text, before any scan), or its real-world look-alike's."""
    from corpus import PLAIN, draw_for
    from corpus.banks import RENDERERS
    from corpus.lookalikes import LOOKALIKES

    drawn = draw_for(3, random.Random(f"golden-{bank}"), False)
    if bank in RENDERERS:
        return RENDERERS[bank](drawn, PLAIN).pdf
    return LOOKALIKES[bank](drawn).pdf


def read_as_document(pdf: bytes) -> str:
    """The `statement.json` text of a parse of `pdf` with the built-in templates."""
    doc = statement_document(parse_pdf(pdf), hashlib.sha256(pdf).hexdigest(), {})
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize("bank", BANKS)
def test_a_banks_input_reads_as_its_statement(bank: str) -> None:
    pair = HERE / bank
    if UPDATE:
        pair.mkdir(exist_ok=True)
        (pair / "input.pdf").write_bytes(generated_input(bank))
        (pair / "statement.json").write_text(read_as_document((pair / "input.pdf").read_bytes()))
    missing = [name for name in PAIR if not (pair / name).is_file()]
    assert not missing, f"{bank} lacks {missing}: STMTFLOW_GOLDEN=update writes its pair"
    got = json.loads(read_as_document((pair / "input.pdf").read_bytes()))
    assert got["validation"]["ok"], got["validation"]["problems"]
    assert got == json.loads((pair / "statement.json").read_text())


def test_every_pair_is_a_templates_and_holds_only_its_two_files() -> None:
    pairs = sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert pairs == BANKS
    for bank in pairs:
        assert sorted(p.name for p in (HERE / bank).iterdir()) == sorted(PAIR), bank
