"""The parse workers of an import: what they run, and what starting one costs."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from corpus import generate
from flows.config import Settings
from flows.parser import Parser, _pool, start_workers
from tests.flows.conftest import TEXT_BANKS


def test_a_worker_parses_as_the_parser_in_force(stmtflow_home: Path, tmp_path: Path) -> None:
    samples = generate(tmp_path / "in", TEXT_BANKS[:2], 2, seed=5)
    settings = Settings.from_env()
    start_workers(settings)
    parser = Parser.from_settings(settings)
    in_workers = parser.in_workers(2)
    for s in samples:
        data = s.pdf.read_bytes()
        for bank in (None, s.bank):  # a result crosses from its worker as it pickles
            here = pickle.loads(pickle.dumps(parser.parse(data, bank)))
            assert in_workers(data, bank) == here
            assert here.statement.transaction_count > 0


def test_a_worker_starts_without_importing_flows(stmtflow_home: Path) -> None:
    """What a worker unpickles as it starts names the parser only, not flows' modules (and
    with them SQLAlchemy and fsspec): a quarter of a second for every worker started."""
    settings = Settings.from_env()
    target = pickle.dumps(_pool(Parser.from_settings(settings), 1)._target)
    loaded = subprocess.run(
        [sys.executable, "-c", "import pickle, sys\nimport parsers.api\n"
         "pickle.loads(sys.stdin.buffer.read())\n"
         "print(sorted({m.split('.')[0] for m in sys.modules} & {'flows', 'sqlalchemy', "
         "'fsspec', 'prefect'}))"],
        input=target, capture_output=True, check=True).stdout.decode().strip()
    assert loaded == "[]"
