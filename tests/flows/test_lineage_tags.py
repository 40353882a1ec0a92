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


def test_two_mixed_imports_of_one_day_have_names_that_tell_their_batches(
        prefect_server: None, stmtflow_home: Path, tmp_path: Path) -> None:
    """`import-<bank|mixed>-<date>-<short batch id>`: the same inbox imported twice, or two
    inboxes of mixed banks, on one day, are two runs a person can tell apart."""
    from datetime import UTC, datetime

    from flows.import_flow import import_batch

    generate(tmp_path / "mixed", TEXT_BANKS[:2], 1, seed=7)
    runs = [import_batch(str(tmp_path / "mixed"), batch_id=batch_id, return_state=True)
            for batch_id in ("b-20260102-0a1b2c3d", None)]

    async def names() -> list[str]:
        async with get_client() as client:
            return [(await client.read_flow_run(r.state_details.flow_run_id)).name
                    for r in runs]

    first, second = run_coro_as_sync(names())
    today = f"{datetime.now(UTC):%Y-%m-%d}"
    assert first == f"import-mixed-{today}-0a1b2c3d"
    flow_run_hex = str(runs[1].state_details.flow_run_id).replace("-", "")
    assert second == f"import-mixed-{today}-{flow_run_hex[8:16]}"
    assert runs[1].result() == f"b-{flow_run_hex[:16]}"  # the batch the name's id is of
