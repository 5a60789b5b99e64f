"""A subscription with a handler: each message handed over in the publisher's task, in order,
never holding the publisher up (kva.service.cluster.broker.Subscription, kva.service.eager), which
is
how a match socket gets its states (kva/web/ws.py)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest

from kva.service.cluster.broker import Broker
from kva.service.eager import run_eagerly


def _topic() -> str:
    return f"test:{secrets.token_hex(4)}"


async def test_a_handler_that_does_not_wait_runs_in_the_publishers_task(broker: Broker) -> None:
    seen: list[tuple[int, asyncio.Task[Any] | None]] = []

    async def handler(message: dict[str, Any]) -> None:
        seen.append((message["n"], asyncio.current_task()))

    sub = await broker.subscribe(_topic(), handler)
    tasks_before = len(asyncio.all_tasks())
    for n in range(5):
        await broker.publish(sub.topic, {"n": n})
        assert seen[-1] == (n, asyncio.current_task())  # delivered before publish returned
    assert len(asyncio.all_tasks()) == tasks_before  # no task was made for it
    await sub.close()


async def test_a_handler_that_waits_holds_nobody_up_and_keeps_the_order(broker: Broker) -> None:
    go = asyncio.Event()
    seen: list[int] = []

    async def handler(message: dict[str, Any]) -> None:
        if message["n"] == 0:
            await go.wait()  # a client that stopped reading, say
        seen.append(message["n"])

    slow = await broker.subscribe(topic := _topic(), handler)
    quick: list[int] = []

    async def other(message: dict[str, Any]) -> None:
        quick.append(message["n"])

    fast = await broker.subscribe(topic, other)
    for n in range(4):
        await asyncio.wait_for(broker.publish(topic, {"n": n}), 1)  # never waits for it
    assert quick == [0, 1, 2, 3] and seen == []  # the other subscriber got everything
    go.set()
    for _ in range(50):
        if len(seen) == 4:
            break
        await asyncio.sleep(0.01)
    assert seen == [0, 1, 2, 3]  # those that came while it waited, after it, in order
    await broker.publish(topic, {"n": 4})
    assert seen == [0, 1, 2, 3, 4]  # and the next one straight away again
    await slow.close()
    await fast.close()


async def test_a_failing_handler_still_gets_the_next_message(broker: Broker) -> None:
    seen: list[int] = []

    async def handler(message: dict[str, Any]) -> None:
        if message["n"] == 1:
            raise RuntimeError("a bad message")
        seen.append(message["n"])

    sub = await broker.subscribe(_topic(), handler)
    for n in range(3):
        await broker.publish(sub.topic, {"n": n})
    assert seen == [0, 2]
    await sub.close()


async def test_closing_cancels_a_waiting_delivery_and_drops_the_rest(broker: Broker) -> None:
    never = asyncio.Event()
    ended: list[str] = []

    async def handler(message: dict[str, Any]) -> None:
        try:
            await never.wait()
        finally:
            ended.append(message["n"])

    sub = await broker.subscribe(_topic(), handler)
    await broker.publish(sub.topic, {"n": "first"})
    await broker.publish(sub.topic, {"n": "second"})
    await asyncio.wait_for(sub.close(), 1)
    assert ended == ["first"]  # cancelled where it waited; the second never started
    await broker.publish(sub.topic, {"n": "after"})
    await asyncio.sleep(0.05)
    assert ended == ["first"]


async def test_run_eagerly_returns_none_for_what_finishes_at_once() -> None:
    async def at_once() -> int:
        return 1

    assert run_eagerly(at_once()) is None


async def test_run_eagerly_hands_the_rest_to_a_task_with_results_and_cancellation() -> None:
    fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    steps: list[str] = []

    async def waits() -> int:
        steps.append("started")
        value = await fut
        steps.append("resumed")
        await asyncio.sleep(0)
        return value + 1

    task = run_eagerly(waits())
    assert steps == ["started"] and task is not None
    fut.set_result(41)
    assert await task == 42 and steps == ["started", "resumed"]

    cleaned: list[str] = []

    async def cancelled() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append("finally")

    task = run_eagerly(cancelled())
    assert task is not None
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally"]
