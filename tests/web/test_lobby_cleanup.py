"""The lobby's cleanup: an open table whose creator has had no connection on any process for
the grace period is cancelled and leaves the lobby; attendance counted in one process and
shared through Redis (two processes, a crashed one)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.cluster import attendance
from kva.service.cluster.attendance import RedisAttendance
from kva.service.lobby.attendance import MemoryAttendance
from kva.service.lobby.sweeper import TableSweeper
from kva.storage.models import MatchRow
from tests.helpers.accounts_help import JsonSocket, open_table, ws_url
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.helpers.webhelp import Visitor

GRACE = 0.6


async def test_attendance_in_one_process() -> None:
    now = [100.0]
    here = MemoryAttendance(clock=lambda: now[0])
    assert await here.absent_since([7]) == {7: 0.0}  # never seen
    here.enter(7)
    here.enter(7)
    here.enter(None)  # a visitor without a user is not counted
    here.leave(7)
    assert await here.absent_since([7]) == {7: None}  # one socket still open
    now[0] = 130.0
    here.leave(7)
    here.leave(7)  # one close too many changes nothing
    assert await here.absent_since([7]) == {7: 130.0}
    here.enter(7)
    assert await here.absent_since([7]) == {7: None}


async def test_attendance_is_shared_between_processes(redis_url: str) -> None:
    prefix = f"kva-test-here:{secrets.token_hex(4)}:"
    one = RedisAttendance(redis_url, prefix=prefix, heartbeat=0.1, expire=0.5)
    two = RedisAttendance(redis_url, prefix=prefix, heartbeat=0.1, expire=0.5)
    await one.start()
    await two.start()
    try:
        one.enter(1)
        two.enter(2)
        one.enter(2)
        await asyncio.sleep(0.1)
        assert await two.absent_since([1, 2, 3]) == {1: None, 2: None, 3: 0.0}
        before = time.time()
        one.leave(1)
        two.leave(2)  # still on process one
        await asyncio.sleep(0.1)
        seen = await two.absent_since([1, 2])
        assert seen[2] is None
        assert seen[1] is not None and before - 0.05 <= seen[1] <= time.time()
        await asyncio.sleep(0.8)  # past the expiry: the refreshes keep process one's user 2
        assert (await two.absent_since([2]))[2] is None
    finally:
        await one.stop()
        await two.stop()


async def test_a_heartbeat_refreshes_every_user_of_the_process_in_batches(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven users in script calls of three: every one is here (until the expiry) and no
    longer gone, whichever batch they were in."""
    import redis.asyncio as redis

    monkeypatch.setattr(attendance, "REFRESH_BATCH", 3)
    prefix = f"kva-test-here:{secrets.token_hex(4)}:"
    one = RedisAttendance(redis_url, prefix=prefix, heartbeat=3600, expire=5.0)
    other = RedisAttendance(redis_url, prefix=prefix)
    client = redis.from_url(redis_url)
    users = list(range(1, 8))
    try:
        for uid in users:  # each left some process earlier
            await client.set(f"{prefix}gone:{uid}", 1000)
        assert await other.absent_since(users) == {uid: 1.0 for uid in users}
        await one._refresh(users)  # noqa: SLF001 (the heartbeat's work, without its timer)
        assert await other.absent_since(users) == {uid: None for uid in users}
        assert await client.exists(*(f"{prefix}gone:{uid}" for uid in users)) == 0
        lives = [await client.pttl(f"{prefix}{uid}") for uid in users]
        assert all(5000 < life <= 6000 for life in lives), lives
    finally:
        await client.delete(*(f"{prefix}{uid}" for uid in users))
        await client.aclose()
        await one.stop()
        await other.stop()


async def test_a_crashed_process_users_are_gone_once_it_expires(redis_url: str) -> None:
    prefix = f"kva-test-here:{secrets.token_hex(4)}:"
    crashed = RedisAttendance(redis_url, prefix=prefix, heartbeat=3600, expire=0.3)
    other = RedisAttendance(redis_url, prefix=prefix)
    try:
        crashed.enter(5)  # its heartbeat never runs again (as if the process died)
        await asyncio.sleep(0.1)
        assert (await other.absent_since([5]))[5] is None
        await asyncio.sleep(0.4)
        since = (await other.absent_since([5]))[5]
        assert since is not None and since <= time.time() - 0.3
    finally:
        crashed._sockets._count.clear()  # noqa: SLF001 (nothing to leave: it "crashed")
        await crashed.stop()
        await other.stop()


class FakeTable:
    def __init__(self, id: str, creator_id: int, created_at: str,
                 joiners: tuple[int, ...] = ()) -> None:
        self.id, self.creator_id, self.created_at = id, creator_id, created_at
        self.seats = [{"user_id": creator_id}, *({"user_id": j} for j in joiners),
                      {"user_id": None}]


class FakeLobby:
    def __init__(self, tables: list[FakeTable]) -> None:
        self.list = tables

    async def tables(self) -> list[FakeTable]:
        return self.list


class FakeService:
    def __init__(self, lobby: FakeLobby) -> None:
        self.lobby = lobby
        self.cancelled: list[tuple[str, int]] = []
        self.freed: list[tuple[str, int]] = []

    async def leave_seat(self, match_id: str, user_id: int) -> bool:
        self.freed.append((match_id, user_id))
        return True

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        self.cancelled.append((match_id, user_id))
        self.lobby.list = [t for t in self.lobby.list if t.id != match_id]
        return True


