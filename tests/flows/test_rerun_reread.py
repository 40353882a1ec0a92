"""`stmtflow rerun`: a statement that succeeded but was read by the generic reader is read
again after its bank's template is added (named with `--job`, or all with `--all`), as a new
job `rerun_of` the old one; both results stay in storage, the book holds the new reading in
place of the old, once, and `stmtflow status` says which is current."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fsspec.core import url_to_fs
from sqlalchemy import select

from corpus import generate
from flows.config import Settings
from flows.import_flow import import_batch
from parsers.codes import Status
from reconcile.book import Book, sync
from reconcile.db import book_imports
from tests.parsers.test_template import CEDAR


def _rerun(*args: str) -> subprocess.CompletedProcess[str]:
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    return subprocess.run([sys.executable, "-m", "flows.cli", "rerun", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _cli(*args: str) -> str:
    from flows.cli import main

    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(list(args)) == 0
    return out.getvalue()


def test_a_template_change_rereads_succeeded_statements_into_the_book_once(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    samples = generate(tmp_path / "inbox", ("cedar",), 2, seed=21)
    transactions = sum(len(a["transactions"]) for s in samples
                       for a in json.loads(s.truth.read_text())["accounts"])
    state = import_batch(str(tmp_path / "inbox"), batch_id="b-cedar", return_state=True)
    assert state.is_completed(), state.message
    settings = Settings.from_env()
    ledger = settings.ledger()
    first = ledger.jobs("b-cedar")
    assert {(j.status, j.bank) for j in first} == {(Status.SUCCEEDED, "generic")}
    book = Book(settings.engine())
    sync(book, ledger, settings.storage())
    assert {r.bank for r in book.records()} == {"generic"}

    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "cedar.toml").write_text(CEDAR)
    monkeypatch.setenv("STMTFLOW_TEMPLATES", str(tmp_path / "templates"))
    assert _rerun("b-cedar", "--failed").stdout.startswith(
        "batch b-cedar: Completed: batch b-cedar: nothing to rerun")
    one = _rerun("b-cedar", "--job", first[0].job_id)  # one statement, named
    assert one.returncode == 0 and "book: 1 superseded" in one.stdout, one.stdout + one.stderr
    done = _rerun("b-cedar", "--all")  # then every other one
    assert done.returncode == 0, done.stdout + done.stderr
    assert "book: 1 superseded" in done.stdout

    assert ledger.jobs("b-cedar") == first  # terminal records never change
    reread = ledger.jobs("b-cedar-r1") + ledger.jobs("b-cedar-r2")
    assert [j.rerun_of for j in reread] == [j.job_id for j in first]
    assert {(j.status, j.bank) for j in reread} == {(Status.SUCCEEDED, "cedar")}
    assert all(j.chain_revision != first[0].chain_revision for j in reread)
    for j in first + reread:  # both readings kept, each its own version
        fs, path = url_to_fs(str(j.output_uri))
        assert fs.exists(path)
    assert len({j.output_uri for j in first + reread}) == 4
    records = book.records()
    assert len(records) == transactions
    assert {r.bank for r in records} == {"cedar"}
    with settings.engine().connect() as c:
        superseded = dict(c.execute(select(book_imports.c.decision_id,
                                           book_imports.c.superseded_by)).all())
    assert superseded == {**{j.job_id: j.rerun_of and None for j in reread},
                          **{j.rerun_of: j.job_id for j in reread}}
    assert book.summary()["quarantined"] == 0
    old, new = (_cli("status", first[0].job_id), _cli("status", reread[0].job_id))
    assert f"book       superseded by {reread[0].job_id}" in old, old
    assert "book       current" in new and f"rerun of   {first[0].job_id}" in new, new

    again = _rerun("b-cedar", "--all")  # read with today's identities already: nothing to do
    assert again.returncode == 0 and "nothing to rerun" in again.stdout, again.stdout
    assert len(book.records()) == transactions
