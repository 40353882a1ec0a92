"""One batch spread over two Prefect task workers, separate processes on the real server."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.book_exports import export_book
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch, process_file
from flows.parser import Parser
from flows.settle import untaken
from reconcile.book import Book

_RECEIVED = re.compile(r"Received task run: ([0-9a-f-]{36})")


@contextlib.contextmanager
def task_workers(count: int, logs: Path) -> Iterator[list[Path]]:
    """`count` `stmtflow task-worker` processes of one file at a time, once each listens;
    their logs (Prefect's INFO lines name every task run a worker received)."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()),
           "PREFECT_LOGGING_LEVEL": "INFO", "STMTFLOW_WORKERS": "1",
           "STMTFLOW_PARSE_WORKERS": "1"}
    files = [logs / f"task-worker-{i}.log" for i in range(count)]
    procs = []
    try:
        for path in files:
            with path.open("w") as out:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "flows.cli", "task-worker"], env=env,
                    stdout=out, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 120
        while not all("Subscribing to runs" in p.read_text() for p in files):
            assert time.monotonic() < deadline, [p.read_text()[-2000:] for p in files]
            assert all(p.poll() is None for p in procs), [f.read_text() for f in files]
            time.sleep(0.2)
        yield files
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def _outcome(settings: Settings, batch: str) -> dict:
    storage = settings.storage()
    return {j.sha256: (j.status, j.attempts, j.reason, j.needs_review,
                       json.loads(storage.read(j.output_uri))["accounts"]
                       if j.output_uri else None)
            for j in settings.ledger().jobs(batch)}


def _book(settings: Settings) -> bytes:
    return export_book(Book(settings.engine()), "csv",
                       Parser.from_settings(settings).templates, None, None, False)


def test_a_batch_spread_over_two_task_workers_ends_as_on_threads(
        stmtflow_home: Path, inbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """And a batch waiting for task runs that no worker takes says so."""
    threads = import_batch(str(inbox.folder), batch_id="b-threads", return_state=True)
    on_threads = Settings.from_env()
    # a second data directory: in the first, the same bytes would be duplicates, not parsed
    monkeypatch.setenv("STMTFLOW_HOME", str(stmtflow_home.with_name("home-task-workers")))
    monkeypatch.setenv("STMTFLOW_TASK_RUNNER", "task-workers")
    with task_workers(2, tmp_path) as logs:
        spread = import_batch(str(inbox.folder), batch_id="b-spread", return_state=True)
        received = [set(_RECEIVED.findall(log.read_text())) for log in logs]
        untaken(process_file.task_key, logging.getLogger("taken"))(1)
        untaken("process_file-of-another-stmtflow", logging.getLogger("untaken"))(1)
    assert [r.name for r in caplog.records if "none takes" in r.getMessage()] == ["untaken"]
    assert threads.name == spread.name == WARNINGS
    on_workers = Settings.from_env()
    assert _outcome(on_workers, "b-spread") == _outcome(on_threads, "b-threads")
    # every file's one attempt was a task run one of the two workers took, and each took some
    ledger = on_workers.ledger()
    ran = {a.task_run_id for j in ledger.jobs("b-spread") for a in ledger.attempts(j.job_id)}
    assert all(received) and not received[0] & received[1]
    assert received[0] | received[1] == ran
    assert _book(on_workers) == _book(on_threads)


def test_task_workers_need_an_api_they_share_with_the_import(
        stmtflow_home: Path, inbox, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded API an import would start is its own: no task worker could take its
    files, and the batch would wait for ever. Both commands say so and start nothing."""
    from flows.cli import main

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("STMTFLOW_TASK_RUNNER", "task-workers")
    assert main(["import", str(inbox.folder)]) == 2
    assert "stmtflow server start" in capsys.readouterr().err
    assert main(["task-worker"]) == 2
    assert "no Prefect API to take files from" in capsys.readouterr().err
    assert not (stmtflow_home / "ledger.db").exists()
