from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from faults import Faults, fresh_faults

from corpus import BASIC_BAD, SCANNED, Sample, drawable, generate
from flows.config import Settings
from flows.parser import Parser

#: every bank of the templates in force that the generator draws with a text layer (a scan
#: is slow to read: OCR)
TEXT_BANKS = tuple(sorted(set(drawable(Parser.from_settings(Settings.from_env({})).banks))
                          - SCANNED))


@pytest.fixture(autouse=True)
def _prefect(prefect_server: None) -> None:
    """Every flow test talks to the session's real Prefect API server."""


class Inbox(NamedTuple):
    folder: Path
    samples: list[Sample]


@pytest.fixture
def inbox(tmp_path: Path) -> Inbox:
    """Eight text-layer statements of four banks plus the four basic bad inputs."""
    folder = tmp_path / "inbox"
    return Inbox(folder, generate(folder, TEXT_BANKS, 8, seed=31, bad=BASIC_BAD))


@pytest.fixture
def faults(stmtflow_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Faults]:
    """Storage on the `faulty://` filesystem: the local one, with the faults a test hooks."""
    monkeypatch.setenv("STMTFLOW_STORAGE", f"faulty://{stmtflow_home / 'storage'}")
    yield fresh_faults()
    fresh_faults()


@pytest.fixture
def task_runs() -> Callable[[Any], list[Any]]:
    """Reads back, from the API server, the task runs of the flow run that ended in a state."""
    return _task_runs


def _task_runs(state: Any, wait: float = 30.0) -> list[Any]:
    """Once each is in a final state (at most `wait` seconds): the server records task runs
    from their events, after the flow run has ended."""
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def read():
        async with get_client() as client:
            return await client.read_task_runs(flow_run_filter=FlowRunFilter(
                id=FlowRunFilterId(any_=[state.state_details.flow_run_id])))

    deadline = time.monotonic() + wait
    while True:
        runs = run_coro_as_sync(read())
        if all(t.state is not None and t.state.is_final() for t in runs) \
                or time.monotonic() > deadline:
            return runs
        time.sleep(0.2)
