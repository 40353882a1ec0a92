"""The import flow end to end on real Prefect, real files and a real ledger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import Sample
from flows import jobs as jobs_module
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch, job_id_of
from reconcile.storage import sha256


def run(source: str | list[str], batch_id: str, **kw):
    return import_batch(source, batch_id=batch_id, return_state=True, **kw)


def outputs_match_truth(settings: Settings, rows: list[dict], samples: list[Sample]) -> None:
    storage = settings.storage()
    truth = {sha256(s.pdf.read_bytes()): json.loads(s.truth.read_text()) for s in samples}
    for r in rows:
        doc = json.loads(storage.read(r["output_uri"]))
        assert {k: doc[k] for k in ("bank", "accounts")} == truth[r["sha256"]], r["source_uri"]
        assert doc["validation"]["ok"] and doc["job_id"] == r["job_id"]
        assert storage.digest_of(r["output_uri"]) == r["output_digest"]
        csv = storage.read(r["output_uri"].replace("statement.json", "transactions.csv"))
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
        name = r["source_uri"].rsplit("/", 1)[-1]
        if name in bad:
            assert (r["status"], r["reason"], r["attempts"]) == ("FAILED", bad[name], 1)
            assert r["error_class"] == "deterministic"
    good = [r for r in rows if r["status"] == "SUCCEEDED"]
    assert len(good) == len(samples) - len(bad)
    outputs_match_truth(settings, good, samples)
    # the input stays in storage, even for a file that failed
    for r in rows:
        assert settings.storage().digest_of(r["input_uri"]) == r["sha256"]


def test_clean_batch_is_plain_completed(stmtflow_home: Path, inbox) -> None:
    samples = inbox.samples
    good = [str(s.pdf) for s in samples if s.reason is None]
    state = run(good, "b-clean")
    assert state.is_completed() and state.name == "Completed"


def test_transient_errors_retry_to_three_attempts(stmtflow_home: Path, inbox, task_runs,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    samples = inbox.samples
    good = [s for s in samples if s.reason is None]
    cured, doomed = sha256(good[0].pdf.read_bytes()), sha256(good[1].pdf.read_bytes())
    calls: dict[str, int] = {}
    real = jobs_module.parse_pdf

    def flaky(data: bytes, **kw):
        key = sha256(data)
        calls[key] = calls.get(key, 0) + 1
        if key == doomed or (key == cured and calls[key] <= 2):
            raise TimeoutError("injected read timeout")
        return real(data, **kw)

    monkeypatch.setattr(jobs_module, "parse_pdf", flaky)
    state = run([str(s.pdf) for s in good], "b-flaky")
    assert state.name == WARNINGS
    rows = {r["sha256"]: r for r in Settings.from_env().ledger().jobs("b-flaky")}
    assert (rows[cured]["status"], rows[cured]["attempts"]) == ("SUCCEEDED", 3)
    assert (rows[doomed]["status"], rows[doomed]["attempts"], rows[doomed]["reason"]) == (
        "FAILED", 3, "retries_exhausted")
    others = [r for k, r in rows.items() if k not in (cured, doomed)]
    assert all(r["status"] == "SUCCEEDED" and r["attempts"] == 1 for r in others)
    assert calls[cured] == 3 and calls[doomed] == 3
    ledger = Settings.from_env().ledger()
    assert [a["outcome"] for a in ledger.attempts(rows[cured]["job_id"])] == [
        "retry", "retry", "succeeded"]
    counts = {job_id_of(t.name): t.run_count for t in task_runs(state)}
    assert counts == {r["job_id"]: r["attempts"] for r in rows.values()}


def test_task_failure_the_ledger_never_saw_is_not_completed(
        stmtflow_home: Path, inbox, monkeypatch: pytest.MonkeyPatch) -> None:
    samples = inbox.samples
    good = [s for s in samples if s.reason is None][:3]
    target = sha256(good[0].pdf.read_bytes())
    real = jobs_module.parse_pdf

    def crash(data: bytes, **kw):
        if sha256(data) == target:
            raise TimeoutError("injected")
        return real(data, **kw)

    def ledger_unreachable(*args, **kw):
        raise ConnectionError("ledger unreachable while recording the failure")

    monkeypatch.setattr(jobs_module, "parse_pdf", crash)
    monkeypatch.setattr(jobs_module, "_record_failure", ledger_unreachable)
    state = run([str(s.pdf) for s in good], "b-unseen")
    assert not state.is_completed()
    rows = Settings.from_env().ledger().jobs("b-unseen")
    stuck = [r for r in rows if r["status"] == "PROCESSING"]
    assert len(stuck) == 1 and stuck[0]["job_id"] in state.message


def test_output_upload_fails_once_then_succeeds(stmtflow_home: Path, inbox,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from reconcile.storage import Storage

    samples = inbox.samples
    sample = next(s for s in samples if s.reason is None)
    real = Storage.write_outputs
    failures = []

    def upload(self, prefix, files, token):
        if not failures:
            failures.append(token)
            raise ConnectionError("injected: upload connection reset")
        return real(self, prefix, files, token)

    monkeypatch.setattr(Storage, "write_outputs", upload)
    state = run(str(sample.pdf), "b-upload")
    assert state.name == "Completed"
    ledger = Settings.from_env().ledger()
    [row] = ledger.jobs("b-upload")
    assert (row["status"], row["attempts"]) == ("SUCCEEDED", 2)
    assert [a["reason"] for a in ledger.attempts(row["job_id"])] == ["connection", None]
    doc = json.loads(Settings.from_env().storage().read(row["output_uri"]))
    assert doc["pinned"] == {k: row[k] for k in ("chain_revision", "ocr_engine",
                                                 "policy_revision")}
    storage = Settings.from_env().storage()
    listed = storage.fs.ls(f"{storage.root}/results/{row['job_id']}", detail=False)
    assert len(listed) == 3  # one set of outputs, no temporaries


def test_chain_mismatch_is_refused(stmtflow_home: Path, inbox) -> None:
    from sqlalchemy import update

    from flows.jobs import accept_batch
    from reconcile.db import jobs

    samples = inbox.samples
    sample = next(s for s in samples if s.reason is None)
    settings = Settings.from_env()
    [accepted] = accept_batch(settings, "b-chain", [str(sample.pdf)], None)
    with settings.ledger().engine.begin() as c:
        c.execute(update(jobs).where(jobs.c.job_id == accepted.job_id)
                  .values(chain_revision="an-older-parser"))
    state = run(str(sample.pdf), "b-chain")
    assert state.name == WARNINGS
    row = settings.ledger().job(accepted.job_id)
    assert (row["status"], row["reason"], row["attempts"]) == ("FAILED", "chain_mismatch", 1)


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
    assert all(r["input_uri"].startswith("s3://") for r in rows)
    good = [r for r in rows if r["status"] == "SUCCEEDED"]
    assert len(good) == sum(1 for s in samples if s.reason is None)
    outputs_match_truth(settings, good, samples)


def test_ui_names_carry_no_account_numbers(stmtflow_home: Path, inbox, tmp_path: Path,
                                           task_runs) -> None:
    sample = next(s for s in inbox.samples if s.reason is None)
    named = tmp_path / "statement_0012345678.pdf"
    named.write_bytes(sample.pdf.read_bytes())
    state = run(str(named), "b-names")
    [job] = Settings.from_env().ledger().jobs("b-names")
    assert [t.name for t in task_runs(state)] == [f"parse statement_****5678.pdf [{job['job_id']}]"]

