"""The Redis broker delivers a message to its own process's subscribers at publish time and to
the other processes' through Redis: each subscriber gets each message exactly once, in publish
order per topic, and a process never decodes Redis's echo of its own messages."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kva.service.cluster.broker import RedisBroker, Subscription


@pytest.fixture
async def pair(redis_url: str) -> AsyncIterator[tuple[RedisBroker, RedisBroker]]:
    """Two brokers on one Redis, as two processes have."""
    one, two = RedisBroker(redis_url), RedisBroker(redis_url)
    await one.start()
    await two.start()
    yield one, two
    await one.stop()
    await two.stop()


@pytest.fixture
def topic() -> str:
    return f"test:{secrets.token_hex(4)}"


async def mark(broker: RedisBroker, topic: str) -> None:
    """Publish a mark after the messages under test, named after ``broker``."""
    await broker.publish(topic, {"mark": broker.origin})


async def drain_until_mark(sub: Subscription, of: RedisBroker) -> list[dict[str, Any]]:
    """Every message ``sub`` gets before the mark of ``of``, the broker on the *other* side of
    Redis from ``sub``'s, other marks left out. Redis sends a connection the messages in the
    order it took them, so by the time that mark is here every earlier message of the
    publisher, and any echo of one, would be here too."""
    got = []
    while (message := await asyncio.wait_for(sub.get(), 5)) != {"mark": of.origin}:
        if "mark" not in message:
            got.append(message)
    return got


async def nothing_more(*subs: Subscription) -> bool:
    """Whether the subscriptions get no message but marks within a moment."""
    await asyncio.sleep(0.05)
    return all("mark" in sub._queue.get_nowait()
               for sub in subs for _ in range(sub._queue.qsize()))


def counting_fan_out(broker: RedisBroker) -> list[str]:
    """Record the topic of every fan-out ``broker`` makes to its local subscribers."""
    seen: list[str] = []
    fan_out = broker._fan_out

    def spy(topic: str, message: dict[str, Any]) -> None:
        seen.append(topic)
        fan_out(topic, message)

    broker._fan_out = spy  # type: ignore[method-assign]
    return seen


async def test_a_message_reaches_local_and_remote_subscribers_exactly_once(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, two = pair
    here, there = await one.subscribe(topic), await two.subscribe(topic)
    await asyncio.sleep(0.05)  # Redis confirms subscriptions asynchronously
    sent = [{"n": i, "text": "ქვა"} for i in range(5)]
    for message in sent:
        await one.publish(topic, message)
    await mark(two, topic)
    await mark(one, topic)
    assert await drain_until_mark(here, of=two) == sent
    assert await drain_until_mark(there, of=one) == sent
    assert await nothing_more(here, there)


async def test_local_subscribers_have_the_message_when_publish_returns(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, _ = pair
    sub = await one.subscribe(topic)
    await one.publish(topic, {"n": 1})
    assert sub._queue.get_nowait() == {"n": 1}


async def test_the_own_echo_is_dropped_before_decoding(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, two = pair
    here = await one.subscribe(topic)
    await asyncio.sleep(0.05)
    fanned = counting_fan_out(one)
    for i in range(3):
        await one.publish(topic, {"n": i})
    await mark(two, topic)
    assert len(await drain_until_mark(here, of=two)) == 3
    # Three fan-outs at publish time and one for the mark: none for the three echoes.
    assert fanned == [topic] * 4


def test_an_echo_is_recognised_by_its_tag_alone(caplog: pytest.LogCaptureFixture) -> None:
    broker = RedisBroker("redis://127.0.0.1:6379/15")  # never connects: no Redis needed
    fanned = counting_fan_out(broker)
    channel = (broker.prefix + "t").encode()
    with caplog.at_level(logging.WARNING):
        broker._received(channel, broker.origin.encode() + b"not JSON at all")
    assert fanned == [] and not caplog.records
    other = "0" * RedisBroker.ORIGIN_LEN
    broker._received(channel, (other + '{"n": 1}').encode())
    broker._received(channel, b'{"untagged": 1}')  # no origin: malformed, dropped
    assert fanned == ["t"]
    assert "malformed" in caplog.text


async def test_order_per_topic_is_the_publish_order_everywhere(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, two = pair
    other = topic + ":other"
    here = {t: await one.subscribe(t) for t in (topic, other)}
    there = {t: await two.subscribe(t) for t in (topic, other)}
    await asyncio.sleep(0.05)
    for i in range(40):  # interleaved on two topics, one after the other
        await one.publish(topic if i % 2 else other, {"n": i})
    for t in (topic, other):
        await mark(two, t)
        await mark(one, t)
    for t, parity in ((topic, 1), (other, 0)):
        expected = [{"n": i} for i in range(40) if i % 2 == parity]
        assert await drain_until_mark(here[t], of=two) == expected
        assert await drain_until_mark(there[t], of=one) == expected


async def test_concurrent_publishes_reach_local_subscribers_in_call_order(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, _ = pair
    sub = await one.subscribe(topic)
    await asyncio.gather(*(one.publish(topic, {"n": i}) for i in range(20)))
    assert [sub._queue.get_nowait() for _ in range(20)] == [{"n": i} for i in range(20)]


async def test_local_subscribers_are_served_even_when_redis_refuses_the_publish(
    pair: tuple[RedisBroker, RedisBroker], topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = pair
    sub = await one.subscribe(topic)

    async def refuse(*args: object) -> None:
        raise ConnectionError("Redis is gone")

    monkeypatch.setattr(one._redis, "publish", refuse)
    with pytest.raises(ConnectionError):
        await one.publish(topic, {"n": 1})
    assert sub._queue.get_nowait() == {"n": 1}


async def test_an_unserialisable_message_reaches_no_one(
    pair: tuple[RedisBroker, RedisBroker], topic: str
) -> None:
    one, _ = pair
    sub = await one.subscribe(topic)
    with pytest.raises(TypeError):
        await one.publish(topic, {"what": object()})
    assert sub._queue.empty()
