"""The tesseract version that pins OCR identities, read without pytesseract."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytesseract
import pytest

from corpus import generate
from parsers.ocr.tesseract_version import tesseract_version

#: a text statement parsed as a parse worker parses it, its jobs' OCR identity asked for;
#: then the modules of OCR and of the other reader it loaded
PARSE = """
import sys
from parsers.api import parse_pdf
from parsers.identity import engine_identity

engine_identity()
parse_pdf(open(sys.argv[1], "rb").read())
print(sorted(m for m in ("pandas", "pytesseract", "pdfplumber") if m in sys.modules))
"""


def test_the_version_reads_as_pytesseract_reads_it() -> None:
    """Identities pinned before (through pytesseract) stay the same."""
    assert str(tesseract_version()) == str(pytesseract.get_tesseract_version())


@pytest.mark.parametrize("printed", ["", "tesseract 3.02\\n", "tesseract v.x\\n"])
def test_a_binary_without_a_usable_version_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, printed: str) -> None:
    """A `tesseract` on the PATH that prints no version OCR can work with (a stand-in
    script: a real binary cannot be made to)."""
    fake = tmp_path / "tesseract"
    fake.write_text(f"#!/bin/sh\nprintf '{printed}'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(RuntimeError, match="no version OCR can work with"):
        tesseract_version()


def test_no_binary_is_an_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OSError):
        tesseract_version()


def test_a_text_statement_loads_no_ocr_stack(tmp_path: Path) -> None:
    """pytesseract (and the pandas it imports) cost the command and every parse worker's
    start a third of a CPU second: not loaded on a page with a text layer."""
    [sample] = generate(tmp_path, ("northwind",), 1, seed=3)
    done = subprocess.run([sys.executable, "-c", PARSE, str(sample.pdf)], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": os.getcwd()}, timeout=120,
                          check=True)
    assert done.stdout.strip() == "[]"
