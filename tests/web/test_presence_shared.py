"""Presence with the players on two processes (Redis): what a process missed while none of its
sockets watched the match, and the players of a process that died, count as away."""

from __future__ import annotations

import asyncio
import secrets
from types import SimpleNamespace
from typing import Any

from kva.service.cluster.broker import MemoryBroker
from kva.service.cluster.presence_store import RedisPresenceStore
from kva.service.play import topic
from kva.service.play.presence import Presence
from kva.service.play.scheduler import MatchSchedulers
from kva.service.timekeeping import SYSTEM_CLOCK, epoch_ms
from kva.storage.db import Database
from tests.helpers.community_help import make_user, next_message, signed_in, store_match


def _presence(seat: int, online: bool):  # type: ignore[no-untyped-def]
    return lambda m: (m.get("type") == "presence" and m["seat"] == seat
                      and m["online"] is online)


async def test_a_player_who_left_while_no_socket_here_watched_is_away(
    make_server: Any, database: Database, sessions: Any, redis_url: str
) -> None:
    one = make_server(broker_url=redis_url, disconnect_grace=0.6)
    two = make_server(broker_url=redis_url, disconnect_grace=0.6)
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await store_match(database, [(a, None), (b, None)])
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
    # what presence reads of a play service here: the match timers it cancels when it stops
    play = SimpleNamespace(timers=MatchSchedulers(SYSTEM_CLOCK, epoch_ms(SYSTEM_CLOCK)))
    p1 = Presence(MemoryBroker(), play, grace=5, store=dying)  # type: ignore[arg-type]
    p2 = Presence(broker, play, grace=5, store=living)  # type: ignore[arg-type]
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


async def test_a_process_that_starts_watching_learns_the_spectators_of_another(
    make_server: Any, database: Database, sessions: Any, redis_url: str
) -> None:
    one = make_server(broker_url=redis_url)
    two = make_server(broker_url=redis_url)
    a, b, fan = await make_user(sessions), await make_user(sessions), await make_user(sessions)
    match_id = await store_match(database, [(a, None), (b, None)])
    vf, va = await signed_in(two.base_url, fan), await signed_in(one.base_url, a)
    watching = await vf.connect(match_id)  # a spectator on process two, before one watches
    await watching.wait_for(lambda m: m.get("type") == "spectators" and m["count"] == 1)
    player = await va.connect(match_id)  # process one's first socket of the match
    told = await player.wait_for(lambda m: m.get("type") == "spectators" and m["count"] == 1)
    assert told == {"type": "spectators", "count": 1}
    await watching.close()
    await player.wait_for(lambda m: m.get("type") == "spectators" and m["count"] == 0)
    await player.close()
    await vf.__aexit__(None, None, None)
    await va.__aexit__(None, None, None)


async def test_the_shared_store_keeps_every_seat_of_a_table_of_four(redis_url: str) -> None:
    prefix = f"kva-test-presence:{secrets.token_hex(4)}:"
    store = RedisPresenceStore(redis_url, prefix=prefix, heartbeat=3600, expire=30)
    await store.start()
    try:
        for seat in range(4):
            await store.save("m4", seat, seat % 2 == 0, 100.0 + seat)
        records = sorted(await store.load("m4"))
        assert [(seat, online, at) for seat, _origin, online, at in records] == [
            (0, True, 100.0), (1, False, 101.0), (2, True, 102.0), (3, False, 103.0)]
        await store.forget("m4")
    finally:
        await store.stop()
