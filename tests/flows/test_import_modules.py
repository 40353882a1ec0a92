"""What `stmtflow import` of text statements loads: nothing a text statement never needs.

Each module below costs every command its import time (pytesseract alone imports pandas:
a third of a CPU second). They load only where their part runs: OCR of a scanned page, the
pdfplumber reader when it is chosen, a ledger on PostgreSQL (or a migration, which Alembic
runs with every dialect it knows). The parser's own libraries (PDFium, pdfminer, numpy,
Pillow) and the rendering's (pyarrow, pandas) load only in the parse workers: an import's
process hands them its files and writes what they send back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import generate
from flows.config import Settings
from tests.flows.conftest import TEXT_BANKS

#: modules no import of text statements into a SQLite ledger needs (FastAPI: Prefect encodes
#: a flow run's parameters with it, which ours skip, `flows.plain_flow`)
NOT_ON_THE_TEXT_PATH = ("pytesseract", "pdfplumber", "sqlalchemy.dialects.postgresql",
                        "fastapi")
#: the parser's and the rendering's libraries, which load in the parse workers only
THE_WORKERS_OWN = ("numpy", "pandas", "pyarrow", "pypdfium2", "pdfminer", "PIL")

#: the command in this process, then the heavy modules it loaded
IMPORT = """
import json, sys
from flows.cli import main

code = main(sys.argv[2:])
print(json.dumps([code, sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)]))
"""


def _modules_of(*args: str, among: tuple[str, ...] = NOT_ON_THE_TEXT_PATH
                ) -> tuple[int, list[str]]:
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-c", IMPORT, json.dumps(among),
                           *args], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert done.stdout.strip(), done.stderr
    code, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    return int(code), list(loaded)


def test_an_import_of_text_statements_loads_no_ocr_nor_other_reader(
        stmtflow_home: Path, tmp_path: Path) -> None:
    generate(tmp_path / "in", TEXT_BANKS[:2], 2, seed=11)
    Settings.from_env().ledger()  # a ledger already migrated, as at every run but the first
    code, loaded = _modules_of("import", str(tmp_path / "in"), "--json",
                               among=NOT_ON_THE_TEXT_PATH + THE_WORKERS_OWN)
    assert code == 0
    assert loaded == []


def test_the_pdfplumber_reader_loads_pdfplumber_when_chosen(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: the same command, on the reader that needs pdfplumber."""
    [sample] = generate(tmp_path / "in", TEXT_BANKS[:1], 1, seed=11)
    monkeypatch.setenv("STMTFLOW_READER", "pdfplumber")
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")  # parsed in the command's process
    code, loaded = _modules_of("parse", str(sample.pdf), "--json")
    assert code == 0
    assert loaded == ["pdfplumber"]
