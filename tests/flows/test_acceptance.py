"""Acceptance: idempotent across batches, one file at a time, resumable, and fenced.

Real Prefect, real files (symlinks and all), the real ledger on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from faults import Faults
from test_cli import cli

from corpus import generate
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch, resume_batch
from flows.jobs import Worker, _run, accept_batch, open_batch, process_job
from flows.leases import taken
from flows.taxonomy import LeaseLost, classify_source
from parsers.codes import Reason, Status
from reconcile.book import Book, sync
from reconcile.ledger import Ledger
from reconcile.output_checks import check_outputs

#: banks the generator draws with a text layer (no OCR: fast)
TEXT_BANKS = ("alpenbank", "bluebird", "harbor", "northwind")


def test_the_same_inbox_imported_twice_parses_nothing_the_second_time(
        stmtflow_home: Path, inbox) -> None:
    first = json.loads(cli("import", str(inbox.folder), "--json").stdout)
    assert first["state"] == "COMPLETED_WITH_WARNINGS"
    done = cli("import", str(inbox.folder), "--json")
    assert done.returncode == 0, done.stderr
    second = json.loads(done.stdout)
    holders = {j["sha256"]: j for j in first["jobs"]}
    assert len(second["jobs"]) == len(inbox.samples)
    for j in second["jobs"]:
        holder = holders[j["sha256"]]
        assert (j["status"], j["duplicate_of"], j["attempts"], j["output"]) == (
            Status.DUPLICATE, holder["job_id"], 0, None)
    # the batch ends as its files did the first time: bad files are still excluded
    assert second["state"] == "COMPLETED_WITH_WARNINGS"
    ledger = Settings.from_env().ledger()
    assert sum(ledger.attempt_counts().get(j["job_id"], 0) for j in second["jobs"]) == 0
    report = json.loads(cli("reconcile", "--json").stdout)
    good = sum(1 for s in inbox.samples if s.reason is None)
    assert report["state"] == "accounted", report["contradictions"]
    assert report["counts"]["duplicates"] == len(inbox.samples)
    assert report["consumer"]["quarantined"] == 0
    assert report["consumer"]["imported"] == good
    status = cli("status", second["jobs"][0]["job_id"])
    assert f"duplicate  {second['jobs'][0]['duplicate_of']}" in status.stdout


def test_after_import_move_empties_the_inbox(stmtflow_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    samples = generate(folder / "2026", TEXT_BANKS[:2], 2, seed=5)
    done = tmp_path / "done"
    state = import_batch(str(folder), batch_id="b-move", after_import=f"move:{done}",
                         return_state=True)
    assert state.name == "Completed"
    assert not list(folder.rglob("*.pdf"))
    assert sorted(p.relative_to(done).as_posix() for p in done.rglob("*.pdf")) == sorted(
        f"2026/{s.pdf.name}" for s in samples)
    rows = Settings.from_env().ledger().jobs("b-move")
    assert {r.status for r in rows} == {Status.SUCCEEDED}


def test_two_names_of_one_file_in_one_batch_are_two_jobs_shown_accounted_and_moved(
        stmtflow_home: Path, tmp_path: Path) -> None:
    folder, done = tmp_path / "inbox", tmp_path / "done"
    first, other = generate(folder, TEXT_BANKS[:2], 2, seed=6)
    (folder / "copy.pdf").write_bytes(first.pdf.read_bytes())

    ran = cli("import", str(folder), "--json", "--after-import", f"move:{done}")
    assert ran.returncode == 0, ran.stderr
    jobs = {j["source"].rsplit("/", 1)[-1]: j for j in json.loads(ran.stdout)["jobs"]}
    assert sorted(jobs) == sorted([first.pdf.name, other.pdf.name, "copy.pdf"])
    holder, copy = jobs[first.pdf.name], jobs["copy.pdf"]
    assert (holder["status"], copy["status"], copy["duplicate_of"], copy["attempts"]) == (
        Status.SUCCEEDED, Status.DUPLICATE, holder["job_id"], 0)
    assert sorted(p.name for p in done.rglob("*.pdf")) == sorted(jobs)
    assert not list(folder.rglob("*.pdf"))
    status = json.loads(cli("status", "--json").stdout)
    assert sorted(j["job_id"] for j in status["jobs"]) == sorted(
        j["job_id"] for j in jobs.values())
    report = json.loads(cli("reconcile", "--json").stdout)
    assert report["state"] == "accounted", report["contradictions"]
    assert (report["counts"]["accepted"], report["counts"]["duplicates"]) == (3, 1)


def test_each_input_is_parsed_once_by_two_concurrent_imports(
        stmtflow_home: Path, tmp_path: Path, database_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_DATABASE_URL", database_url)
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    folder = tmp_path / "inbox"
    samples = generate(folder, TEXT_BANKS, 6, seed=11)
    settings = Settings.from_env()
    barrier = threading.Barrier(2)

    def import_once(batch_id: str) -> None:
        # as an import's run does: its batch opened and taken (its lease held) before its
        # files are listed, so the other import's duplicates see a live holder and wait
        open_batch(settings, batch_id, [str(folder)], None)
        barrier.wait()
        with taken(settings, batch_id):
            accept_batch(settings, batch_id, [str(folder)], None)
            worker = Worker.from_settings(settings)
            # (its own files first, then the duplicates, which wait on the other's)
            for job in sorted(settings.ledger().jobs(batch_id),
                              key=lambda j: j.status == Status.DUPLICATE):
                process_job(worker, job.job_id)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(import_once, ["b-one", "b-two"]))
    ledger = settings.ledger()
    jobs = ledger.jobs()
    assert len(jobs) == 2 * len(samples)
    by_input: dict[str, list[Status]] = {}
    for j in jobs:
        by_input.setdefault(j.sha256, []).append(j.status)
    assert len(by_input) == len(samples)
    assert all(sorted(v) == [Status.DUPLICATE, Status.SUCCEEDED] for v in by_input.values())
    assert sum(ledger.attempt_counts().values()) == len(samples)  # each parsed once
    book = Book(ledger.engine)
    assert sync(book, ledger, settings.storage())["imported"] == len(samples)
    assert book.summary()["quarantined"] == 0


def test_a_bad_source_file_is_refused_and_the_others_are_accepted(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_LIMIT_MAX_BYTES", str(1024 * 1024))
    folder = tmp_path / "inbox"
    good = generate(folder, TEXT_BANKS[:3], 3, seed=3)
    elsewhere = generate(tmp_path / "elsewhere", TEXT_BANKS[:1], 1, seed=4)[0].pdf
    (folder / "gone.pdf").symlink_to(tmp_path / "no-such-file.pdf")
    (folder / "loop.pdf").symlink_to(folder / "loop.pdf")
    (folder / "outside.pdf").symlink_to(elsewhere)
    (folder / "inside.pdf").symlink_to(good[0].pdf)
    with (folder / "huge.pdf").open("wb") as f:
        f.truncate(8 * 1024 * 1024)
    state = import_batch(str(folder), batch_id="b-bad", return_state=True)
    assert state.is_completed() and state.name == WARNINGS
    settings = Settings.from_env()
    ledger = settings.ledger()
    rows = {r.file_name: r for r in ledger.jobs("b-bad")}
    expected = {"gone.pdf": Reason.UNREADABLE_SOURCE, "loop.pdf": Reason.UNREADABLE_SOURCE,
                "outside.pdf": Reason.OUTSIDE_SOURCE, "huge.pdf": Reason.TOO_LARGE}
    for name, reason in expected.items():
        r = rows[name]
        assert (r.status, r.reason, r.attempts, r.input_uri) == (
            Status.FAILED, reason, 0, None), name
    assert rows["huge.pdf"].size == 8 * 1024 * 1024
    for s in good:
        assert rows[s.pdf.name].status == Status.SUCCEEDED
    # a link inside the folder is another name of its target's bytes: a job, their duplicate
    assert (rows["inside.pdf"].status, rows["inside.pdf"].duplicate_of) == (
        Status.DUPLICATE, rows[good[0].pdf.name].job_id)
    assert len(rows) == len(good) + len(expected) + 1
    stored = settings.storage().list_keys("inputs/sha256")
    assert len(stored) == len(good)  # nothing of the refused files was copied
    batch = ledger.batch("b-bad")
    assert batch is not None and batch.accepted_at is not None
    # links may leave the folder when the import says so
    state = import_batch(str(folder), batch_id="b-links", follow_links=True,
                         return_state=True)
    rows = {r.file_name: r for r in ledger.jobs("b-links")}
    assert rows["outside.pdf"].status == Status.SUCCEEDED


def test_permission_denied_is_an_unreadable_source() -> None:
    # root reads any file, so a real permission error cannot be produced on every machine
    assert classify_source(PermissionError(13, "Permission denied")).reason \
        == Reason.UNREADABLE_SOURCE
    assert classify_source(ConnectionError("reset")).transient


def test_a_run_that_died_in_acceptance_is_resumed_by_listing_the_source_again(
        stmtflow_home: Path, tmp_path: Path, faults: Faults) -> None:
    folder = tmp_path / "inbox"
    samples = generate(folder, TEXT_BANKS, 5, seed=9)
    stored: list[str] = []

    def third_input_fails(path: str, data: bytes | None) -> None:
        if "/inputs/sha256/" in path and ".tmp-" in path:
            stored.append(path)
            if len(stored) == 3:
                raise ConnectionError("injected: storage gone during acceptance")

    faults.on_write.append(third_input_fails)
    state = import_batch(str(folder), batch_id="b-cut", return_state=True)
    assert state.is_failed()
    ledger = Settings.from_env().ledger()
    batch = ledger.batch("b-cut")
    assert batch is not None and batch.accepted_at is None
    assert len(ledger.jobs("b-cut")) == 2
    state = resume_batch("b-cut", return_state=True)
    assert state.name == "Completed", state.message
    rows = ledger.jobs("b-cut")
    assert sorted(r.file_name for r in rows) == sorted(s.pdf.name for s in samples)
    assert all(r.status == Status.SUCCEEDED and r.attempts == 1 for r in rows)
    batch = ledger.batch("b-cut")
    assert batch is not None and batch.accepted_at is not None


def test_a_stale_attempt_writes_nothing_a_success_names(
        stmtflow_home: Path, inbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")
    settings = Settings.from_env()
    sample = next(s for s in inbox.samples if s.reason is None)
    [accepted] = accept_batch(settings, "b-stale", [str(sample.pdf)], None)
    now = [settings.clock()]
    ledger = Ledger(settings.engine(), lease=timedelta(minutes=1), clock=lambda: now[0])
    base = Worker.from_settings(settings)
    worker = Worker(ledger, base.storage, base.parse, base.identities, lambda _: None)
    stale = ledger.claim(accepted.job_id, "host:1:stale")
    assert stale is not None
    now[0] += timedelta(minutes=2)
    assert ledger.reclaim() == [accepted.job_id]
    done = process_job(worker, accepted.job_id)
    assert done.status == Status.SUCCEEDED and done.attempts == 2
    with pytest.raises(LeaseLost):
        _run(worker, stale)  # the stale attempt wakes up and runs to its end
    after = ledger.job(accepted.job_id)
    assert after == done
    checked = check_outputs([after], settings.storage())
    assert checked["ok"] and checked["checked"] == 1
    assert settings.storage().digest_of(after.output_uri) == after.output_digest
