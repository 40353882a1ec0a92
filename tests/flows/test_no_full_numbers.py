"""A full account number in a file's name and on its pages travels nowhere but the outputs
meant to hold it: not into events, logs, task results, flow-run states, artifacts, the
Prefect database or the ledger. The one record of a file's real name is the ledger's
`jobs.source_uri`, where the file is found again (resume lists the source against it)."""

from __future__ import annotations

import logging
import random
import re
import time
from pathlib import Path

import pytest

from corpus.lookalikes import LOOKALIKES
from corpus.truth import Draw
from flows.config import Settings
from flows.import_flow import import_batch
from parsers.codes import Status

CARD = "4111111111111111"
#: a second file, not a PDF, whose name spells a number in groups: its failure travels too
GROUPED = "5500-0000-0000-0004"


def spelled(number: str) -> re.Pattern[bytes]:
    """`number` with or without a separator between any two digits."""
    return re.compile(r"[ \-._]?".join(number).encode())


def prefect_files() -> list[Path]:
    """The Prefect server's database (with its journal), Prefect's home and the task
    results it stores (which must be there: the test reads them)."""
    from prefect.settings import get_current_settings

    s = get_current_settings()
    url = s.server.database.connection_url.get_secret_value()
    db = Path(url.split("///", 1)[1])
    results = [p for p in Path(s.results.local_storage_path).rglob("*") if p.is_file()]
    assert results, "the parse tasks persist their results"
    return [p for p in db.parent.rglob("*") if p.is_file()] + results + [
        p for p in Path(s.home).rglob("*") if p.is_file()]


def events_stored(job_id: str) -> bool:
    import sqlite3

    from prefect.settings import get_current_settings

    url = get_current_settings().server.database.connection_url.get_secret_value()
    with sqlite3.connect(url.split("///", 1)[1]) as db:
        return bool(db.execute("SELECT count(*) FROM events WHERE resource_id = ?",
                               (f"stmtflow.job.{job_id}",)).fetchone()[0])


def test_full_account_numbers_travel_nowhere(
        stmtflow_home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        capfd: pytest.CaptureFixture[str]) -> None:
    drawn = LOOKALIKES["ing"](Draw(random.Random("ing-leak"), 3, False, False))
    printed = re.search(rb"Girokonto Nummer (\d{10})", _text(drawn.pdf))
    assert printed, "the statement prints its full account number"
    account = printed.group(1).decode()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / f"card_{CARD}.pdf").write_bytes(drawn.pdf)
    (inbox / f"statement {GROUPED}.pdf").write_bytes(b"not a statement " + CARD.encode())
    caplog.set_level(logging.DEBUG)
    state = import_batch(str(inbox), batch_id="b-numbers", return_state=True)
    assert state.is_completed()
    ledger = Settings.from_env().ledger()
    job, refused = sorted(ledger.jobs("b-numbers"), key=lambda j: j.status != Status.SUCCEEDED)
    assert job.status == Status.SUCCEEDED and job.account_last4 == account[-4:]
    assert refused.status == Status.FAILED and refused.reason == "not_pdf"
    deadline = time.monotonic() + 120
    while not events_stored(job.job_id) and time.monotonic() < deadline:
        time.sleep(1)  # the server stores events in batches
    assert events_stored(job.job_id)

    numbers = (CARD, GROUPED.replace("-", ""), account)
    inputs = [p.read_bytes() for p in inbox.iterdir()]
    out, err = capfd.readouterr()
    # every line of stmtflow and Prefect; other libraries' debug tracing is the operator's
    logged = [r for r in caplog.records
              if r.name.split(".")[0] in ("stmtflow", "prefect", "flows", "parsers", "reconcile")
              or r.levelno >= logging.INFO]
    texts = {"logs": "\n".join(r.getMessage() for r in logged), "stdout": out, "stderr": err,
             "state": str(state.message), "ledger": ledger_text(stmtflow_home / "ledger.db")}
    leaks = [f"{where}: {n}" for where, text in texts.items() for n in numbers
             if spelled(n).search(text.encode())]
    for path in prefect_files() + [p for p in stmtflow_home.rglob("*") if p.is_file()]:
        data = readable(path.read_bytes())
        if data in inputs or path.name.startswith("ledger.db"):
            continue  # a stored input is the file itself; the ledger is read above
        leaks += [f"{path}: {n}" for n in numbers if spelled(n).search(data)]
    assert not leaks


def readable(data: bytes) -> bytes:
    """A file's bytes, with a Prefect result record's value decoded (it is stored in
    base64, where no digit run shows)."""
    import base64
    import json

    try:
        record = json.loads(data)
    except ValueError:
        return data
    if isinstance(record, dict) and isinstance(record.get("result"), str):
        return data + base64.b64decode(record["result"])
    return data


def ledger_text(path: Path) -> str:
    """Every value of every table of the ledger but `jobs.source_uri`."""
    import sqlite3

    values = []
    with sqlite3.connect(path) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for t in tables:
            columns = [c for (_, c, *_) in db.execute(f"PRAGMA table_info({t})")
                       if (t, c) != ("jobs", "source_uri")]
            for row in db.execute(f"SELECT {', '.join(columns)} FROM {t}"):
                values += [str(v) for v in row]
    return "\n".join(values)


def _text(pdf: bytes) -> bytes:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return " ".join(p.get_textpage().get_text_range() for p in doc).encode()
    finally:
        doc.close()


def test_the_commands_show_a_file_names_number_masked_and_a_size_as_it_is(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from test_cli import cli

    from corpus import generate

    monkeypatch.setenv("STMTFLOW_LIMIT_MAX_BYTES", "1048576")
    folder = tmp_path / "inbox"
    [sample] = generate(tmp_path / "drawn", ("northwind",), 1, seed=8)
    folder.mkdir()
    card = folder / f"card_{CARD}.pdf"
    card.write_bytes(sample.pdf.read_bytes())
    with (folder / "big.pdf").open("wb") as f:
        f.truncate(5_242_880)

    ran = cli("import", str(folder), "--json")
    assert ran.returncode == 0, ran.stderr
    batch = cli("status", "--json").stdout
    job_id = json.loads(ran.stdout)["jobs"][0]["job_id"]
    shown = ran.stdout + batch + cli("status", job_id, "--json").stdout + cli(
        "parse", str(card)).stdout
    assert f"card_****{CARD[-4:]}.pdf" in shown and not spelled(CARD).search(shown.encode())
    big = next(j for j in json.loads(batch)["jobs"] if j["source"].endswith("big.pdf"))
    assert big["reason"] == "too_large"
    message = Settings.from_env().ledger().job(big["job_id"]).message  # type: ignore[union-attr]
    assert "5242880 bytes is over the limit of 1048576 bytes" in (message or "")
    # the ledger keeps the name the file is found by again
    assert Settings.from_env().ledger().job(job_id).source_uri in (  # type: ignore[union-attr]
        str(card), str(folder / "big.pdf"))
