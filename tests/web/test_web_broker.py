"""The broker: in memory and over Redis pub/sub, behind one interface; and two app instances
sharing a database and Redis, where an action on one reaches a client of the other."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable

import pytest

from kva.service.cluster.broker import Broker, MemoryBroker, RedisBroker, make_broker
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.helpers.webhelp import ServerThread, Visitor


def test_make_broker_picks_the_implementation() -> None:
    assert isinstance(make_broker(None), MemoryBroker)
    assert isinstance(make_broker("memory"), MemoryBroker)
    assert isinstance(make_broker("redis://127.0.0.1:6379/0"), RedisBroker)
    with pytest.raises(ValueError):
        make_broker("kafka://nowhere")


async def test_publish_reaches_every_subscriber_of_the_topic_only(broker: Broker) -> None:
    topic = f"test:{secrets.token_hex(4)}"
    a = await broker.subscribe(topic)
    b = await broker.subscribe(topic)
    other = await broker.subscribe(topic + ":other")
    await asyncio.sleep(0.05)  # Redis confirms subscriptions asynchronously
    for i in range(3):
        await broker.publish(topic, {"n": i, "text": "ქვა"})
    for sub in (a, b):
        got = [await asyncio.wait_for(sub.get(), 5) for _ in range(3)]
        assert got == [{"n": i, "text": "ქვა"} for i in range(3)]
    await asyncio.sleep(0.05)
    assert other._queue.empty()
    # After closing, a subscriber gets nothing more; the others still do.
    await a.close()
    await broker.publish(topic, {"n": 9})
    assert await asyncio.wait_for(b.get(), 5) == {"n": 9}
    await asyncio.sleep(0.05)
    assert a._queue.empty()
    for sub in (b, other):
        await sub.close()


async def test_two_redis_brokers_talk_to_each_other(redis_url: str) -> None:
    one, two = RedisBroker(redis_url), RedisBroker(redis_url)
    await one.start()
    await two.start()
    try:
        topic = f"test:{secrets.token_hex(4)}"
        sub = await two.subscribe(topic)
        await asyncio.sleep(0.05)
        await one.publish(topic, {"hello": "there"})
        assert await asyncio.wait_for(sub.get(), 5) == {"hello": "there"}
        await sub.close()
    finally:
        await one.stop()
        await two.stop()


async def test_an_action_on_one_instance_reaches_a_client_of_another(
    make_server: Callable[..., ServerThread], redis_url: str
) -> None:
    first = make_server(broker_url=redis_url)
    second = make_server(broker_url=redis_url)
    async with Visitor(first.base_url) as host, Visitor(second.base_url) as guest:
        match_id = await host.new_match("friend", target=75)
        token = await host.share_token(match_id)
        a = await host.connect(match_id)  # host on instance 1
        r = await guest.http.get(f"/t/{token}")  # guest joins through instance 2
        assert r.status_code == 303
        joined = await a.wait_state(2)  # the join, made on 2, reached 1's client
        assert joined["event"]["kind"] == "join"
        b = await guest.connect(match_id)  # guest plays on instance 2
        # Whoever moves, the other instance's client sees it, several times over.
        for _ in range(6):
            mover, other = (a, b) if a.my_turn() else (b, a)
            if not mover.my_turn():
                await asyncio.sleep(0.05)
                continue
            reply = await mover.play_first_legal()
            assert reply["type"] == "state", reply
            seen = await other.wait_state(reply["version"])
            assert seen["view"]["board"] == reply["view"]["board"]
        await a.close()
        await b.close()


async def test_brokers_on_two_redis_databases_do_not_hear_each_other() -> None:
    """Redis has one pub/sub space for all its databases: the channel names carry the
    database, so two deployments on one Redis stay apart."""
    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    base = REDIS_URL.rsplit("/", 1)[0]
    one, other = RedisBroker(f"{base}/13"), RedisBroker(f"{base}/12")
    assert (one.prefix, other.prefix) == ("kva:13:", "kva:12:")
    assert RedisBroker(f"{base}/0").prefix == "kva:"
    await one.start()
    await other.start()
    try:
        topic = f"test:{secrets.token_hex(4)}"
        heard = await other.subscribe(topic)
        mine = await one.subscribe(topic)
        await one.publish(topic, {"n": 1})
        assert await asyncio.wait_for(mine.get(), 2) == {"n": 1}
        await asyncio.sleep(0.2)
        assert heard._queue.empty()
    finally:
        await one.stop()
        await other.stop()
