"""The output check reads an object again only when its listing changed, on a local folder
and on S3, with its stamps on either database; the book still gets every new statement."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from parsers.codes import Status
from reconcile.db import make_engine, output_stamps
from reconcile.ledger import Claim, Ledger
from reconcile.output_checks import OutputPass, check_outputs
from reconcile.records import Identities, Job
from reconcile.storage import Storage, sha256

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def succeeded(storage: Storage, n: int) -> Job:
    files = {"statement.json": json.dumps({"n": n}).encode(), "transactions.csv": b"a,b\n"}
    prefix = f"results/j-{n}/1-abcd"
    digests = storage.write_outputs(prefix, files, token="t")
    return Job(f"j-{n}", "b-1", f"/in/{n}.pdf", "/i", 1, "0" * 64, T0, T0, "c", "o", "p",
               Status.SUCCEEDED, attempts=1, output_uri=storage.uri(f"{prefix}/statement.json"),
               output_digest=digests["statement.json"], outputs=digests, finished_at=T0)


def rewrite(storage: Storage, uri: str, data: bytes) -> None:
    storage.fs.pipe_file(storage.path(storage.key(uri)), data)
    storage.fs.invalidate_cache()


def test_a_pass_reads_only_objects_whose_listing_changed(storage: Storage,
                                                         database_url: str) -> None:
    engine = make_engine(database_url)
    jobs = [succeeded(storage, n) for n in range(3)]
    assert len(OutputPass(storage, engine).listing) == 6
    assert check_outputs(jobs, storage, engine)["ok"]
    steady = OutputPass(storage, engine)
    found = [f for part in steady.read(jobs) for f in part]
    assert steady.read_objects == 0
    assert [f.statement_digest for f in found] == [j.output_digest for j in jobs]
    # the same size, other bytes: a new stamp, so it is read and found to differ
    rewrite(storage, jobs[1].output_uri or "", json.dumps({"n": 7}).encode())
    storage.fs.rm(storage.path(storage.key(f"{jobs[2].output_uri.rsplit('/', 1)[0]}"
                                           "/transactions.csv")))
    result = check_outputs(jobs, storage, engine)
    assert result["digest_mismatch"] == [{"job_id": "j-1", "object": "statement.json"}]
    assert result["missing_object"] == [{"job_id": "j-2", "object": "transactions.csv"}]
    assert not result["ok"]
    again = OutputPass(storage, engine)
    checked = [f for part in again.read(jobs) for f in part]
    assert again.read_objects == 0, "the changed object's new stamp was remembered"
    assert checked[1].digests["statement.json"] == sha256(json.dumps({"n": 7}).encode())


def test_a_statement_is_read_whenever_it_is_wanted(storage: Storage,
                                                   database_url: str) -> None:
    engine = make_engine(database_url)
    jobs = [succeeded(storage, n) for n in range(2)]
    check_outputs(jobs, storage, engine)
    listed = OutputPass(storage, engine)
    found = [f for part in listed.read(jobs, lambda job, digest: job.job_id == "j-1")
             for f in part]
    assert [f.statement is not None for f in found] == [False, True]
    assert json.loads(found[1].statement or b"") == {"n": 1}
    assert listed.read_objects == 1


def test_objects_without_a_record_are_named_by_job(storage: Storage) -> None:
    jobs = [succeeded(storage, 0)]
    storage.put("results/j-nobody/statement.json", b"{}")
    assert check_outputs(jobs, storage)["object_without_record"] == ["j-nobody"]


def imported(storage: Storage, ledger: Ledger, n: int) -> Job:
    """A job succeeded as an import finishes one: its objects written, stamped, recorded."""
    ledger.open_batch("b-1", "test", None)
    job = ledger.accept("b-1", source_uri=f"/in/{n}.pdf", input_uri=f"/i/{n}", size=1,
                        sha256=f"{n:064x}", bank_hint=None, ids=Identities("c", "o", "p"),
                        queue_limit=timedelta(hours=1))
    claim = ledger.claim(job.job_id, "w")
    assert claim is not None
    written = storage.write_stamped(f"results/{job.job_id}/1-abcd", {
        "statement.json": json.dumps({"n": n}).encode(), "transactions.csv": b"a,b\n"}, "t")
    digests = {name: w.sha256 for name, w in written.items()}
    record = ledger.succeed(claim, output_uri=written["statement.json"].uri,
                            output_digest=digests["statement.json"], outputs=digests,
                            needs_review=False, bank="x", account_last4="1234",
                            transactions=0, stamps=list(written.values()))
    assert record is not None
    return record


def test_the_stamps_an_import_records_let_the_first_pass_vouch(storage: Storage,
                                                               database_url: str) -> None:
    """The import's stamps are a pass's own evidence: the first pass reads nothing it need
    not, and an object changed after the import is read again and found to differ."""
    ledger = Ledger(make_engine(database_url))
    jobs = [imported(storage, ledger, n) for n in range(3)]
    with ledger.engine.connect() as c:
        assert c.execute(select(func.count()).select_from(output_stamps)).scalar() == 6
    first = OutputPass(storage, ledger.engine)
    found = [f for part in first.read(jobs) for f in part]
    assert first.read_objects == 0
    assert [f.statement_digest for f in found] == [j.output_digest for j in jobs]
    # the same size, other bytes, after the import: read again, and caught
    rewrite(storage, jobs[1].output_uri or "", json.dumps({"n": 7}).encode())
    result = check_outputs(jobs, storage, ledger.engine)
    assert result["digest_mismatch"] == [{"job_id": jobs[1].job_id,
                                          "object": "statement.json"}]
    assert not result["ok"]


def test_a_success_that_lost_its_claim_records_no_stamps(storage: Storage,
                                                         database_url: str) -> None:
    """A stale attempt (its job already succeeded) commits nothing, its stamps included."""
    ledger = Ledger(make_engine(database_url))
    job = imported(storage, ledger, 0)
    written = storage.write_stamped(f"results/{job.job_id}/2-ef01",
                                    {"statement.json": b"{}"}, "t")
    assert ledger.succeed(Claim(job.job_id, "w", 1, None), output_uri="x", output_digest="d",
                          outputs={}, needs_review=False, bank="x", account_last4="1234",
                          transactions=0, stamps=list(written.values())) is None
    with ledger.engine.connect() as c:
        uris = set(c.execute(select(output_stamps.c.uri)).scalars())
    assert written["statement.json"].uri not in uris and len(uris) == 2
