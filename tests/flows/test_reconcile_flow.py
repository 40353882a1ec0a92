"""The reconciliation flow: the defining scenario of job accounting, on real components."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from uuid import UUID

import pytest
from faults import Faults, first_upload_fails
from prefect.utilities.asyncutils import run_coro_as_sync
from sqlalchemy import select
from test_review_flow import misprint  # a statement that reads but does not reconcile

from corpus import generate
from flows.config import Settings
from flows.import_flow import import_batch
from flows.jobs import accept_batch
from flows.reconcile_flow import completed_tasks, read_task_runs, reconcile
from flows.recover import sweep_and_notify
from parsers.codes import Status
from reconcile.book import Book, Delivery
from reconcile.db import output_stamps
from reconcile.investigations import Investigations
from reconcile.records import utc_now
from reconcile.report import alerts, to_markdown
from reconcile.storage import sha256

#: The fourth job's queue-age limit: it is still queued at the first reconciliation.
QUEUE_LIMIT = timedelta(hours=1)


def later(settings: Settings, by: timedelta) -> Settings:
    """The same settings with a clock `by` ahead: what a sweep at that time does."""
    return replace(settings, clock=lambda: utc_now() + by)


class Receiver:
    """A webhook endpoint on loopback that drops every notification for chosen jobs."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.drop: set[str] = set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                dropped = body["job_id"] in outer.drop
                if not dropped:
                    outer.received.append(body)
                self.send_response(503 if dropped else 204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    r = Receiver()
    monkeypatch.setenv("STMTFLOW_WEBHOOK_URL", r.url)
    yield r
    r.server.shutdown()


def test_defining_scenario(stmtflow_home: Path, tmp_path: Path, receiver: Receiver,
                           faults: Faults) -> None:
    scan = misprint(tmp_path / "a", seed=14)  # reads, does not reconcile
    plain = generate(tmp_path / "b", ("northwind",), 1, seed=6)[0]
    retried = generate(tmp_path / "c", ("bluebird",), 1, seed=7)[0]
    late = generate(tmp_path / "d", ("harbor",), 1, seed=8)[0]

    # the fourth job is accepted with a shorter queue-age limit and never processed
    settings = Settings.from_env()
    [d] = accept_batch(replace(settings, queue_limit=QUEUE_LIMIT), "b-late", [str(late.pdf)],
                       None)
    a, b, c = accept_batch(settings, "b-main", [str(scan.pdf), str(plain.pdf),
                                                str(retried.pdf)], None)
    receiver.drop.add(b.job_id)
    faults.on_write.append(first_upload_fails(f"/results/{c.job_id}/"))

    state = import_batch([str(scan.pdf), str(plain.pdf), str(retried.pdf)], batch_id="b-main",
                         return_state=True)
    assert state.is_completed()
    ledger = settings.ledger()
    jobs = {j.job_id: j for j in ledger.jobs()}
    assert jobs[a.job_id].needs_review, "the misprinted statement must need review"
    assert (jobs[b.job_id].status, jobs[b.job_id].attempts) == (Status.SUCCEEDED, 1)
    assert (jobs[c.job_id].status, jobs[c.job_id].attempts) == (Status.SUCCEEDED, 2)
    assert jobs[c.job_id].identities == jobs[a.job_id].identities

    # while the fourth job is queued: investigate, with it listed and nothing folded away
    first = reconcile()
    assert first["state"] == "investigate"
    assert [u["job_id"] for u in first["unresolved"]] == [d.job_id]
    assert first["unresolved"][0]["investigation"]["owner"] is None
    assert first["counts"]["unresolved"] == 1 and first["counts"]["accepted"] == 4

    # deliver one success twice: taken in once, one review
    book = Book(ledger.engine)
    out = settings.storage().read(jobs[a.job_id].output_uri)
    delivery = Delivery(a.job_id, jobs[a.job_id].sha256, sha256(out), json.loads(out))
    assert book.consume(delivery) == "duplicate"

    # one job's output changes after it was consumed: quarantined, never replaced
    changed = json.loads(out)
    changed["layout"] = "a later attempt read it differently"
    written = settings.storage().key(jobs[a.job_id].output_uri).rsplit("/", 1)[0]
    settings.storage().write_outputs(written, {"statement.json": json.dumps(changed).encode()},
                                     "late")

    # two hours on, a sweep expires the fourth job (and notifies it)
    assert sweep_and_notify(later(settings, 2 * QUEUE_LIMIT)).expired == [d.job_id]
    final = reconcile()
    assert final["state"] == "accounted"
    assert final["unresolved"] == []
    assert final["counts"] == {
        "accepted": 4, "terminal": 4, "succeeded": 3, "failed": 0, "failed_deterministic": 0,
        "failed_exhausted": 0, "expired": 1, "duplicates": 0, "refused_at_acceptance": 0,
        "retried": 1, "unresolved": 0, "needs_review": 1, "reruns": 0,
        "abandoned": 0}
    consumer = final["consumer"]
    assert (consumer["imported"], consumer["held"], consumer["duplicates_suppressed"],
            consumer["quarantined"], consumer["reviews"]) == (2, 1, 1, 1, 1)
    assert final["reviews"]["counts"] == {"open": 1, "accepted": 0, "corrected": 0,
                                          "rejected": 0}
    assert [r["job_id"] for r in final["reviews"]["open"]] == [a.job_id]
    assert consumer["quarantine"][0]["decision_id"] == a.job_id
    assert [m["job_id"] for m in final["outputs"]["digest_mismatch"]] == [a.job_id]
    notes = final["notifications"]
    assert notes["pending"] == [{"job_id": b.job_id, "channel": "webhook"}]
    assert (notes["expected"], notes["delivered"]) == (8, 7)
    assert {r["job_id"] for r in receiver.received} == {a.job_id, c.job_id, d.job_id}
    assert final["time_to_completion"]["jobs"] == 4
    assert json.loads(settings.storage().read(final["report_uri"]))["state"] == "accounted"


def test_owned_investigation_accounts_for_an_unfinished_job(stmtflow_home: Path,
                                                           tmp_path: Path) -> None:
    sample = generate(tmp_path / "q", ("northwind",), 1, seed=3)[0]
    settings = Settings.from_env()
    [job] = accept_batch(settings, "b-q", [str(sample.pdf)], None)
    report = reconcile()
    assert report["state"] == "investigate"
    inv = report["unresolved"][0]["investigation"]
    investigations = Investigations(settings.ledger().engine)
    assert investigations.assign(inv["id"], "ana")
    assert reconcile()["state"] == "accounted"
    assert investigations.close(inv["id"], "reran it by hand")
    reopened = reconcile()
    assert reopened["state"] == "investigate"
    assert reopened["unresolved"][0]["investigation"]["id"] != inv["id"]
    assert reopened["unresolved"][0]["job_id"] == job.job_id


def test_missing_object_and_object_without_record_are_found(stmtflow_home: Path,
                                                            tmp_path: Path) -> None:
    samples = generate(tmp_path / "o", ("northwind",), 2, seed=4)
    import_batch([str(s.pdf) for s in samples], batch_id="b-o", return_state=True)
    settings = Settings.from_env()
    storage = settings.storage()
    first, second = settings.ledger().jobs("b-o")
    # each success recorded its objects' stamps: the first pass reads what the book wants
    prefix = (second.output_uri or "").rsplit("/", 1)[0]
    with settings.engine().connect() as c:
        stamped = dict(c.execute(select(output_stamps.c.uri, output_stamps.c.sha256)).all())
    assert {f"{prefix}/{n}": d for n, d in second.outputs.items()}.items() <= stamped.items()
    storage.fs.rm(storage.path(storage.key(first.output_uri)))
    storage.put("results/j-nobody/statement.json", b"{}")
    # changed after the import, the same size: its stamp differs, so it is read and caught
    csv = storage.path(storage.key(f"{prefix}/transactions.csv"))
    storage.fs.pipe_file(csv, storage.fs.cat_file(csv).swapcase())
    report = reconcile()
    assert report["outputs"]["missing_object"] == [
        {"job_id": first.job_id, "object": "statement.json"}]
    assert report["outputs"]["digest_mismatch"] == [
        {"job_id": second.job_id, "object": "transactions.csv"}]
    assert report["outputs"]["object_without_record"] == ["j-nobody"]
    assert report["outputs"]["ok"] is False
    assert second.job_id not in json.dumps(report["outputs"]["missing_object"])


def test_backlog_raises_an_alert(stmtflow_home: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    samples = generate(tmp_path / "q", ("northwind",), 2, seed=9)
    monkeypatch.setenv("STMTFLOW_CAPACITY", "1")
    accept_batch(Settings.from_env(), "b-backlog", [str(s.pdf) for s in samples], None)
    calm = reconcile()
    assert not calm["queue"]["near_expiry"] and calm["queue"]["over_capacity"]
    assert [name for name, _ in alerts(calm)] == ["backlog", "unresolved"]


def test_queue_age_raises_an_alert_before_the_limit(stmtflow_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    samples = generate(tmp_path / "q", ("northwind",), 2, seed=9)
    monkeypatch.setenv("STMTFLOW_QUEUE_LIMIT_HOURS", "1")
    monkeypatch.setenv("STMTFLOW_CAPACITY", "1")
    settings = Settings.from_env()
    # accepted 85 % of the queue-age limit ago: past the alert, not past the limit
    accept_batch(later(settings, -0.85 * settings.queue_limit), "b-old",
                 [str(s.pdf) for s in samples], None)
    late = reconcile()
    assert late["queue"]["near_expiry"] and late["counts"]["expired"] == 0
    assert [name for name, _ in alerts(late)][:2] == ["queue-age", "backlog"]


def test_reviews_waiting_too_long_raise_an_alert(stmtflow_home: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from test_review_flow import imported, misprint

    flagged = misprint(tmp_path / "r", seed=61)
    monkeypatch.setenv("STMTFLOW_REVIEW_ALERT_HOURS", "1")
    [review_id] = imported(Settings.from_env(), flagged.pdf)
    fresh = reconcile()
    assert fresh["reviews"]["overdue"] == [] and "review-age" not in dict(alerts(fresh))
    monkeypatch.setenv("STMTFLOW_REVIEW_ALERT_HOURS", "0")
    late = reconcile()
    assert late["reviews"]["overdue"] == [review_id]
    assert dict(alerts(late))["review-age"] == {
        "reviews": [review_id], "oldest_open_seconds": late["reviews"]["oldest_open_seconds"],
        "alert_seconds": 0.0}
    assert re.search(r"- reviews: 1 open \(oldest \d+\.\d h, 1 overdue\), 0 accepted",
                     to_markdown(late))


def test_task_runs_beyond_one_page_are_all_cross_checked(stmtflow_home: Path) -> None:
    from prefect import flow, task
    from prefect.runtime import task_run

    from reconcile.records import Identities

    @task
    def made(n: int) -> str:
        return str(task_run.id)

    @flow
    def attempts(n: int) -> list[str]:
        return [f.result() for f in made.map(range(n))]

    runs = attempts(7)
    settings = Settings.from_env()
    ledger = settings.ledger()
    ledger.open_batch("b-pages", "synthetic", None)
    jobs, claims = [], []
    for n, run_id in enumerate(runs):
        job = ledger.accept("b-pages", source_uri=f"/in/{n}.pdf", input_uri=f"/in/{n}.pdf",
                            size=1, sha256=f"{n:064x}", bank_hint=None,
                            ids=Identities("c", "o", "p"), queue_limit=QUEUE_LIMIT)
        claim = ledger.claim(job.job_id, "bench", run_id)
        assert claim is not None
        claims.append(claim)
        jobs.append(job.job_id)
    # one question for the seven ids, its answer read in pages of three (3 + 3 + 1)
    assert len(run_coro_as_sync(read_task_runs([UUID(r) for r in runs], page=3))) == 7
    assert completed_tasks(settings, page=3) == set(jobs)
    assert completed_tasks(settings, page=2) == completed_tasks(settings) == set(jobs)
    # a success cannot contradict its completed task run: it is not asked about
    assert ledger.succeed(claims[0], output_uri="/out", output_digest="d", outputs={},
                          needs_review=False, bank="x", account_last4="1234", transactions=0)
    assert completed_tasks(settings, page=3) == set(jobs[1:])


def test_a_batch_of_a_thousand_cross_checks_every_task_run(stmtflow_home: Path) -> None:
    """1,001 task runs: more than one question's worth of ids (`IDS`), each answer many of
    the server's full pages. They are made through the API in their final states (no task
    body runs), and the ledger's jobs and attempts are written in one insert each."""
    import asyncio

    from prefect import get_client, task
    from prefect.states import Completed, Failed
    from sqlalchemy import insert

    from flows.reconcile_flow import IDS, PAGE
    from reconcile.db import attempts, batches, jobs

    count = IDS + 1
    failed = set(range(0, count, 7))  # these runs did not complete

    @task
    def made() -> None:
        return None

    async def create() -> list[str]:
        gate = asyncio.Semaphore(4)  # SQLite takes one write at a time
        async with get_client() as client:
            async def one(n: int) -> str:
                async with gate:
                    run = await client.create_task_run(
                        made, flow_run_id=None, dynamic_key=str(n),
                        state=Failed() if n in failed else Completed())
                return str(run.id)
            return list(await asyncio.gather(*(one(n) for n in range(count))))

    runs = run_coro_as_sync(create())
    assert len(set(runs)) == count
    settings = Settings.from_env()
    ledger = settings.ledger()
    at = utc_now()
    job_ids = [f"j-{n:016x}" for n in range(count)]
    with ledger.engine.begin() as c:
        c.execute(insert(batches), [{"batch_id": "b-1000", "source": "synthetic",
                                     "created_at": at, "state": "processing"}])
        c.execute(insert(jobs), [{
            "job_id": j, "batch_id": "b-1000", "source_uri": f"/in/{n}.pdf",
            "input_uri": f"/in/{n}.pdf", "size": 1, "sha256": f"{n:064x}", "submitted_at": at,
            "expires_at": at + QUEUE_LIMIT, "chain_revision": "c", "ocr_engine": "o",
            "policy_revision": "p", "status": Status.PROCESSING, "attempts": 1}
            for n, j in enumerate(job_ids)])
        c.execute(insert(attempts), [{"job_id": j, "number": 1, "lease_owner": "w",
                                      "started_at": at, "task_run_id": r}
                                     for j, r in zip(job_ids, runs, strict=True)])
    assert count > IDS and count > 5 * PAGE
    read = run_coro_as_sync(read_task_runs([UUID(r) for r in runs]))
    assert sorted(str(t.id) for t in read) == sorted(runs)
    assert completed_tasks(settings) == {j for n, j in enumerate(job_ids) if n not in failed}
