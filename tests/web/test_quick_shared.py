"""Quick game across processes (kva.service.cluster.quickgame): the queue in Redis, searchers on
two processes paired into one match, cancelled and crashed searches gone. Skipped without Redis."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.cluster.broker import RedisBroker
from kva.service.cluster.quickgame import RedisQuickGame
from kva.service.lobby.quickgame import QuickGameError
from kva.storage.models import MatchRow
from tests.helpers.accounts_help import JsonSocket, ws_url
from tests.helpers.webhelp import Visitor
from tests.web.test_quick_game import FakePlay


class Cluster:
    """Two "processes" on one Redis: a broker and a shared queue each, one key prefix."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.prefix = f"kva-test:{secrets.token_hex(4)}:"
        self.play = FakePlay()
        self.brokers: list[RedisBroker] = []
        self.queues: list[RedisQuickGame] = []

    async def process(self, **kwargs: Any) -> RedisQuickGame:
        broker = RedisBroker(self.url)
        await broker.start()
        self.brokers.append(broker)
        queue = RedisQuickGame(self.play, broker, self.url,  # type: ignore[arg-type]
                               prefix=self.prefix, **kwargs)
        self.queues.append(queue)
        return queue

    async def close(self) -> None:
        for queue in self.queues:
            await queue.stop()
        for broker in self.brokers:
            await broker.stop()


@pytest.fixture
async def cluster(redis_url: str) -> AsyncIterator[Cluster]:
    c = Cluster(redis_url)
    yield c
    await c.close()


async def test_searchers_on_two_processes_are_paired_once(cluster: Cluster) -> None:
    one, two = await cluster.process(), await cluster.process()
    a = await one.join(1, "ana", 1500, 75, "draw", False, registered=False)
    await asyncio.sleep(0.01)
    b = await two.join(2, "beka", 1550, 75, "draw", False, registered=False)
    got = await asyncio.wait_for(asyncio.gather(a.result, b.result), 5)
    assert got[0] == got[1] == "m1"
    assert cluster.play.created == [{"seat0": 1, "seat1": (2, "beka"), "opponent": "player",
                                     "target": 75, "bazaar": "draw", "rated": False}]
    assert await one.searching() == 0 and one.waiting() == 0 and two.waiting() == 0


async def test_many_searchers_over_two_processes_each_get_one_match(cluster: Cluster) -> None:
    one, two = await cluster.process(tick=0.05), await cluster.process(tick=0.05)
    searches = [await (one if uid % 2 else two).join(uid, f"p{uid}", 1500, 175, "draw", False,
                                                     registered=False)
                for uid in range(1, 11)]
    results = await asyncio.wait_for(asyncio.gather(*(s.result for s in searches)), 10)
    assert len(cluster.play.created) == 5  # every pair created once
    for match_id in set(results):
        assert results.count(match_id) == 2
    seated = [p["seat0"] for p in cluster.play.created] + [
        p["seat1"][0] for p in cluster.play.created]
    assert sorted(seated) == list(range(1, 11))


async def test_a_cancelled_search_leaves_every_process(cluster: Cluster) -> None:
    one, two = await cluster.process(), await cluster.process()
    a = await one.join(1, "ana", 1500, 75, "pass-only", False, registered=False)
    assert await two.searching() == 1
    one.leave(a)
    assert a.result.cancelled()
    for _ in range(100):
        if await two.searching() == 0:
            break
        await asyncio.sleep(0.01)
    assert await two.searching() == 0
    b = await two.join(2, "beka", 1500, 75, "pass-only", False, registered=False)
    await asyncio.sleep(0.3)
    await two.pair_now()
    assert cluster.play.created == [] and not b.result.done()


async def test_a_crashed_process_searches_expire(cluster: Cluster) -> None:
    # Process one never refreshes its search (a tick of an hour): as if it had died.
    one = await cluster.process(tick=3600, expire=0.4)
    two = await cluster.process(tick=0.05)
    await one.join(1, "ana", 1500, 75, "draw", False, registered=False)
    assert await two.searching() == 1
    await asyncio.sleep(0.6)
    assert await two.searching() == 0
    b = await two.join(2, "beka", 1500, 75, "draw", False, registered=False)
    await asyncio.sleep(0.3)
    assert cluster.play.created == [] and not b.result.done()
    # A live process's searches do not expire: two keeps refreshing b past its expiry.
    assert await two.searching() == 1


async def test_searching_again_elsewhere_replaces_the_first_search(cluster: Cluster) -> None:
    one, two = await cluster.process(), await cluster.process()
    first = await one.join(1, "ana", 1500, 75, "draw", False, registered=False)
    second = await two.join(1, "ana", 1500, 175, "draw", False, registered=False)
    with pytest.raises(QuickGameError) as replaced:
        await asyncio.wait_for(first.result, 5)
    assert replaced.value.code == "replaced"
    assert not second.result.done() and await one.searching() == 1


