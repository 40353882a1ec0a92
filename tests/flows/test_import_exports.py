"""Bank exports are jobs like PDFs: a folder mixing both imports into one book, by content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import statement
from corpus.bank_exports import write_exports
from flows.config import Settings
from flows.import_flow import WARNINGS, import_batch
from parsers.codes import Reason, Status
from reconcile.book import Book, sync

BILLION_LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
                  b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                  b'<!ENTITY c "&b;&b;&b;&b;&b;&b;">]>'
                  b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">&c;'
                  b"</Document>")


def test_a_folder_of_a_pdf_and_its_exports_imports_into_one_book(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = statement("northwind", index=3)
    (last4,) = [a.account_last4 for a in drawn.truth.accounts]
    settings_file = tmp_path / "exports.toml"
    settings_file.write_text(f'[accounts."{last4}"]\nbank = "northwind"\n')
    monkeypatch.setenv("STMTFLOW_EXPORTS", str(settings_file))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "northwind.pdf").write_bytes(drawn.pdf)
    names = {".ofx": "download.txt", ".xml": "camt", ".sta": "mt940.dat", ".csv": "rows"}
    for path in write_exports(drawn.truth, tmp_path / "nw"):
        (inbox / names[path.suffix]).write_bytes(path.read_bytes())  # no telling name
    (inbox / "laughs.xml").write_bytes(BILLION_LAUGHS)
    (inbox / "old.qif").write_bytes(b"!Type:Bank\nD01/02/2026\nT-4.50\n^\n")

    state = import_batch(str(inbox), batch_id="b-exports", return_state=True)
    assert state.is_completed() and state.name == WARNINGS
    settings = Settings.from_env()
    rows = {r.file_name: r for r in settings.ledger().jobs("b-exports")}
    assert {n: (r.status, r.reason) for n, r in rows.items()
            if r.status != Status.SUCCEEDED} == {
        "laughs.xml": (Status.FAILED, Reason.XML_REJECTED),
        "old.qif": (Status.FAILED, Reason.UNSUPPORTED_FORMAT)}
    storage = settings.storage()
    for name in names.values():
        doc = json.loads(storage.read(rows[name].output_uri))
        assert doc["validation"]["ok"] and doc["bank"] == "northwind", name
        assert doc["pinned"]["chain_revision"] == rows["northwind.pdf"].pinned()[
            "chain_revision"]
    book = Book(settings.ledger().engine)
    sync(book, settings.ledger(), storage)
    assert len(book.records()) == len(drawn.truth.accounts[0].transactions)
