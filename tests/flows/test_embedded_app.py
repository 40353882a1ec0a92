"""The embedded API's shutdown waits until every event it received was taken by a consumer."""

from __future__ import annotations

import asyncio

from flows.embedded_app import drain


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
