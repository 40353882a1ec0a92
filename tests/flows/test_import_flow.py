"""The import flow end to end on real Prefect, real files and a real ledger."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from faults import Faults, failure_not_recorded, first_upload_fails, input_read_fails

from corpus import Sample
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch
from flows.jobs import accept_batch
from parsers.codes import ErrorClass, Outcome, Reason, Status
from reconcile.records import Job
from reconcile.storage import sha256


def run(source: str | list[str], batch_id: str, **kw):
    return import_batch(source, batch_id=batch_id, return_state=True, **kw)


def outputs_match_truth(settings: Settings, rows: list[Job], samples: list[Sample]) -> None:
    storage = settings.storage()
    truth = {sha256(s.pdf.read_bytes()): json.loads(s.truth.read_text()) for s in samples}
    for r in rows:
        doc = json.loads(storage.read(r.output_uri))
        read = {"bank": doc["bank"], "accounts": [
            {**a, "transactions": [{k: v for k, v in t.items() if k != "txn_id"}
                                   for t in a["transactions"]]} for a in doc["accounts"]]}
        assert read == truth[r.sha256], r.source_uri
        assert doc["validation"]["ok"] and doc["input_sha256"] == r.sha256
        assert storage.digest_of(r.output_uri) == r.output_digest
        csv = storage.read(r.output_uri.replace("statement.json", "transactions.csv"))
        count = sum(len(a["transactions"]) for a in doc["accounts"])
        assert len(csv.decode().strip().splitlines()) == count + 1


def test_batch_with_bad_files_completes_with_warnings(stmtflow_home: Path, inbox) -> None:
    folder, samples = inbox.folder, inbox.samples
    state = run(str(folder), "b-warn")
    assert state.is_completed() and state.name == WARNINGS
    settings = Settings.from_env()
    rows = settings.ledger().jobs("b-warn")
    assert len(rows) == len(samples)
    bad = {s.pdf.name: s.reason for s in samples if s.reason}
    for r in rows:
        if r.file_name in bad:
            assert (r.status, r.reason, r.attempts) == (Status.FAILED, bad[r.file_name], 1)
            assert r.error_class == ErrorClass.DETERMINISTIC
    good = [r for r in rows if r.status == Status.SUCCEEDED]
    assert len(good) == len(samples) - len(bad)
    outputs_match_truth(settings, good, samples)
    # the input stays in storage, even for a file that failed
    for r in rows:
        assert settings.storage().digest_of(r.input_uri) == r.sha256


def test_clean_batch_is_plain_completed(stmtflow_home: Path, inbox) -> None:
    samples = inbox.samples
    good = [str(s.pdf) for s in samples if s.reason is None]
    state = run(good, "b-clean")
    assert state.is_completed() and state.name == "Completed"


def test_transient_errors_retry_to_three_attempts(stmtflow_home: Path, inbox, task_runs,
                                                  faults: Faults) -> None:
    samples = inbox.samples
    good = [str(s.pdf) for s in samples if s.reason is None]
    accept_batch(Settings.from_env(), "b-flaky", good, None)
    faults.input_reads.clear()  # count the reads of attempts, not acceptance's read-back
    cured, doomed = [sha256(s.pdf.read_bytes()) for s in samples if s.reason is None][:2]
    timeout = lambda: TimeoutError("injected read timeout")  # noqa: E731
    faults.on_read += [input_read_fails({doomed}, timeout),
                       input_read_fails({cured}, timeout, times=2)]
    state = run(good, "b-flaky")
    assert state.name == WARNINGS
    rows = {r.sha256: r for r in Settings.from_env().ledger().jobs("b-flaky")}
    assert (rows[cured].status, rows[cured].attempts) == (Status.SUCCEEDED, 3)
    assert (rows[doomed].status, rows[doomed].attempts, rows[doomed].reason) == (
        Status.FAILED, 3, Reason.RETRIES_EXHAUSTED)
    others = [r for k, r in rows.items() if k not in (cured, doomed)]
    assert all(r.status == Status.SUCCEEDED and r.attempts == 1 for r in others)
    assert faults.input_reads[cured] == 3 and faults.input_reads[doomed] == 3
    ledger = Settings.from_env().ledger()
    assert [a.outcome for a in ledger.attempts(rows[cured].job_id)] == [
        Outcome.RETRY, Outcome.RETRY, Outcome.SUCCEEDED]
    # one task run per job, run as often as the ledger counts attempts, each attempt naming it
    runs = {str(t.id): t.run_count for t in task_runs(state)}
    for r in rows.values():
        [run_id] = {a.task_run_id for a in ledger.attempts(r.job_id)}
        assert runs[run_id] == r.attempts


def test_task_failure_the_ledger_never_saw_is_not_completed(stmtflow_home: Path, inbox,
                                                            faults: Faults) -> None:
    good = [s for s in inbox.samples if s.reason is None][:3]
    settings = Settings.from_env()
    target, *_ = accept_batch(settings, "b-unseen", [str(s.pdf) for s in good], None)
    faults.on_read.append(input_read_fails({sha256(good[0].pdf.read_bytes())},
                                           lambda: TimeoutError("injected")))
    with failure_not_recorded(settings.engine(), target.job_id):
        state = run([str(s.pdf) for s in good], "b-unseen")
    assert not state.is_completed()
    rows = settings.ledger().jobs("b-unseen")
    stuck = [r for r in rows if r.status == Status.PROCESSING]
    assert [r.job_id for r in stuck] == [target.job_id] and target.job_id in state.message


def test_output_upload_fails_once_then_succeeds(stmtflow_home: Path, inbox,
                                               faults: Faults) -> None:
    sample = next(s for s in inbox.samples if s.reason is None)
    faults.on_write.append(first_upload_fails())
    state = run(str(sample.pdf), "b-upload")
    assert state.name == "Completed"
    ledger = Settings.from_env().ledger()
    [row] = ledger.jobs("b-upload")
    assert (row.status, row.attempts) == (Status.SUCCEEDED, 2)
    assert [a.reason for a in ledger.attempts(row.job_id)] == [Reason.CONNECTION, None]
    doc = json.loads(Settings.from_env().storage().read(row.output_uri))
    assert doc["pinned"] == dataclasses.asdict(row.identities)
    storage = Settings.from_env().storage()
    # the objects the success names are under the key of the attempt that succeeded
    attempt = storage.key(row.output_uri).rsplit("/", 1)[0]
    assert attempt.startswith(f"results/{row.job_id}/2-")
    listed = storage.fs.ls(storage.path(attempt), detail=False)
    assert len(listed) == 3  # one set of outputs, no temporaries


def test_chain_mismatch_is_refused(stmtflow_home: Path, inbox) -> None:
    from sqlalchemy import update

    from flows.jobs import accept_batch
    from reconcile.db import jobs

    samples = inbox.samples
    sample = next(s for s in samples if s.reason is None)
    settings = Settings.from_env()
    [accepted] = accept_batch(settings, "b-chain", [str(sample.pdf)], None)
    with settings.engine().begin() as c:
        c.execute(update(jobs).where(jobs.c.job_id == accepted.job_id)
                  .values(chain_revision="an-older-parser"))
    state = run(str(sample.pdf), "b-chain")
    assert state.name == WARNINGS
    row = settings.ledger().job(accepted.job_id)
    assert (row.status, row.reason, row.attempts) == (Status.FAILED, Reason.CHAIN_MISMATCH, 1)


def test_stored_input_that_changed_fails_as_corrupt_without_retry(stmtflow_home: Path,
                                                                  inbox) -> None:
    sample = next(s for s in inbox.samples if s.reason is None)
    settings = Settings.from_env()
    [accepted] = accept_batch(settings, "b-rot", [str(sample.pdf)], None)
    storage = settings.storage()
    job = settings.ledger().job(accepted.job_id)
    storage.fs.pipe_file(storage.path(storage.key(job.input_uri)), b"%PDF-1.4 bit rot\n%%EOF")
    state = run(str(sample.pdf), "b-rot")
    assert state.name == WARNINGS
    row = settings.ledger().job(accepted.job_id)
    assert (row.status, row.error_class, row.reason, row.attempts) == (
        Status.FAILED, ErrorClass.DETERMINISTIC, Reason.INPUT_CORRUPT, 1)


def test_import_on_s3_and_postgresql(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     inbox, s3_endpoint: str, s3_bucket: str,
                                     postgres_url: str) -> None:
    import s3fs

    samples = inbox.samples
    monkeypatch.setenv("STMTFLOW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STMTFLOW_DATABASE_URL", postgres_url)
    monkeypatch.setenv("STMTFLOW_STORAGE", f"{s3_bucket}/stmtflow")
    monkeypatch.setenv("STMTFLOW_S3_ENDPOINT", s3_endpoint)
    fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": s3_endpoint}, skip_instance_cache=True)
    for s in samples:
        fs.pipe_file(f"{s3_bucket[5:]}/inbox/northwind/{s.pdf.name}", s.pdf.read_bytes())
    state = run(f"{s3_bucket}/inbox/northwind/", "b-s3")
    assert state.name == WARNINGS
    settings = Settings.from_env()
    rows = settings.ledger().jobs("b-s3")
    assert len(rows) == len(samples)
    assert all(r.input_uri.startswith("s3://") for r in rows)
    good = [r for r in rows if r.status == Status.SUCCEEDED]
    assert len(good) == sum(1 for s in samples if s.reason is None)
    outputs_match_truth(settings, good, samples)


def test_ui_names_carry_no_account_numbers(stmtflow_home: Path, inbox, tmp_path: Path,
                                           task_runs) -> None:
    sample = next(s for s in inbox.samples if s.reason is None)
    named = tmp_path / "statement_0012345678.pdf"
    named.write_bytes(sample.pdf.read_bytes())
    state = run(str(named), "b-names")
    [job] = Settings.from_env().ledger().jobs("b-names")
    [task_run] = task_runs(state)
    assert task_run.name == f"parse statement_****5678.pdf [{job.job_id}]"
    [attempt] = Settings.from_env().ledger().attempts(job.job_id)
    assert attempt.task_run_id == str(task_run.id)

