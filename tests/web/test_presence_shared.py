"""Presence with the players on two processes (Redis): what a process missed while none of its
sockets watched the match, and the players of a process that died, count as away."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from kva.service.broker import MemoryBroker
from kva.service.play import topic
from kva.service.presence import Presence
from kva.service.presence_store import RedisPresenceStore, make_presence_store
from tests.helpers.community_help import make_user, next_message, signed_in, store_match


def _presence(seat: int, online: bool):  # type: ignore[no-untyped-def]
    return lambda m: (m.get("type") == "presence" and m["seat"] == seat
                      and m["online"] is online)


def test_the_store_follows_the_broker_setting() -> None:
    assert make_presence_store(None) is None and make_presence_store("memory") is None
    assert isinstance(make_presence_store("redis://127.0.0.1:6379/15"), RedisPresenceStore)


async def test_a_player_who_left_while_no_socket_here_watched_is_away(
    make_server: Any, sessions: Any, redis_url: str
) -> None:
    one = make_server(broker_url=redis_url, disconnect_grace=0.6)
    two = make_server(broker_url=redis_url, disconnect_grace=0.6)
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await store_match(sessions, [(a, None), (b, None)])
    va, vb = await signed_in(one.base_url, a), await signed_in(two.base_url, b)
    sa = await va.connect(match_id)  # a on process one, before two watches the match
    sb = await vb.connect(match_id)  # b on process two
    await sb.close()  # two watches nothing now
    await asyncio.sleep(0.1)
    await sa.close()  # a leaves: process two is not listening
    await asyncio.sleep(0.1)
    count = 0
    sb = await vb.connect(match_id)  # b comes back to process two
    away = await next_message(sb, count, _presence(0, False))
    assert 0 <= away["claim_in"] <= 0.6
    await asyncio.sleep(0.7)
    await sb.send({"type": "claim_win"})
    end = await sb.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"])
    assert end["event"]["kind"] == "forfeit" and end["event"]["reason"] == "abandon"
    assert end["view"]["winner"] == 1
    await sb.close()
    await va.__aexit__(None, None, None)
    await vb.__aexit__(None, None, None)


async def test_the_players_of_a_dead_process_are_away_once_it_expires(redis_url: str) -> None:
    prefix = f"kva-test-presence:{secrets.token_hex(4)}:"
    dying = RedisPresenceStore(redis_url, prefix=prefix, heartbeat=3600, expire=0.3)
    living = RedisPresenceStore(redis_url, prefix=prefix, heartbeat=0.05, expire=0.3)
    broker = MemoryBroker()
    p1 = Presence(MemoryBroker(), None, grace=5, store=dying)  # type: ignore[arg-type]
    p2 = Presence(broker, None, grace=5, store=living)  # type: ignore[arg-type]
    heard = await broker.subscribe(topic("m1"))
    await p1.start()
    await p2.start()
    try:
        await p1.connected("m1", 0)  # a player on the process that will die
        await p2.connected("m1", 1)
        assert p2.away_since("m1", 0) is None  # learnt from the store, online on p1
        await asyncio.sleep(0.6)  # p1 never refreshes its liveness: it is dead now
        since = p2.away_since("m1", 0)
        assert since is not None
        assert p2.message("m1", 0)["online"] is False
        # p2's viewers of the match are told that seat 0 went away.
        told = []
        while not heard._queue.empty():
            told.append(heard._queue.get_nowait())
        assert any(m.get("broadcast", {}).get("seat") == 0
                   and m["broadcast"]["online"] is False for m in told), told
    finally:
        await p1.stop()
        await p2.stop()
