"""The generator is a room of its own: the parser never imports it, it imports little."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported(package: str) -> set[str]:
    names = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
    return names


def test_parsers_never_import_the_generator() -> None:
    assert {m for m in imported("parsers") if m.split(".")[0] == "corpus"} == set()


def test_generator_takes_only_the_model_numbers_and_pdfium_lock_from_parsers() -> None:
    from_parsers = {m for m in imported("corpus") if m.split(".")[0] == "parsers"}
    assert from_parsers <= {"parsers.model", "parsers.numbers", "parsers.pdf.pdfium"}
    assert not {m for m in imported("corpus") if m.split(".")[0] in ("flows", "reconcile")}
