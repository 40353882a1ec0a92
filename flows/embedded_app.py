"""The app of the servers the commands start (the embedded API and `stmtflow server start`'s):
Prefect's own (`create_app`), stopped only once every event it received has been handed to
the services that consume it, and started without looking again for block types to
register when nothing they come from changed.

Prefect's task run recorder writes the task runs it holds as it stops, but the events still
queued for it when its consumer is cancelled are dropped: on a loaded machine a batch's last
task runs could be among them. Here, on shutdown, the app first waits until the in-memory
queues of every topic are empty (bounded by `DRAIN_TIMEOUT`), then Prefect's own shutdown
runs (the recorder's last write). With a broker other than the in-memory one, whose queues
are not in this process, it waits for the recorder's next periodic write instead.

Prefect registers the block types of Prefect and of the installed collections each time its
server starts, unless a hash of them, kept in its memo store, says they are registered
already; computing that hash imports every collection (prefect-dask: Dask's `distributed`),
a third of a CPU second of each command's start. The app notes, in the Prefect home, what
they came from when it let Prefect register them (Prefect's version, each collection's
version, the database), and while that is unchanged and Prefect's memo store still holds its
hash, it starts with `PREFECT_API_BLOCKS_REGISTER_ON_START` (and the memo, which would
compute the hash first) off.

Servers of one Prefect home start one at a time, under a file lock in it (`SETUP_LOCK`):
the first commands run at once on a new home would otherwise all create and migrate its
database, and fail on each other's tables.

Its own module, outside `flows.cli`, so that the server's process imports nothing else of
stmtflow.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

#: seconds the shutdown waits at most for the queues to empty
DRAIN_TIMEOUT = 10.0

MEMORY_BROKER = "prefect.server.utilities.messaging.memory"

#: the note, in the Prefect home, of what the block types were last registered from
BLOCK_TYPES_NOTE = "stmtflow-block-types.json"
#: the lock file, in the Prefect home, that one server at a time starts under
SETUP_LOCK = "stmtflow-server-setup.lock"


def create_app() -> FastAPI:
    """Prefect's app for this process's settings, with the drain in front of its shutdown."""
    from prefect.server.api.server import create_app as prefect_app

    app = prefect_app()
    app.router.lifespan_context = _draining(app.router.lifespan_context)
    return app


Lifespan = Callable[[Any], AbstractAsyncContextManager[Any]]


def _draining(lifespan: Lifespan) -> Lifespan:
    @asynccontextmanager
    async def drained(app: Any) -> AsyncIterator[Any]:
        from prefect.settings import (
            PREFECT_API_BLOCKS_REGISTER_ON_START,
            PREFECT_MEMOIZE_BLOCK_AUTO_REGISTRATION,
            temporary_settings,
        )

        async with contextlib.AsyncExitStack() as stack:
            with await _setup_lock():  # released once Prefect's start-up is over
                note = _block_types_note()
                registered = _registered(note)
                # without memoizing, Prefect does not compute its hash (the collections'
                # import) first
                skip = {PREFECT_API_BLOCKS_REGISTER_ON_START: False,
                        PREFECT_MEMOIZE_BLOCK_AUTO_REGISTRATION: False} if registered else {}
                stack.enter_context(temporary_settings(updates=skip))
                state = await stack.enter_async_context(lifespan(app))
                if not registered:  # from the database as it is now (a new one was made)
                    with contextlib.suppress(OSError, ValueError, ImportError):
                        note.write_text(json.dumps({"sources": _block_type_sources()}))
            try:
                yield state
            finally:
                await _handed_over()

    return drained


def setting_up(home: Path) -> bool:
    """Whether a server of the Prefect home `home` is starting now (holds its lock): a
    command waiting for its own server, queued behind it, is not kept waiting by its own."""
    try:
        fd = os.open(home / SETUP_LOCK, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # which releases a lock it took
    return False


async def _setup_lock() -> contextlib.closing[Any]:
    """This Prefect home's start-up lock, once taken (waited for off the event loop): the
    database's migrations and the block types' registration run in one server at a time,
    since Prefect's own, run by several servers on a new database at once, fail on each
    other's tables. Released as its file closes."""
    from prefect.settings import get_current_settings

    home = get_current_settings().home
    home.mkdir(parents=True, exist_ok=True)
    lock = open(home / SETUP_LOCK, "a+b")  # noqa: SIM115 (closed by the caller's `with`)
    try:
        await asyncio.to_thread(fcntl.flock, lock.fileno(), fcntl.LOCK_EX)
    except BaseException:
        lock.close()
        raise
    return contextlib.closing(lock)


def _block_types_note() -> Path:
    from prefect.settings import get_current_settings

    return get_current_settings().home / BLOCK_TYPES_NOTE


def _block_type_sources() -> str:
    """What the block types Prefect registers come from: its version, each installed
    collection's, and the database (hashed: its URL may hold a password)."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    collections = sorted(f"{e.name}={e.dist.version if e.dist else ''}"
                         for e in metadata.entry_points(group="prefect.collections"))
    url = str(settings.server.database.connection_url.get_secret_value()
              if settings.server.database.connection_url else "")
    database = Path(url.removeprefix("sqlite+aiosqlite:///"))
    # a sqlite database made again since is another database
    made = str(database.stat().st_ino) if url.startswith("sqlite") and database.exists() else ""
    key = json.dumps([metadata.version("prefect"), collections, url, made])
    return hashlib.sha256(key.encode()).hexdigest()


def _registered(note: Path) -> bool:
    """Whether the block types were registered from what they come from now, and Prefect's
    memo store still says so (when either cannot be told: not, and Prefect looks)."""
    from prefect.settings import get_current_settings

    memo = get_current_settings().server.memo_store_path
    with contextlib.suppress(OSError, ValueError, ImportError):
        return (memo is not None and "block_auto_registration" in memo.read_text()
                and json.loads(note.read_text()).get("sources") == _block_type_sources())
    return False


async def _handed_over() -> None:
    from prefect.settings import get_current_settings

    settings = get_current_settings().server
    if settings.events.messaging_broker != MEMORY_BROKER:
        await asyncio.sleep(settings.services.task_run_recorder.flush_interval + 0.25)
        return
    await drain(DRAIN_TIMEOUT)


async def drain(timeout: float) -> bool:
    """Wait until no in-memory topic holds a message a consumer has yet to take (or
    `timeout` seconds); whether they all were taken."""
    from prefect.server.utilities.messaging.memory import Topic

    deadline = time.monotonic() + timeout
    while any(s._queue.qsize() or s._retry.qsize()
              for topic in list(Topic._topics.values()) for s in list(topic._subscriptions)):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True
