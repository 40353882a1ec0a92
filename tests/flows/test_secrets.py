"""Secrets from Prefect Secret blocks on the session's real API server: per-bank PDF
passwords that open locked statements and never show, and the ledger's URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect import flow, task
from prefect.blocks.system import Secret

from corpus import generate
from corpus.bad import encrypted
from flows.config import Settings, secrets_read_once
from flows.import_flow import WARNINGS, import_batch
from flows.secret_blocks import DATABASE_URL, PDF_PASSWORDS, passwords_by_bank
from parsers.codes import Reason, Status

PASSWORD = "Nw-Secret-2026!"


@pytest.fixture
def blocks() -> Iterator[dict[str, object]]:
    """Secret blocks a test saves by name (`blocks[name] = value`), deleted after it."""
    saved: dict[str, object] = {}
    yield saved
    for name in saved:
        Secret.delete(name)


def _save(blocks: dict[str, object], name: str, value: object) -> None:
    Secret(value=value).save(name, overwrite=True)
    blocks[name] = value


def _locked_inbox(tmp_path: Path) -> tuple[Path, list[str]]:
    folder = tmp_path / "inbox"
    samples = generate(tmp_path / "plain", ("northwind",), 2, seed=12)
    folder.mkdir()
    for s in samples:
        (folder / s.pdf.name).write_bytes(encrypted(s.pdf.read_bytes(), PASSWORD))
    return folder, [s.pdf.name for s in samples]


def _everything_written(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


def test_a_locked_statement_imports_with_its_banks_secret_and_the_password_never_shows(
        stmtflow_home: Path, tmp_path: Path, blocks: dict[str, object],
        caplog: pytest.LogCaptureFixture) -> None:
    folder, names = _locked_inbox(tmp_path)
    _save(blocks, f"{PDF_PASSWORDS}northwind", ["an-old-one", PASSWORD])
    state = import_batch(str(folder), bank="northwind", batch_id="b-locked",
                         return_state=True)
    assert state.name == "Completed", state.message
    rows = Settings.from_env().ledger().jobs("b-locked")
    assert sorted(r.file_name for r in rows) == sorted(names)
    assert {(r.status, r.attempts) for r in rows} == {(Status.SUCCEEDED, 1)}
    assert PASSWORD.encode() not in _everything_written(stmtflow_home)
    assert PASSWORD not in caplog.text
    assert PASSWORD not in repr(Settings.from_env())


def test_a_bank_unknown_tries_every_banks_secret(
        stmtflow_home: Path, tmp_path: Path, blocks: dict[str, object]) -> None:
    folder, _ = _locked_inbox(tmp_path)
    _save(blocks, f"{PDF_PASSWORDS}bluebird", "not-this-one")
    _save(blocks, f"{PDF_PASSWORDS}northwind", PASSWORD)
    state = import_batch(str(folder), batch_id="b-any-bank", return_state=True)
    assert state.name == "Completed", state.message
    rows = Settings.from_env().ledger().jobs("b-any-bank")
    assert {r.bank for r in rows} == {"northwind"}


def test_a_wrong_secret_leaves_the_statement_encrypted(
        stmtflow_home: Path, tmp_path: Path, blocks: dict[str, object]) -> None:
    folder, _ = _locked_inbox(tmp_path)
    _save(blocks, f"{PDF_PASSWORDS}northwind", "Nw-Wrong")
    state = import_batch(str(folder), bank="northwind", batch_id="b-wrong",
                         return_state=True)
    assert state.name == WARNINGS
    rows = Settings.from_env().ledger().jobs("b-wrong")
    assert {(r.status, r.reason, r.attempts) for r in rows} == {
        (Status.FAILED, Reason.ENCRYPTED, 1)}
    assert all("Nw-Wrong" not in (r.message or "") for r in rows)


def test_the_ledger_url_comes_from_its_block_unless_the_variable_is_set(
        stmtflow_home: Path, tmp_path: Path, blocks: dict[str, object],
        monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path}/from-block.db"
    _save(blocks, DATABASE_URL, url)
    assert Settings.from_env().database_url == url
    monkeypatch.setenv("STMTFLOW_DATABASE_URL", "sqlite:////elsewhere.db")
    assert Settings.from_env().database_url == "sqlite:////elsewhere.db"


def test_passwords_by_bank_read_a_password_a_list_or_its_json_text() -> None:
    secrets = {f"{PDF_PASSWORDS}a": "one", f"{PDF_PASSWORDS}b": '["x", "y"]',
               f"{PDF_PASSWORDS}c": ["p", "q"], f"{PDF_PASSWORDS}d": "", "other": "z"}
    assert passwords_by_bank(secrets, None) == {"a": ("one",), "b": ("x", "y"),
                                                "c": ("p", "q")}
    assert passwords_by_bank(secrets, '{"a": "v", "e": ["w"]}') == {"a": ("v",),
                                                                     "e": ("w",)}
    settings = Settings.from_env({"STMTFLOW_PDF_PASSWORDS": '{"a": "v", "e": ["w", "v"]}'})
    assert settings.passwords_for("a") == ("v",)
    assert settings.passwords_for("zz") == ()
    assert settings.passwords_for(None) == ("v", "w")


def test_a_flow_run_reads_the_blocks_once_and_the_next_run_sees_a_change(
        stmtflow_home: Path, tmp_path: Path, blocks: dict[str, object]) -> None:
    """Its flow, task runner and worker threads ask for the settings; the blocks are read
    for the first of them."""
    from prefect import flow

    first, second = f"sqlite:///{tmp_path}/first.db", f"sqlite:///{tmp_path}/second.db"

    @flow
    def read_twice() -> tuple[str, str]:
        before = Settings.from_env().database_url
        _save(blocks, DATABASE_URL, second)
        return before, Settings.from_env().database_url

    _save(blocks, DATABASE_URL, first)
    assert read_twice() == (first, first)
    assert read_twice() == (second, second)
    assert Settings.from_env().database_url == second


@task
def _passwords_in_a_task() -> tuple[str, ...]:
    return Settings.from_env().passwords_for("zeta")


@flow(name="secrets-seen-in-a-run")
def _passwords_in_a_run() -> list[tuple[str, ...]]:
    return [Settings.from_env().passwords_for("zeta"), _passwords_in_a_task.submit().result()]


def test_a_commands_flow_run_takes_the_secrets_the_command_read(blocks) -> None:
    """One read for the command and the run it starts: a block changed in between is seen
    by the next command's run, as by a run's next try (`import_flow._worker`)."""
    _save(blocks, f"{PDF_PASSWORDS}zeta", "first")
    with secrets_read_once():
        assert Settings.from_env().passwords_for("zeta") == ("first",)
        _save(blocks, f"{PDF_PASSWORDS}zeta", "changed")
        assert _passwords_in_a_run() == [("first",), ("first",)]
    assert _passwords_in_a_run() == [("changed",), ("changed",)]
