"""The embedded API's app: its shutdown waits until every event it received was taken by a
consumer; its start registers block types only when what they come from changed, and one
server of a Prefect home at a time sets its database up."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import generate
from flows.config import Settings
from flows.embedded_app import BLOCK_TYPES_NOTE, drain
from parsers.codes import BatchState


def test_the_drain_waits_for_a_slow_consumer_to_take_every_message() -> None:
    from prefect.server.utilities.messaging.memory import MemoryMessage, Topic

    async def scenario() -> tuple[bool, int, bool]:
        topic = Topic.by_name("stmtflow-drain-test")
        subscription = topic.subscribe()
        taken = 0

        async def consume() -> None:
            nonlocal taken
            while True:
                await subscription.get()
                await asyncio.sleep(0.02)
                taken += 1

        try:
            for n in range(20):
                await topic.publish(MemoryMessage(data=str(n), attributes={}))
            # nobody takes them: the drain gives up at its timeout, and says so
            stalled = await drain(0.05)
            consumer = asyncio.create_task(consume())
            drained = await drain(30)
            consumer.cancel()
            return drained, taken, stalled
        finally:
            topic.unsubscribe(subscription)

    drained, taken, stalled = asyncio.run(scenario())
    assert not stalled
    assert drained and taken >= 19  # the last one taken, perhaps not yet handled


def test_block_types_are_registered_again_only_when_what_they_come_from_changed(
        stmtflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block type removed after the first start stays removed on the next start: nothing
    looked for it, not even Prefect's own hash of the block types (one that no longer
    matches would have them registered again); it is registered again once Prefect's memo
    store no longer says the block types are registered."""
    import sqlite3

    from flows.cli.server import Embedded

    prefect_home = tmp_path / "prefect-home"
    monkeypatch.setenv("PREFECT_HOME", str(prefect_home))

    def started() -> set[str]:
        embedded = Embedded()
        try:
            embedded.ready(600)
        finally:
            embedded.stop()
        with sqlite3.connect(prefect_home / "prefect.db") as db:
            return {slug for (slug,) in db.execute("SELECT slug FROM block_type")}

    assert "secret" in started()
    assert (prefect_home / BLOCK_TYPES_NOTE).exists()
    with sqlite3.connect(prefect_home / "prefect.db") as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("DELETE FROM block_type WHERE slug = 'secret'")
    (prefect_home / "memo_store.toml").write_text('block_auto_registration = "0"\n')
    assert "secret" not in started()
    (prefect_home / "memo_store.toml").unlink()
    assert "secret" in started()


def test_first_imports_started_together_on_a_new_home_all_complete(
        stmtflow_home: Path, tmp_path: Path) -> None:
    """Four `stmtflow import`s at once on a new home: each starts its embedded API on the
    one new Prefect database and migrates the one new ledger; all exit 0, with one batch
    each, and nothing prints a traceback (their progress threads' included)."""
    folder = tmp_path / "inbox"
    generate(folder, ("northwind",), 1, seed=9)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(tmp_path / "new-prefect-home")
    procs = [subprocess.Popen([sys.executable, "-m", "flows.cli", "import", str(folder)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    errors = [p.communicate(timeout=900)[1] for p in procs]

    assert [p.returncode for p in procs] == [0] * 4, [e[-2000:] for e in errors]
    assert not [e for e in errors if "Traceback" in e]
    batches = Settings.from_env().ledger().batches()
    assert [b.state for b in batches] == [BatchState.COMPLETED] * 4
