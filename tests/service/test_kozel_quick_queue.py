"""The quick game for Kozel, in one process's memory and in Redis (several processes), through
the one :class:`kva.service.lobby.quickgame.QuickGame` protocol: full tables start with
everyone seated, and after the wait a searcher may take bots for the free seats (a fake clock
stands in for time; the Redis cases are skipped without Redis)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.cluster.broker import MemoryBroker
from kva.service.cluster.chores import Chores
from kva.service.cluster.quickgame import RedisQuickGame
from kva.service.lobby.quickgame import MemoryQuickGame, QuickGame, QuickGameError
from kva.service.play import PlayService
from tests.helpers.community_help import make_user
from tests.helpers.redis_help import REDIS_URL, redis_up

BOT_OFFER = 20.0


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


#: Makes one process's queue (several calls: several processes on one Redis).
Processes = Callable[[], QuickGame]


@pytest.fixture(params=["memory", "redis"])
async def processes(request: pytest.FixtureRequest, play: PlayService
                    ) -> AsyncIterator[tuple[Processes, Clock]]:
    """Queues on one play service and clock: always the same one in memory; a new process on
    one Redis prefix and broker each call for Redis (rounds run only when the test says, and
    nothing expires while the fake clock moves)."""
    if request.param == "redis" and not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    clock = Clock()
    made: list[QuickGame] = []
    broker = MemoryBroker()
    prefix = f"kva-test-kozel-quick:{secrets.token_hex(4)}:"

    def make() -> QuickGame:
        queue: QuickGame
        if request.param == "memory":
            if made:
                return made[0]
            queue = MemoryQuickGame(play, clock=clock, tick=3600, bot_offer=BOT_OFFER)
        else:
            queue = RedisQuickGame(play, broker, REDIS_URL, prefix=prefix, clock=clock,
                                   tick=3600, expire=3600, bot_offer=BOT_OFFER)
        made.append(queue)
        return queue

    yield make, clock
    for queue in made:
        await queue.stop()


async def test_a_full_table_of_three_starts_with_everyone(
    sessions: async_sessionmaker, play: PlayService, processes: tuple[Processes, Clock],
) -> None:
    make, _clock = processes
    quick = make()
    users = [await make_user(sessions) for _ in range(3)]
    searches = [await quick.join_table(u.id, u.nickname, 0, 3, "all") for u in users]
    match_ids = {await asyncio.wait_for(s.result, 10) for s in searches}
    assert len(match_ids) == 1
    state = await play.state_for(match_ids.pop(), users[2].id)
    assert state["status"] == "active" and len(state["players"]) == 3


async def test_searchers_on_different_processes_share_one_table(
    sessions: async_sessionmaker, play: PlayService, processes: tuple[Processes, Clock],
) -> None:
    make, _clock = processes
    users = [await make_user(sessions) for _ in range(4)]
    searches = [await make().join_table(u.id, u.nickname, 0, 4, "one") for u in users]
    match_ids = {await asyncio.wait_for(s.result, 10) for s in searches}
    assert len(match_ids) == 1
    state = await play.state_for(match_ids.pop(), users[0].id)
    assert state["status"] == "active"
    assert {p["name"] for p in state["players"]} == {u.nickname for u in users}


async def test_different_seats_or_fish_never_share_a_table(
    sessions: async_sessionmaker, processes: tuple[Processes, Clock],
) -> None:
    make, _clock = processes
    quick = make()
    users = [await make_user(sessions) for _ in range(3)]
    searches = [await quick.join_table(users[0].id, users[0].nickname, 0, 3, "all"),
                await quick.join_table(users[1].id, users[1].nickname, 0, 3, "one"),
                await quick.join_table(users[2].id, users[2].nickname, 0, 4, "all")]
    await quick.pair_now()
    assert not any(s.result.done() for s in searches)


async def test_a_searcher_who_left_is_not_seated(
    sessions: async_sessionmaker, processes: tuple[Processes, Clock],
) -> None:
    make, _clock = processes
    users = [await make_user(sessions) for _ in range(3)]
    theirs = make()
    gone = await theirs.join_table(users[0].id, users[0].nickname, 0, 3, "all")
    theirs.leave_table(gone)
    # Redis hears of the leave in a background task: let it finish
    chores: Chores | None = getattr(theirs, "_chores", None)
    if chores is not None:
        await chores.finish()
    quick = make()
    rest = [await quick.join_table(u.id, u.nickname, 0, 3, "all") for u in users[1:]]
    await quick.pair_now()
    assert gone.result.cancelled()
    assert not any(s.result.done() for s in rest)


async def test_bots_are_offered_after_the_wait_and_fill_the_free_seats(
    sessions: async_sessionmaker, play: PlayService, processes: tuple[Processes, Clock],
) -> None:
    make, clock = processes
    me, other = await make_user(sessions), await make_user(sessions)
    quick = make()
    mine = await quick.join_table(me.id, me.nickname, 0, 4, "one")
    theirs = await make().join_table(other.id, other.nickname, 40, 4, "one")
    assert not quick.table_status(mine).offer_bot
    with pytest.raises(QuickGameError, match="after a wait") as early:
        await quick.accept_bots(mine)
    assert early.value.code == "too_early"
    clock.now += BOT_OFFER
    assert quick.table_status(mine).offer_bot
    await quick.accept_bots(mine)
    match_id = await asyncio.wait_for(mine.result, 10)
    assert await asyncio.wait_for(theirs.result, 10) == match_id
    state = await play.state_for(match_id, me.id)
    assert state["status"] == "active" and len(state["players"]) == 4


async def test_bots_for_a_search_already_seated_are_refused(
    sessions: async_sessionmaker, processes: tuple[Processes, Clock],
) -> None:
    make, clock = processes
    quick = make()
    users = [await make_user(sessions) for _ in range(3)]
    searches = [await quick.join_table(u.id, u.nickname, 0, 3, "all") for u in users]
    await asyncio.wait_for(searches[0].result, 10)
    clock.now += BOT_OFFER
    with pytest.raises(QuickGameError) as err:
        await quick.accept_bots(searches[0])
    assert err.value.code == "not_searching"


async def test_bad_kozel_searches_are_refused(processes: tuple[Processes, Clock]) -> None:
    make, _clock = processes
    quick = make()
    with pytest.raises(QuickGameError, match="3 or 4"):
        await quick.join_table(1, "a", 0, 2, "all")
    with pytest.raises(QuickGameError, match="fish"):
        await quick.join_table(1, "a", 0, 3, "some")


async def test_a_search_counts_the_players_found_for_its_table(
    sessions: async_sessionmaker, processes: tuple[Processes, Clock],
) -> None:
    make, _clock = processes
    users = [await make_user(sessions) for _ in range(3)]
    quick = make()
    mine = await quick.join_table(users[0].id, users[0].nickname, 0, 4, "all")
    assert quick.table_status(mine).found == 1
    await make().join_table(users[1].id, users[1].nickname, 0, 4, "all")
    await make().join_table(users[2].id, users[2].nickname, 0, 3, "all")  # another table
    await quick.pair_now()
    assert quick.table_status(mine).found == 2