def _quick_url(base_url: str, target: int = 75, bazaar: str = "draw") -> str:
    return ws_url(base_url, f"/ws/quick?target={target}&bazaar={bazaar}&rated=0")


async def test_players_on_two_app_instances_are_paired_into_one_match(
    make_server: Callable[..., Any], sessions: async_sessionmaker, redis_url: str
) -> None:
    first = make_server(broker_url=redis_url)
    second = make_server(broker_url=redis_url)
    target = 255  # settings no other test of this Redis searches with
    async with Visitor(first.base_url) as a, Visitor(second.base_url) as b:
        await a.http.get("/quick", params={"target": str(target), "bazaar": "pass-only"})
        await b.http.get("/quick", params={"target": str(target), "bazaar": "pass-only"})
        sa = await JsonSocket(_quick_url(first.base_url, target, "pass-only"), a.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting")
        started = time.monotonic()
        sb = await JsonSocket(_quick_url(second.base_url, target, "pass-only"),
                              b.cookie).open()
        try:
            pa = await sa.wait_for(lambda m: m.get("type") == "paired")
            pb = await sb.wait_for(lambda m: m.get("type") == "paired")
            print(f"paired across processes in {1000 * (time.monotonic() - started):.0f} ms")
            assert pa["match_id"] == pb["match_id"]
            # Each player opens the match on their own instance: seat 0 waited longer.
            for v, seat in ((a, 0), (b, 1)):
                sock = await v.connect(pa["match_id"])
                try:
                    assert sock.state["you"] == seat and sock.state["status"] == "active"
                finally:
                    await sock.close()
            async with sessions() as s:
                row = await s.get(MatchRow, pa["match_id"])
                assert row is not None and row.target == target and row.bazaar == "pass-only"
        finally:
            await sa.close()
            await sb.close()


async def test_a_pair_whose_claimer_died_is_searched_again(cluster: Cluster) -> None:
    # Process three claims a pair in its round, then dies before creating the match: both
    # searches are out of the queue with no outcome. Their processes put them back once the
    # claim's "pending" mark has run out, and they are paired again, once.
    one = await cluster.process(tick=0.05, expire=0.3, result_ms=300)
    two = await cluster.process(tick=0.05, expire=0.3, result_ms=300)
    dying = await cluster.process(tick=3600, expire=0.3, result_ms=300)

    async def no_pairing() -> None:  # one and two must not pair before three claims
        return None

    one.pair_now = two.pair_now = no_pairing  # type: ignore[method-assign]
    a = await one.join(1, "ana", 1500, 75, "draw", False, registered=False)
    b = await two.join(2, "beka", 1500, 75, "draw", False, registered=False)
    claimed = await dying._claim(int(time.time() * 1000), a.id, 1, b.id, 2)  # noqa: SLF001
    assert claimed and await one.searching() == 0
    await asyncio.sleep(0.2)
    assert not a.result.done() and await one.searching() == 0  # pending: not searched again
    del one.pair_now, two.pair_now  # back to the real pairing rounds
    got = await asyncio.wait_for(asyncio.gather(a.result, b.result), 5)
    assert got[0] == got[1] and len(cluster.play.created) == 1


@pytest.mark.parametrize("how", ["cancel", "close"])
async def test_a_search_cancelled_or_closed_on_one_instance_is_not_paired_on_another(
    make_server: Callable[..., Any], redis_url: str, how: str
) -> None:
    first = make_server(broker_url=redis_url)
    second = make_server(broker_url=redis_url)
    target = 355  # settings no other test of this Redis searches with
    async with Visitor(first.base_url) as a, Visitor(second.base_url) as b:
        for v in (a, b):
            await v.http.get("/quick", params={"target": str(target), "bazaar": "pass-only"})
        sa = await JsonSocket(_quick_url(first.base_url, target, "pass-only"), a.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting")
        if how == "cancel":
            await sa.send({"type": "cancel"})
            await sa.wait_for(lambda m: m.get("type") == "cancelled")
        else:
            await sa.close()
        await asyncio.sleep(0.2)
        sb = await JsonSocket(_quick_url(second.base_url, target, "pass-only"),
                              b.cookie).open()
        try:
            await sb.wait_for(lambda m: m.get("type") == "waiting")
            await asyncio.sleep(1.2)  # two pairing rounds
            assert not any(m.get("type") == "paired" for m in sb.messages)
        finally:
            await sb.close()
            await sa.close()
