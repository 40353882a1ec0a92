from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from corpus import BASIC_BAD, Sample, generate

TEXT_BANKS = ("northwind", "bluebird", "harbor", "alpenbank")


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
def task_runs() -> Callable[[Any], list[Any]]:
    """Reads back, from the API server, the task runs of the flow run that ended in a state."""
    return _task_runs


def _task_runs(state: Any) -> list[Any]:
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def read():
        async with get_client() as client:
            return await client.read_task_runs(flow_run_filter=FlowRunFilter(
                id=FlowRunFilterId(any_=[state.state_details.flow_run_id])))

    return run_coro_as_sync(read())
