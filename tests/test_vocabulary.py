"""One vocabulary: no status, error class, reason code or outcome is spelled outside it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from parsers.errors import StatementError
from parsers.vocabulary import BatchState, ErrorClass, Outcome, Reason, Status

ROOT = Path(__file__).resolve().parent.parent
#: the rooms of production code
ROOMS = ("parsers", "reconcile", "flows", "deployments", "benchmarks")
#: the vocabulary itself, and the sample generator, whose bad inputs record the reason they
#: must fail with as ground truth (data, like a golden file)
OUTSIDE = ("parsers/vocabulary.py", "parsers/corpus/")
VOCABULARY = {m.value for enum in (Status, BatchState, ErrorClass, Outcome, Reason)
              for m in enum}
#: (file, literal): why that literal is not a code
ALLOWED = {("parsers/ocr.py", "timeout"): "pytesseract names its time-out in the message"}


def code_literals(source: str) -> Iterator[tuple[int, str]]:
    """String literals of `source` that name a member of the vocabulary, with their line.

    Docstrings, dict keys and subscripts are names of fields (`counts["failed"]`), not
    codes, and are left out.
    """
    tree = ast.parse(source)
    names: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr):
            names.add(id(node.body[0].value))
        elif isinstance(node, ast.Dict):
            names.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            names.add(id(node.slice))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in names and node.value in VOCABULARY:
            yield node.lineno, node.value


def test_no_status_or_reason_code_is_spelled_outside_the_vocabulary() -> None:
    found = []
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(OUTSIDE):
                continue
            found += [f"{rel}:{line}: {value!r}" for line, value in
                      code_literals(path.read_text()) if (rel, value) not in ALLOWED]
    assert found == []


def test_the_check_finds_a_spelled_out_code() -> None:
    source = 'def f(job):\n    """FAILED is fine here."""\n    return job.status == "FAILED"\n'
    assert list(code_literals(source)) == [(3, "FAILED")]
    assert list(code_literals('counts = {"failed": 1}\nn = counts["failed"]\n')) == []


def test_every_parser_error_carries_a_reason_of_the_vocabulary() -> None:
    def subclasses(cls: type) -> Iterator[type]:
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    errors = [StatementError, *subclasses(StatementError)]
    assert len(errors) > 10
    assert all(isinstance(e.reason, Reason) for e in errors)