async def test_the_sweeper_cancels_only_tables_left_for_the_grace_period() -> None:
    from datetime import UTC, datetime

    now = [1_000_000.0]
    created = datetime.fromtimestamp(now[0], UTC).isoformat()
    lobby = FakeLobby([FakeTable("gone", 1, created), FakeTable("here", 2, created),
                       FakeTable("never", 3, created), FakeTable("back", 4, created)])
    service = FakeService(lobby)
    here = MemoryAttendance(clock=lambda: now[0])
    sweeper = TableSweeper(lobby, service, here, grace=60,  # type: ignore[arg-type]
                           clock=lambda: now[0])
    here.enter(1)
    here.enter(2)
    here.enter(4)
    now[0] += 30
    here.leave(1)  # gone at +30
    here.leave(4)
    assert await sweeper.sweep() == []  # every table younger than the grace period
    now[0] += 31  # +61
    here.enter(4)  # came back
    assert await sweeper.sweep() == ["never"]  # never connected: counted from creation
    now[0] += 30  # +91: 1 gone for 61 s
    assert await sweeper.sweep() == ["gone"]
    assert service.cancelled == [("never", 3), ("gone", 1)]


async def test_the_sweeper_frees_the_seats_of_joiners_gone_for_the_grace_period() -> None:
    from datetime import UTC, datetime

    now = [1_000_000.0]
    created = datetime.fromtimestamp(now[0], UTC).isoformat()
    lobby = FakeLobby([FakeTable("kozel", 1, created, joiners=(5, 6))])
    service = FakeService(lobby)
    here = MemoryAttendance(clock=lambda: now[0])
    sweeper = TableSweeper(lobby, service, here, grace=60,  # type: ignore[arg-type]
                           clock=lambda: now[0])
    for user in (1, 5, 6):
        here.enter(user)
    now[0] += 30
    here.leave(6)  # gone at +30; 5 and the creator stay
    now[0] += 31
    assert await sweeper.sweep() == [] and service.freed == []
    now[0] += 30  # +91: 6 gone for 61 s
    assert await sweeper.sweep() == []
    assert service.freed == [("kozel", 6)] and service.cancelled == []


async def test_departures_older_than_the_grace_are_forgotten_without_changing_a_sweep() -> None:
    """Memory stays flat however many players come and go (issue 14: no growth across rounds
    of the same load), and the sweeper decides exactly as if every departure were kept."""
    from datetime import UTC, datetime

    now = [2_000_000.0]
    here = MemoryAttendance(clock=lambda: now[0])
    lobby = FakeLobby([])
    sweeper = TableSweeper(lobby, FakeService(lobby), here, grace=60,  # type: ignore[arg-type]
                           clock=lambda: now[0])
    for user in range(1, 5001):  # 5,000 players each come and go, one a second
        here.enter(user)
        here.leave(user)
        now[0] += 1
    assert len(here._gone) <= 61  # only the departures of the last grace period
    # An old creator whose departure was forgotten, a recent one still remembered.
    created = datetime.fromtimestamp(now[0] - 3000, UTC).isoformat()
    lobby.list = [FakeTable("old", 10, created), FakeTable("recent", 4990, created)]
    assert await here.absent_since([10]) == {10: 0.0}  # forgotten: "never seen"
    assert await here.absent_since([4990]) == {4990: now[0] - 11}
    assert await sweeper.sweep() == ["old"]  # as when it was kept: gone for 2,990 s
    now[0] += 50  # 4990 has now been gone 61 s
    assert await sweeper.sweep() == ["recent"]


def _lobby_url(base_url: str) -> str:
    return ws_url(base_url, "/ws/lobby")


async def _lobby_ids(sock: JsonSocket) -> list[str]:
    return [t["id"] for t in [m for m in sock.messages if m.get("type") == "lobby"][-1]["tables"]]


async def _until(predicate: Callable[[], Any], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("broker", ["memory", "redis"])
async def test_a_table_whose_creator_left_every_process_leaves_the_lobby(
    make_server: Callable[..., Any], sessions: async_sessionmaker, broker: str
) -> None:
    if broker == "redis":
        if not await redis_up():
            pytest.skip(f"no Redis at {REDIS_URL}")
        first = make_server(broker_url=REDIS_URL, disconnect_grace=GRACE)
        second = make_server(broker_url=REDIS_URL, disconnect_grace=GRACE)
    else:
        first = second = make_server(disconnect_grace=GRACE)
    async with Visitor(first.base_url) as creator, Visitor(second.base_url) as viewer:
        match_id = await open_table(creator)
        # The creator waits on the game page (process one), then in the lobby (process two).
        game = await creator.connect(match_id)
        watching = await JsonSocket(_lobby_url(second.base_url), viewer.cookie).open()
        await _until(lambda: _has(watching, match_id))
        await asyncio.sleep(GRACE * 3)
        assert match_id in await _lobby_ids(watching)  # connected: the table stays
        waiting = await JsonSocket(_lobby_url(second.base_url), creator.cookie).open()
        await game.close()
        await asyncio.sleep(GRACE * 3)
        assert match_id in await _lobby_ids(watching)  # in the lobby on another process
        await waiting.close()
        left = time.monotonic()
        await _until(lambda: _gone(watching, match_id), timeout=GRACE * 10)
        took = time.monotonic() - left
        assert took >= GRACE * 0.9, took
        async with sessions() as s:
            row = await s.get(MatchRow, match_id)
            assert row is not None and row.status == "cancelled"
        await watching.close()


async def _has(sock: JsonSocket, match_id: str) -> bool:
    return any(m.get("type") == "lobby" for m in sock.messages) and (
        match_id in await _lobby_ids(sock))


async def _gone(sock: JsonSocket, match_id: str) -> bool:
    return match_id not in await _lobby_ids(sock)
