"""Settings: every variable read once, from the mapping given, and all of them documented;
one engine per database, created and migrated once even when asked for at once."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from flows.config import Settings
from flows.parser import Parser
from parsers.limits import Limits

README = Path(__file__).resolve().parents[2] / "README.md"


class Recording(dict[str, str]):
    """An environment that remembers every variable asked for."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.asked: set[str] = set()

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(key)
        return super().get(key, default)


def documented() -> set[str]:
    """The variables of the README's Configuration table (`…_X` continues the row's prefix)."""
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in (ln for ln in section.splitlines() if ln.startswith("| `")):
        first = row.split("|")[1]
        full = re.findall(r"`(STMTFLOW_[A-Z0-9_]+)`", first)
        prefix = full[0].rsplit("_", 2)[0] if "…" in first else ""
        names |= set(full) | {prefix + s for s in re.findall(r"`…(_[A-Z0-9_]+)`", first)}
    return names


def test_every_variable_read_is_documented_and_every_documented_one_read() -> None:
    env = Recording({"STMTFLOW_HOME": "/tmp/h"})
    Settings.from_env(env)
    assert {v for v in env.asked if v.startswith("STMTFLOW_")} == documented()


def test_settings_come_from_the_mapping_given_not_the_process() -> None:
    s = Settings.from_env({"STMTFLOW_HOME": "/data", "STMTFLOW_LEASE_SECONDS": "30",
                           "STMTFLOW_LIMIT_MAX_PAGES": "7", "STMTFLOW_TEMPLATES": "/a:/b",
                           "STMTFLOW_READER": "pdfium"})
    assert (s.home, s.database_url) == (Path("/data"), "sqlite:////data/ledger.db")
    assert s.lease == timedelta(seconds=30)
    assert s.limits == Limits(max_pages=7)
    assert s.template_dirs == (Path("/a"), Path("/b"))
    assert s.reader == "pdfium"


def test_pinned_chain_follows_the_reader_that_runs() -> None:
    pdfium = Parser.from_settings(Settings.from_env({"STMTFLOW_HOME": "/data"}))
    plumber = Parser.from_settings(Settings.from_env({"STMTFLOW_HOME": "/data",
                                                      "STMTFLOW_READER": "pdfplumber"}))
    assert plumber.identities().chain_revision != pdfium.identities().chain_revision
    assert pdfium.identities() == Parser.from_settings(
        Settings.from_env({"STMTFLOW_HOME": "/data"})).identities()


def test_status_links_to_the_ui_prefect_is_configured_with() -> None:
    assert Settings.from_env({}).ui_url is None
    api = Settings.from_env({"PREFECT_API_URL": "http://prefect:4200/api"})
    assert api.ui_url == "http://prefect:4200"
    ui = Settings.from_env({"PREFECT_API_URL": "http://p/api", "PREFECT_UI_URL": "http://ui"})
    assert ui.ui_url == "http://ui"


def test_an_unknown_task_runner_or_reader_is_refused() -> None:
    with pytest.raises(ValueError, match="STMTFLOW_TASK_RUNNER"):
        Settings.from_env({"STMTFLOW_TASK_RUNNER": "processes"})
    with pytest.raises(ValueError, match="pdfplumber"):
        Parser.from_settings(Settings.from_env({"STMTFLOW_READER": "tika"}))


def test_review_alert_is_read_in_hours() -> None:
    assert Settings.from_env({}).review_alert == timedelta(hours=48)
    assert Settings.from_env({"STMTFLOW_REVIEW_ALERT_HOURS": "1.5"}).review_alert == \
        timedelta(minutes=90)


def test_threads_asking_for_a_new_ledger_at_once_share_one_migrated_engine(
        stmtflow_home: Path) -> None:
    settings = Settings.from_env()
    start = threading.Barrier(6)
    engines, errors = [], []

    def ask() -> None:
        start.wait()
        try:
            engines.append(settings.ledger().engine)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len({id(e) for e in engines}) == 1
    assert settings.ledger().jobs() == []


def test_built_in_templates_can_be_switched_off(tmp_path: Path) -> None:
    on = Parser.from_settings(Settings.from_env({"STMTFLOW_HOME": "/data"}))
    off = Parser.from_settings(Settings.from_env({
        "STMTFLOW_HOME": "/data", "STMTFLOW_BUILTIN_TEMPLATES": "0",
        "STMTFLOW_TEMPLATES": str(tmp_path)}))
    assert on.banks and off.banks == []
    assert off.identities().chain_revision != on.identities().chain_revision
    with pytest.raises(ValueError, match="STMTFLOW_BUILTIN_TEMPLATES"):
        Settings.from_env({"STMTFLOW_BUILTIN_TEMPLATES": "maybe"})
