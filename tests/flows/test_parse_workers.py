"""The parse workers of an import: what they run, and what starting one costs."""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from corpus import generate
from flows.config import Settings
from flows.parser import Parser, _pool, start_workers
from parsers.codes import Status
from parsers.worker.statement_files import render
from reconcile.records import Job
from tests.flows.conftest import TEXT_BANKS


def job_of(data: bytes, bank: str | None, parser: Parser) -> Job:
    t = datetime(2026, 11, 1, tzinfo=UTC)
    ids = parser.identities()
    return Job(job_id="j-1", batch_id="b-1", source_uri="file:///s.pdf", input_uri="mem://i",
               size=len(data), sha256=hashlib.sha256(data).hexdigest(), submitted_at=t,
               expires_at=t, chain_revision=ids.chain_revision, ocr_engine=ids.ocr_engine,
               policy_revision=ids.policy_revision, status=Status.PROCESSING, bank_hint=bank)


def test_a_worker_renders_as_the_parser_in_force(stmtflow_home: Path, tmp_path: Path) -> None:
    """A worker sends back the job's objects and digests, byte for byte those rendered here
    from the same parse, and what the ledger records of the statement."""
    samples = generate(tmp_path / "in", TEXT_BANKS[:2], 2, seed=5)
    settings = Settings.from_env()
    start_workers(settings)
    parser = Parser.from_settings(settings)
    in_workers = parser.in_workers(2)
    for s in samples:
        data = s.pdf.read_bytes()
        for bank in (None, s.bank):
            job = job_of(data, bank, parser)
            here = parser.parse(data, bank)
            got = in_workers(data, job)
            assert got == render(here, job.sha256, job.pinned())
            assert got.digests == {name: hashlib.sha256(b).hexdigest()
                                   for name, b in got.files.items()}
            assert (got.bank, got.transactions) == (s.bank, here.statement.transaction_count)
            assert got.transactions > 0


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
