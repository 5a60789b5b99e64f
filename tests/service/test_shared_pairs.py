"""Each part that processes share, in memory and in Redis, through its protocol: the same checks
run against both implementations (the Redis one skipped without Redis), and the composition
root picks one from the broker setting. The broker's own checks, on both brokers, are in
tests/web/test_web_broker.py."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace

import pytest

from kva.config import Settings
from kva.platform import shared_redis
from kva.service.cluster.attendance import RedisAttendance
from kva.service.cluster.broker import MemoryBroker
from kva.service.cluster.chores import Chores
from kva.service.cluster.presence_store import (
    MemoryPresenceStore,
    PresenceStore,
    RedisPresenceStore,
)
from kva.service.cluster.quickgame import RedisQuickGame
from kva.service.lobby.attendance import Attendance, MemoryAttendance
from kva.service.lobby.quickgame import MemoryQuickGame, QuickGame
from kva.service.play.presence import Presence
from kva.service.play.scheduler import MatchSchedulers
from kva.service.timekeeping import SYSTEM_CLOCK, epoch_ms
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.web.test_quick_game import Clock, FakePlay

KINDS = ["memory", "redis"]


async def _redis_or_skip(kind: str) -> None:
    if kind == "redis" and not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")


def _prefix(part: str) -> str:
    return f"kva-test-{part}:{secrets.token_hex(4)}:"


@pytest.mark.parametrize(("url", "shared"), [
    (None, None), ("memory", None), (REDIS_URL, REDIS_URL)])
def test_the_composition_root_shares_redis_only_with_a_redis_broker(
        url: str | None, shared: str | None) -> None:
    settings = Settings(database_url="sqlite+aiosqlite://", broker_url=url, secret_key="k")
    assert shared_redis(settings) == shared


# ---------------------------------------------------------------------- presence store
@pytest.fixture(params=KINDS)
async def presence_store(request: pytest.FixtureRequest) -> AsyncIterator[PresenceStore]:
    await _redis_or_skip(request.param)
    store: PresenceStore = (MemoryPresenceStore() if request.param == "memory"
                            else RedisPresenceStore(REDIS_URL, prefix=_prefix("presence")))
    await store.start()
    yield store
    await store.stop()


async def test_a_presence_store_names_its_process_and_keeps_it_alive(
        presence_store: PresenceStore) -> None:
    assert isinstance(presence_store.origin, str) and presence_store.origin
    assert presence_store.dead_since(presence_store.origin) is None
    assert await presence_store.load("no-such-match") == []
    await presence_store.save("m1", 0, True, 100.0)
    await presence_store.forget("m1")
    assert await presence_store.load("m1") == []


async def test_presence_on_either_store_says_the_same(presence_store: PresenceStore) -> None:
    now = [1000.0]
    time = SimpleNamespace(now=lambda: now[0])
    play = SimpleNamespace(timers=MatchSchedulers(SYSTEM_CLOCK, epoch_ms(SYSTEM_CLOCK)))
    presence = Presence(MemoryBroker(), play, grace=5, store=presence_store,  # type: ignore[arg-type]
                        clock=time)  # type: ignore[arg-type]
    assert presence.origin == presence_store.origin
    await presence.connected("m1", 0)
    assert presence.away_since("m1", 0) is None
    assert presence.away_since("m1", 1) is None  # never connected: not away
    now[0] = 1010.0
    await presence.disconnected("m1", 0)
    assert presence.away_since("m1", 0) == 1010.0
    now[0] = 1012.0
    assert presence.message("m1", 0) == {"type": "presence", "seat": 0, "online": False,
                                         "claim_in": 3.0}


# ---------------------------------------------------------------------- attendance
@pytest.fixture(params=KINDS)
async def attendance(request: pytest.FixtureRequest) -> AsyncIterator[
        tuple[Attendance, list[float]]]:
    await _redis_or_skip(request.param)
    now = [100.0]
    clock: Callable[[], float] = lambda: now[0]  # noqa: E731
    here: Attendance = (MemoryAttendance(clock=clock) if request.param == "memory"
                        else RedisAttendance(REDIS_URL, prefix=_prefix("here"), clock=clock,
                                             heartbeat=3600))
    await here.start()
    yield here, now
    await here.stop()


async def _settled(part: object) -> None:
    """Wait for the Redis writes that ``part`` started in the background, as an attendance's
    enter or leave or a search's leave does (none in memory)."""
    chores: Chores | None = getattr(part, "_chores", None)
    if chores is not None:
        await chores.finish()


async def test_attendance_counts_sockets_and_departures(
        attendance: tuple[Attendance, list[float]]) -> None:
    here, now = attendance
    assert await here.absent_since([7]) == {7: 0.0}  # never seen
    here.enter(7)
    here.enter(7)
    here.enter(None)  # a visitor without a user is not counted
    here.leave(7)
    await _settled(here)
    assert here.here(7) and await here.absent_since([7]) == {7: None}
    now[0] = 130.0
    here.leave(7)
    here.leave(7)  # one close too many changes nothing
    await _settled(here)
    assert not here.here(7) and await here.absent_since([7]) == {7: 130.0}
    here.enter(7)
    await _settled(here)
    assert await here.absent_since([7]) == {7: None}
    assert await here.lock(1000) is True  # nobody else sweeps


# ---------------------------------------------------------------------- quick game
@pytest.fixture(params=KINDS)
async def quick(request: pytest.FixtureRequest) -> AsyncIterator[
        tuple[QuickGame, FakePlay, Clock]]:
    await _redis_or_skip(request.param)
    play, clock = FakePlay(), Clock()
    broker = MemoryBroker()
    queue: QuickGame
    if request.param == "memory":  # rounds run only when the test says
        queue = MemoryQuickGame(play, clock=clock, tick=3600)  # type: ignore[arg-type]
    else:  # nothing expires while the fake clock moves: no tick refreshes the searches
        queue = RedisQuickGame(play, broker, REDIS_URL,  # type: ignore[arg-type]
                               prefix=_prefix("quick"), clock=clock, tick=3600, expire=3600)
    yield queue, play, clock
    await queue.stop()


async def test_a_quick_game_widens_its_range_until_a_pair_is_made(
        quick: tuple[QuickGame, FakePlay, Clock]) -> None:
    queue, play, clock = quick
    a = await queue.join(1, "ana", 1500, 175, "draw", False, registered=False)
    b = await queue.join(2, "beka", 1790, 175, "draw", False, registered=False)  # gap 290
    assert play.created == [] and queue.waiting() == 2
    assert queue.status(a).range == 100
    clock.now += 19.9
    await queue.pair_now()
    assert play.created == [] and queue.status(a).range == 250
    clock.now += 0.1  # 20 s: ±300
    await queue.pair_now()
    assert play.created == [{"seat0": 1, "seat1": (2, "beka"), "opponent": "player",
                             "target": 175, "bazaar": "draw", "rated": False}]
    assert await a.result == "m1" and await b.result == "m1"
    assert queue.waiting() == 0


async def test_a_quick_game_search_that_leaves_is_cancelled(
        quick: tuple[QuickGame, FakePlay, Clock]) -> None:
    queue, play, _clock = quick
    a = await queue.join(1, "ana", 1500, 175, "draw", False, registered=False)
    queue.leave(a)
    assert a.result.cancelled() and queue.waiting() == 0
    await _settled(queue)
    await queue.join(2, "beka", 1500, 175, "draw", False, registered=False)
    await queue.pair_now()
    assert play.created == [] and queue.waiting() == 1
