"""A batch run's bank tags: added when there are any, and the API left alone when there
are none (an import's files of a bank not named are not parsed yet when it starts)."""

from __future__ import annotations

import uuid
from pathlib import Path
from uuid import UUID

from prefect import flow, get_client
from prefect.runtime import flow_run
from prefect.utilities.asyncutils import run_coro_as_sync

from corpus import generate
from flows.lineage import mark_run
from tests.flows.conftest import TEXT_BANKS


@flow(name="lineage-tags")
def a_run() -> str:
    return str(flow_run.id)


def _tags(run_id: str) -> list[str]:
    async def read() -> list[str]:
        async with get_client() as client:
            return (await client.read_flow_run(UUID(run_id))).tags

    return run_coro_as_sync(read())


def test_tags_are_added_to_the_run(prefect_server: None) -> None:
    run_id = a_run()
    mark_run(run_id, {"bank:alpenbank"}, None, "", None)
    mark_run(run_id, {"bank:alpenbank", "bank:northwind"}, None, "", None)
    assert sorted(_tags(run_id)) == ["bank:alpenbank", "bank:northwind"]


def test_with_nothing_to_add_the_api_is_not_asked(prefect_server: None) -> None:
    """A run the API does not know: asking about it would raise `ObjectNotFound`."""
    mark_run(str(uuid.uuid4()), set(), None, "resume", None)


def test_an_import_ends_tagged_with_the_banks_of_its_files(
        prefect_server: None, stmtflow_home: Path, tmp_path: Path) -> None:
    """Of a bank named, tagged as it starts; of banks not named, once its files are read."""
    from flows.import_flow import import_batch

    generate(tmp_path / "two", TEXT_BANKS[:2], 2, seed=5)
    generate(tmp_path / "one", TEXT_BANKS[:1], 1, seed=6)
    unnamed = import_batch(str(tmp_path / "two"), return_state=True)
    named = import_batch(str(tmp_path / "one"), bank=TEXT_BANKS[0], return_state=True)
    assert sorted(_tags(str(unnamed.state_details.flow_run_id))) == [
        f"bank:{b}" for b in TEXT_BANKS[:2]]
    assert _tags(str(named.state_details.flow_run_id)) == [f"bank:{TEXT_BANKS[0]}"]
