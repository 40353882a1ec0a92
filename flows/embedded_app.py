"""The embedded API's app: Prefect's own (`create_app`), stopped only once every event it
received has been handed to the services that consume it.

Prefect's task run recorder writes the task runs it holds as it stops, but the events still
queued for it when its consumer is cancelled are dropped: on a loaded machine a batch's last
task runs could be among them. Here, on shutdown, the app first waits until the in-memory
queues of every topic are empty (bounded by `DRAIN_TIMEOUT`), then Prefect's own shutdown
runs (the recorder's last write). With a broker other than the in-memory one, whose queues
are not in this process, it waits for the recorder's next periodic write instead.

Its own module, outside `flows.cli`, so that the server's process imports nothing else of
stmtflow.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI

#: seconds the shutdown waits at most for the queues to empty
DRAIN_TIMEOUT = 10.0

MEMORY_BROKER = "prefect.server.utilities.messaging.memory"


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
        async with lifespan(app) as state:
            try:
                yield state
            finally:
                await _handed_over()

    return drained


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
