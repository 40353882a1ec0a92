"""Rerunning failed work, and the Dask task runner, on the real Prefect server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faults import Faults, input_read_fails

from corpus import generate
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch
from flows.jobs import accept_batch
from flows.rerun_flow import rerun_failed
from parsers.codes import Reason, Status
from parsers.identity import engine_identity
from parsers.ocr.tesseract import FIRST
from reconcile.storage import sha256


def test_rerun_failed_reruns_only_what_failed_with_pinned_identities(
        stmtflow_home: Path, inbox, faults: Faults) -> None:
    good = [s for s in inbox.samples if s.reason is None]
    doomed = {sha256(s.pdf.read_bytes()) for s in good[:2]}
    accept_batch(Settings.from_env(), "b-orig", [str(inbox.folder)], None)
    outage = input_read_fails(doomed, lambda: TimeoutError("injected: storage read timed out"))
    faults.on_read.append(outage)
    state = import_batch(str(inbox.folder), batch_id="b-orig", return_state=True)
    assert state.name == WARNINGS
    ledger = Settings.from_env().ledger()
    original = {j.sha256: j for j in ledger.jobs("b-orig")}
    assert all(original[d].reason == Reason.RETRIES_EXHAUSTED for d in doomed)

    faults.on_read.remove(outage)  # the outage is over
    before = dict(faults.input_reads)
    rerun = rerun_failed("b-orig", return_state=True)
    assert rerun.is_completed()
    [rerun_batch] = ledger.rerun_batches("b-orig")
    reruns = ledger.jobs(rerun_batch)
    assert {j.sha256 for j in reruns} == doomed  # not the bad files, not the good ones
    for j in reruns:
        old = original[j.sha256]
        assert (j.status, j.attempts, j.rerun_of) == (Status.SUCCEEDED, 1, old.job_id)
        assert j.identities == old.identities
    reads = faults.input_reads
    assert {k: reads[k] - before.get(k, 0) for k in reads
            if reads[k] != before.get(k, 0)} == dict.fromkeys(doomed, 1)
    # the old terminal records are as they were
    assert all(ledger.job(original[d].job_id).status == Status.FAILED for d in doomed)
    # a second rerun finds nothing to do and reads nothing
    after = dict(reads)
    assert rerun_failed("b-orig", return_state=True).is_completed()
    assert reads == after
    assert len(ledger.rerun_batches("b-orig")) == 1


def test_rerun_with_current_identities_refreshes_the_pins(stmtflow_home: Path, inbox) -> None:
    from sqlalchemy import update

    from reconcile.db import jobs

    sample = next(s for s in inbox.samples if s.reason is None)
    settings = Settings.from_env()
    ledger = settings.ledger()
    [accepted] = accept_batch(settings, "b-old", [str(sample.pdf)], None)
    with ledger.engine.begin() as c:  # accepted under an older parser than this worker's
        c.execute(update(jobs).where(jobs.c.job_id == accepted.job_id).values(
            chain_revision="older-parser"))
    import_batch(str(sample.pdf), batch_id="b-old", return_state=True)
    assert ledger.job(accepted.job_id).reason == Reason.CHAIN_MISMATCH
    # a deterministic failure is not rerun unless asked for
    assert rerun_failed("b-old", return_state=True).is_completed()
    assert ledger.rerun_batches("b-old") == []
    # a rerun keeps the old pins by default, and is refused again
    rerun_failed("b-old", include_deterministic=True, return_state=True)
    [pinned] = ledger.jobs("b-old-r1")
    assert (pinned.status, pinned.reason, pinned.chain_revision) == (
        Status.FAILED, Reason.CHAIN_MISMATCH, "older-parser")
    # asked for the current identities, it runs on this worker's parser and succeeds
    rerun_failed("b-old", current_identities=True, include_deterministic=True,
                 return_state=True)
    [fresh] = ledger.jobs("b-old-r2")
    assert fresh.status == Status.SUCCEEDED and fresh.rerun_of == pinned.job_id
    assert fresh.chain_revision != "older-parser"


def test_dask_runner_gives_the_same_ledger_and_outputs(stmtflow_home: Path, inbox,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import PREFECT_API_URL
    from prefect_dask import DaskTaskRunner

    # Dask worker processes read Prefect's API address from the environment
    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))
    threads = import_batch(str(inbox.folder), batch_id="b-threads", return_state=True)
    threads_settings = Settings.from_env()
    # a second data directory: in the first, the same bytes would be duplicates, not parsed
    monkeypatch.setenv("STMTFLOW_HOME", str(stmtflow_home.with_name("home-dask")))
    dask = import_batch.with_options(task_runner=DaskTaskRunner(cluster_kwargs={
        "n_workers": 2, "threads_per_worker": 1, "processes": True})
    )(str(inbox.folder), batch_id="b-dask", return_state=True)
    assert threads.name == dask.name == WARNINGS

    def outcome(batch: str) -> dict:
        settings = threads_settings if batch == "b-threads" else Settings.from_env()
        storage = settings.storage()
        out = {}
        for j in settings.ledger().jobs(batch):
            doc = json.loads(storage.read(j.output_uri)) if j.output_uri else None
            out[j.sha256] = (j.status, j.attempts, j.reason, j.needs_review,
                             doc and {k: doc[k] for k in ("bank", "accounts", "validation")})
        return out

    assert outcome("b-dask") == outcome("b-threads")


def test_rerunning_a_batch_takes_finished_files_from_persisted_results(
        stmtflow_home: Path, inbox, faults: Faults, task_runs) -> None:
    first = import_batch(str(inbox.folder), return_state=True)
    run_id = str(first.state_details.flow_run_id).replace("-", "")
    batch_id = f"b-{run_id[:16]}"  # named after the flow run, so a Retry resumes it
    ledger = Settings.from_env().ledger()
    assert len(ledger.jobs(batch_id)) == len(inbox.samples)
    read = sum(faults.input_reads.values())
    again = import_batch(str(inbox.folder), batch_id=batch_id, return_state=True)
    assert again.name == first.name
    assert sum(faults.input_reads.values()) == read  # nothing read, so nothing parsed, twice
    states = [t.state.name for t in task_runs(again)]
    good = sum(1 for s in inbox.samples if s.reason is None)
    assert sorted(states).count("Cached") == good
    assert all(j.attempts == 1 for j in ledger.jobs(batch_id))



def test_a_scan_failed_for_want_of_tesseract_reruns_once_it_is_installed(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without tesseract pins no OCR engine (`tesseract:unavailable`) and fails a
    scan with `ocr_unavailable`, not `input_missing`; once it is installed, a plain rerun
    reads the scan under the engine now there (the old pin no worker could ever meet)."""
    [scan] = generate(tmp_path / "in", ("meridian",), 1, seed=5)
    monkeypatch.setenv("STMTFLOW_PARSE_WORKERS", "0")  # parsed here, under this PATH
    ledger = Settings.from_env().ledger()
    with monkeypatch.context() as bare:
        bare.setenv("PATH", str(tmp_path / "no-tesseract-here"))
        engine_identity.cache_clear()
        FIRST.close()
        import_batch(str(scan.pdf), batch_id="b-bare", return_state=True)
    engine_identity.cache_clear()
    [failed] = ledger.jobs("b-bare")
    assert (failed.status, failed.reason, failed.ocr_engine) == (
        Status.FAILED, Reason.OCR_UNAVAILABLE, "tesseract:unavailable")
    assert "apt-get install tesseract-ocr" in (failed.message or "")
    rerun_failed("b-bare", include_deterministic=True, return_state=True)
    [again] = ledger.jobs("b-bare-r1")
    assert (again.status, again.reason) == (Status.SUCCEEDED, None)
    assert again.ocr_engine == engine_identity() != failed.ocr_engine
