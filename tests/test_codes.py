"""One set of codes: no status, error class, reason, outcome or review state is spelled
outside `parsers/codes.py`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from corpus import BAD_INPUTS
from parsers.codes import (
    BatchState,
    ErrorClass,
    Outcome,
    Reason,
    ReviewAction,
    ReviewState,
    Status,
)
from parsers.errors import StatementError

ROOT = Path(__file__).resolve().parent.parent
#: the rooms of production code
ROOMS = ("parsers", "corpus", "reconcile", "flows", "deployments", "benchmarks")
#: the codes themselves; the generator's bad inputs, which record the reason they must fail
#: with as ground truth (data, like a golden file; checked against `Reason` below); and the
#: migrations, each of which spells the values stored at its revision for good
OUTSIDE = ("parsers/codes.py", "corpus/bad.py", "reconcile/migrations/")
CODES = {m.value for enum in (Status, BatchState, ErrorClass, Outcome, Reason, ReviewState,
                              ReviewAction) for m in enum}
#: (file, literal): why that literal is not a code
ALLOWED = {
    ("flows/cli/operate.py", "open"): "an investigation's state, printed as a word",
    ("benchmarks/accuracy.py", "refused"): "a benchmark's outcome: the parser refused the file",
    ("benchmarks/accuracy.py", "crashed"): "a benchmark's outcome: an unclassified exception",
    ("benchmarks/generic.py", "refused"): "a benchmark's outcome: the parser refused the file",
    ("benchmarks/generic.py", "crashed"): "a benchmark's outcome: an unclassified exception",
    ("benchmarks/realworld.py", "refused"): "a benchmark's outcome: the parser refused the file",
    ("benchmarks/realworld.py", "crashed"): "a benchmark's outcome: an unclassified exception",
    ("benchmarks/scans.py", "refused"): "a benchmark's outcome: the parser refused the file",
    ("benchmarks/scans.py", "crashed"): "a benchmark's outcome: an unclassified exception",
    ("benchmarks/foreign_scans.py", "refused"): "a benchmark's outcome: the parser refused the "
                                                "file",
    ("benchmarks/foreign_scans.py", "crashed"): "a benchmark's outcome: an unclassified "
                                                "exception",
    ("corpus/banks.py", "DUPLICATE"): "a watermark the generator draws on a statement",
    ("flows/crashpoint.py", "succeeded"): "a crash point named after the moment it stands for",
    ("flows/jobs.py", "succeeded"): "the crash point after a success is recorded",
}


def code_literals(source: str) -> Iterator[tuple[int, str]]:
    """String literals of `source` that name a member of the codes, with their line.

    Docstrings, dict keys, subscripts and the key a mapping's `get` reads are names of
    fields (`counts["failed"]`, `counts.get("failed", 0)`), not codes, and are left out.
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
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and node.args:
            names.add(id(node.args[0]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in names and node.value in CODES:
            yield node.lineno, node.value


def test_no_status_reason_or_review_state_is_spelled_outside_the_codes() -> None:
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
    assert list(code_literals('n = counts.get("rejected", 0)\n')) == []


def test_every_parser_error_carries_a_reason_of_the_codes() -> None:
    def subclasses(cls: type) -> Iterator[type]:
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    errors = [StatementError, *subclasses(StatementError)]
    assert len(errors) > 10
    assert all(isinstance(e.reason, Reason) for e in errors)


def test_every_bad_input_of_the_generator_expects_a_reason_of_the_codes() -> None:
    assert {reason for reason, _ in BAD_INPUTS.values()} <= {r.value for r in Reason}
