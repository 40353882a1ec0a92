"""`stmtflow sample DIR --varied` writes statements, their truth and their variations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_sample_varied_writes_a_variant_file_beside_each_statement(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "flows.cli", "sample", str(tmp_path),
                          "--varied", "--statements", "4", "--banks", "northwind,harbor"],
                         capture_output=True, text=True, check=True)
    assert "wrote 4 varied statements" in run.stdout
    pdfs = sorted(tmp_path.glob("*.pdf"))
    assert len(pdfs) == 4
    for pdf in pdfs:
        variant = json.loads(pdf.with_suffix(".variant.json").read_text())
        assert isinstance(variant["kinds"], list) and variant["knobs"]
        assert json.loads(pdf.with_suffix(".truth.json").read_text())["accounts"]


def test_sample_without_varied_writes_plain_statements(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "flows.cli", "sample", str(tmp_path),
                    "--statements", "2", "--banks", "northwind"], check=True,
                   capture_output=True)
    assert len(list(tmp_path.glob("*.pdf"))) == 2
    assert not list(tmp_path.glob("*.variant.json"))
