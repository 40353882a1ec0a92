"""The output check reads an object again only when its listing changed, on a local folder
and on S3, with its stamps on either database; the book still gets every new statement."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from parsers.codes import Status
from reconcile.db import make_engine
from reconcile.outputs import OutputPass, check_outputs
from reconcile.records import Job
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
