"""The reconciliation flow: the defining scenario of job accounting, on real components."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from corpus import generate
from flows.config import Settings
from flows.import_flow import import_batch
from flows.jobs import accept_batch
from flows.reconcile_flow import reconcile
from reconcile.book import Book, Delivery
from reconcile.investigations import Investigations
from reconcile.storage import Storage, sha256

#: The fourth job's queue-age limit: long enough for the batch and a first reconciliation.
QUEUE_SECONDS = 20


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
                           monkeypatch: pytest.MonkeyPatch) -> None:
    scan = generate(tmp_path / "a", ("meridian",), 2, seed=5)[1]   # reads, needs review
    plain = generate(tmp_path / "b", ("northwind",), 1, seed=6)[0]
    retried = generate(tmp_path / "c", ("bluebird",), 1, seed=7)[0]
    late = generate(tmp_path / "d", ("harbor",), 1, seed=8)[0]

    # the fourth job is accepted with a short queue-age limit and never processed
    monkeypatch.setenv("STMTFLOW_QUEUE_LIMIT_HOURS", str(QUEUE_SECONDS / 3600))
    [d] = accept_batch(Settings.from_env(), "b-late", [str(late.pdf)], None)
    monkeypatch.setenv("STMTFLOW_QUEUE_LIMIT_HOURS", "24")
    settings = Settings.from_env()
    a, b, c = accept_batch(settings, "b-main", [str(scan.pdf), str(plain.pdf),
                                                str(retried.pdf)], None)
    receiver.drop.add(b.job_id)

    real_write = Storage.write_outputs
    def upload_fails_once(self, prefix, files, token):
        if prefix.endswith(c.job_id) and not upload_fails_once.failed:
            upload_fails_once.failed = True
            raise ConnectionError("injected: upload reset")
        return real_write(self, prefix, files, token)
    upload_fails_once.failed = False
    monkeypatch.setattr(Storage, "write_outputs", upload_fails_once)

    state = import_batch([str(scan.pdf), str(plain.pdf), str(retried.pdf)], batch_id="b-main",
                         return_state=True)
    assert state.is_completed()
    ledger = settings.ledger()
    jobs = {j["job_id"]: j for j in ledger.jobs()}
    assert jobs[a.job_id]["needs_review"], "the scan of this seed must need review"
    assert (jobs[b.job_id]["status"], jobs[b.job_id]["attempts"]) == ("SUCCEEDED", 1)
    assert (jobs[c.job_id]["status"], jobs[c.job_id]["attempts"]) == ("SUCCEEDED", 2)
    assert {k: jobs[c.job_id][k] for k in ("chain_revision", "ocr_engine")} == {
        k: jobs[a.job_id][k] for k in ("chain_revision", "ocr_engine")}

    # while the fourth job is queued: investigate, with it listed and nothing folded away
    first = reconcile()
    assert first["state"] == "investigate"
    assert [u["job_id"] for u in first["unresolved"]] == [d.job_id]
    assert first["unresolved"][0]["investigation"]["owner"] is None
    assert first["counts"]["unresolved"] == 1 and first["counts"]["accepted"] == 4

    # deliver one success twice: one import, one review task
    book = Book(ledger.engine)
    out = settings.storage().read(jobs[a.job_id]["output_uri"])
    delivery = Delivery(a.job_id, jobs[a.job_id]["sha256"], sha256(out), json.loads(out))
    assert book.consume(delivery) == "duplicate"

    # one job's output changes after it was consumed: quarantined, never replaced
    changed = json.loads(out)
    changed["layout"] = "a later attempt read it differently"
    settings.storage().write_outputs(f"results/{a.job_id}",
                                     {"statement.json": json.dumps(changed).encode()}, "late")

    expires = ledger.job(d.job_id)["expires_at"].replace(tzinfo=UTC)
    time.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds() + 0.2))
    final = reconcile()
    assert final["state"] == "accounted"
    assert final["unresolved"] == []
    assert final["counts"] == {
        "accepted": 4, "terminal": 4, "succeeded": 3, "failed": 0, "failed_deterministic": 0,
        "failed_exhausted": 0, "expired": 1, "retried": 1, "unresolved": 0, "needs_review": 1,
        "reruns": 0}
    consumer = final["consumer"]
    assert (consumer["imported"], consumer["duplicates_suppressed"], consumer["quarantined"],
            consumer["review_tasks"]) == (3, 1, 1, 1)
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
    storage.fs.rm(storage._path(storage.key(first["output_uri"])))
    storage.put("results/j-nobody/statement.json", b"{}")
    report = reconcile()
    assert report["outputs"]["missing_object"] == [
        {"job_id": first["job_id"], "object": "statement.json"}]
    assert report["outputs"]["object_without_record"] == ["j-nobody"]
    assert report["outputs"]["ok"] is False
    assert second["job_id"] not in json.dumps(report["outputs"]["missing_object"])


def test_queue_age_and_backlog_raise_alerts(stmtflow_home: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.reconcile_flow import alerts

    samples = generate(tmp_path / "q", ("northwind",), 2, seed=9)
    limit = 12.0
    monkeypatch.setenv("STMTFLOW_QUEUE_LIMIT_HOURS", str(limit / 3600))
    monkeypatch.setenv("STMTFLOW_CAPACITY", "1")
    first, _ = accept_batch(Settings.from_env(), "b-backlog", [str(s.pdf) for s in samples],
                            None)
    calm = reconcile()
    assert not calm["queue"]["near_expiry"] and calm["queue"]["over_capacity"]
    assert [name for name, _ in alerts(calm)] == ["backlog", "unresolved"]
    # wait until past 80 % of the queue-age limit, but not past the limit
    due = first.submitted_at.replace(tzinfo=UTC).timestamp() + 0.85 * limit
    time.sleep(max(0.0, due - time.time()))
    late = reconcile()
    assert late["queue"]["near_expiry"] and late["counts"]["expired"] == 0
    assert [name for name, _ in alerts(late)][:2] == ["queue-age", "backlog"]
