"""A flow run's parameters, as the API stores them, are what Prefect's own encoding makes of
them, whether they skip FastAPI's encoder (JSON already) or not."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

import pytest
from prefect.client.orchestration import get_client
from prefect.flows import Flow
from prefect.utilities.asyncutils import run_coro_as_sync

from flows.plain_flow import PlainFlow, as_json, flow


class Kind(enum.StrEnum):
    KEEP = "keep"


@flow(name="plain-flow-parameters")
def echo(source: Any, bank: Any = None, follow_links: Any = False, options: Any = None) -> str:
    from prefect.runtime import flow_run

    return str(flow_run.id)


def _stored(parameters: dict[str, Any]) -> str:
    """The parameters the API stored for a run of `parameters`, as JSON (where True is not
    1)."""
    run_id = echo(**parameters)

    async def read() -> dict[str, Any]:
        async with get_client() as client:
            return (await client.read_flow_run(run_id)).parameters

    return json.dumps(run_coro_as_sync(read()), sort_keys=True)


def _prefects(parameters: dict[str, Any]) -> str:
    """Prefect's encoding of `parameters`, with the defaults the run binds, as JSON."""
    defaults = {"bank": None, "follow_links": False, "options": None}
    return json.dumps(Flow(fn=echo.fn, name="prefect-encoding").serialize_parameters(
        {**defaults, **parameters}), sort_keys=True)


@pytest.mark.parametrize("parameters", [
    {"source": "/in/a folder", "bank": None, "follow_links": True, "options": None},
    {"source": ["/in/a", "s3://b/c"], "bank": "alpenbank", "follow_links": False,
     "options": {"after_import": "move:/done", "depth": 2, "share": 0.5}},
], ids=["scalars", "containers"])
def test_json_parameters_are_stored_as_prefect_encodes_them(
        prefect_server: None, parameters: dict[str, Any]) -> None:
    assert json.dumps(as_json(parameters)) == json.dumps(parameters)
    assert _stored(parameters) == _prefects(parameters) == json.dumps(parameters, sort_keys=True)


@pytest.mark.parametrize("parameters", [
    {"source": Path("/in/a")},
    {"source": ("/in/a", "/in/b")},
    {"source": ["/in/a"], "options": {"after_import": Kind.KEEP}},
    {"source": "/in/a", "options": {1: "a key that is no string"}},
], ids=["path", "tuple", "enum", "int-key"])
def test_other_parameters_take_prefects_way(prefect_server: None,
                                            parameters: dict[str, Any]) -> None:
    assert _stored(parameters) == _prefects(parameters)


def test_the_flows_of_the_commands_are_plain_flows() -> None:
    from flows.import_flow import import_batch, resume_batch
    from flows.reconcile_flow import reconcile
    from flows.recover import recover_batches
    from flows.rerun_flow import rerun_failed

    for f in (import_batch, resume_batch, reconcile, recover_batches, rerun_failed):
        assert isinstance(f, PlainFlow), f.name
