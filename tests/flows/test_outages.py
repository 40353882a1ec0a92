"""A database outage and a storage outage in the middle of a batch: the batch finishes alone.

Both are real: PostgreSQL reached through a TCP proxy on loopback that goes down (the port
refuses, open connections are reset) and comes back; moto's S3 server stopped and started
again on its port. Each outage starts at the first success the ledger records (found by an
engine event: the one thing a test cannot time otherwise). The outages and the retry
backoff are short here to keep the suite fast; `OUTAGE_SECONDS` and `OUTAGE_RETRY_SECONDS`
run the same tests at full length (a 30 s database, a 60 s storage outage, default backoff).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from proxy import Proxy
from sqlalchemy import Engine, event

from corpus import Sample, generate
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch
from parsers.codes import BatchState, Outcome, Status
from reconcile.output_checks import check_outputs

BANKS = ("bluebird", "northwind")


def lengths(outage: float, retry: float) -> tuple[float, float]:
    """The outage and the first retry delay: short by default, full length when asked."""
    return (float(os.environ.get("OUTAGE_SECONDS", outage)),
            float(os.environ.get("OUTAGE_RETRY_SECONDS", retry)))


class Outage:
    """Takes a component down at the first recorded success and brings it back later."""

    def __init__(self, down: Callable[[], Any], up: Callable[[], Any], seconds: float) -> None:
        self.down, self.up, self.seconds = down, up, seconds
        self.started = threading.Event()
        self.ended = threading.Event()
        #: the job whose success was being recorded when the outage began
        self.job_id: str | None = None

    def on_success(self, engine: Engine) -> None:
        def after(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
                  executemany: bool) -> None:
            binds = context.compiled_parameters[0] if context.compiled_parameters else {}
            if statement.lstrip().upper().startswith("UPDATE JOBS") \
                    and binds.get("v_status") == Status.SUCCEEDED and not self.started.is_set():
                self.started.set()
                self.job_id = binds.get("g_job_id")
                self.down()
                threading.Timer(self.seconds, self._end).start()

        event.listen(engine, "after_cursor_execute", after)

    def _end(self) -> None:
        self.up()
        self.ended.set()


def finished_alone(settings: Settings, batch_id: str, samples: list[Sample],
                   outage: Outage, state: Any) -> list[Outcome]:
    """The batch ended as its files say, counted exactly; return every attempt's outcome."""
    assert outage.started.is_set() and outage.ended.wait(120)
    assert state.name == WARNINGS, state.message
    ledger = settings.ledger()
    batch = ledger.batch(batch_id)
    assert batch is not None and batch.state == BatchState.COMPLETED_WITH_WARNINGS
    jobs = ledger.jobs(batch_id)
    expected = {str(s.pdf): s.reason for s in samples}
    assert sorted(j.source_uri for j in jobs) == sorted(expected)
    outcomes = []
    for j in jobs:
        reason = expected[j.source_uri]
        assert (j.status, j.reason) == ((Status.SUCCEEDED, None) if reason is None else
                                        (Status.FAILED, reason)), j
        ended = [a.outcome for a in ledger.attempts(j.job_id)]
        assert j.attempts == len(ended) and ended[-1] in (Outcome.SUCCEEDED, Outcome.FAILED)
        assert all(o in (Outcome.CRASHED, Outcome.RETRY) for o in ended[:-1]), ended
        outcomes += ended
    assert check_outputs(jobs, settings.storage())["ok"]
    return outcomes


@pytest.fixture
def through_proxy(postgres_url: str) -> Iterator[tuple[str, Proxy]]:
    """The test schema's URL, reached through a proxy the test can take down."""
    url = urlsplit(postgres_url)
    proxy = Proxy((url.hostname or "127.0.0.1", url.port or 5432))
    yield urlunsplit(url._replace(netloc=f"{url.username}@{proxy.address}")), proxy
    proxy.stop()


def test_a_database_outage_mid_batch_is_outlasted(
        stmtflow_home: Path, tmp_path: Path, through_proxy: tuple[str, Proxy],
        monkeypatch: pytest.MonkeyPatch) -> None:
    url, proxy = through_proxy
    seconds, retry = lengths(2, 1.5)
    monkeypatch.setenv("STMTFLOW_DATABASE_URL", url)
    monkeypatch.setenv("STMTFLOW_RETRY_SECONDS", str(retry))
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    samples = generate(tmp_path / "inbox", BANKS, 4, seed=21, bad=("not-a-pdf",))
    settings = Settings.from_env()
    outage = Outage(proxy.stop, proxy.start, seconds)
    outage.on_success(settings.engine())

    state = import_batch(str(tmp_path / "inbox"), batch_id="b-db-down", return_state=True)

    finished_alone(settings, "b-db-down", samples, outage, state)
    # the success being recorded when the database went away was lost with its connection;
    # the task's next try took its own job back (the attempt counts) and succeeded
    assert outage.job_id is not None
    assert [a.outcome for a in settings.ledger().attempts(outage.job_id)] == [
        Outcome.CRASHED, Outcome.SUCCEEDED]


def test_an_s3_outage_mid_batch_is_outlasted(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from moto.server import ThreadedMotoServer

    seconds, retry = lengths(10, 4)
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_DEFAULT_REGION="us-east-1")
    servers = [ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)]
    servers[0].start()
    host, port = servers[0].get_host_and_port()

    def restart() -> None:
        servers.append(ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False))
        servers[-1].start()

    try:
        bucket = f"stmtflow-{uuid.uuid4().hex[:8]}"
        monkeypatch.setenv("STMTFLOW_STORAGE", f"s3://{bucket}/store")
        monkeypatch.setenv("STMTFLOW_S3_ENDPOINT", f"http://{host}:{port}")
        monkeypatch.setenv("STMTFLOW_RETRY_SECONDS", str(retry))
        monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
        # two files at a time, so files are still to read when the outage starts; and a
        # request's own retries bounded (botocore's default draws up to 15 s of backoff), so
        # the outage outlasts them and the task's retry is what carries the file through
        monkeypatch.setenv("STMTFLOW_WORKERS", "2")
        monkeypatch.setenv("AWS_RETRY_MODE", "standard")
        monkeypatch.setenv("AWS_MAX_ATTEMPTS", "3")
        samples = generate(tmp_path / "inbox", BANKS, 4, seed=23, bad=("not-a-pdf",))
        settings = Settings.from_env()
        settings.storage().fs.mkdir(bucket)
        outage = Outage(servers[0].stop, restart, seconds)
        outage.on_success(settings.engine())

        state = import_batch(str(tmp_path / "inbox"), batch_id="b-s3-down",
                             return_state=True)

        outcomes = finished_alone(settings, "b-s3-down", samples, outage, state)
        assert Outcome.RETRY in outcomes, "the outage outlasted a request's own retries"
    finally:
        servers[-1].stop()
