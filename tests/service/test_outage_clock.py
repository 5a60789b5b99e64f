"""An outage never decides a game (docs/rules.md, "Time control"): the time no process served
a match is given back to the running clock when a process takes the match up, once, and only
that time. One fake clock (tests/helpers/clock.py) drives both the wall time of the match
clocks and the sleeps of the liveness writes: nothing here waits in real time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.play import PlayService
from kva.service.play.liveness import INTERVAL_S, outage_ms
from kva.storage.db import Database
from kva.storage.models import User
from tests.helpers.clock import FakeClock
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play

INTERVAL_MS = round(INTERVAL_S * 1000)


@pytest.fixture
def fake() -> FakeClock:
    return FakeClock(start=1_700_000_000.0)


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=1) as executor:
        yield executor


class Servers:
    """The play services of one test, one after another as restarts make them; each is
    stopped at the end unless the test already stopped it."""

    def __init__(self, database: Database, fake: FakeClock,
                 pool: ThreadPoolExecutor) -> None:
        self._database, self._fake, self._pool = database, fake, pool
        self.made: list[PlayService] = []

    async def start(self) -> PlayService:
        fake = self._fake
        play = make_play(self._database, bot_executor=self._pool,
                         now_ms=lambda: round(fake.now() * 1000), time=fake)
        self.made.append(play)
        await play.start()
        await settle()
        return play


async def settle() -> None:
    """Let the writes just started (in the database's thread) finish."""
    for _ in range(20):
        await asyncio.sleep(0.01)


@pytest.fixture
async def servers(database, sessions, fake, pool) -> AsyncIterator[Servers]:  # type: ignore[no-untyped-def]
    made = Servers(database, fake, pool)
    try:
        yield made
    finally:
        for play in made.made:
            await play.stop()


def die(play: PlayService) -> None:
    """The process is killed: its liveness writes stop, and it never says it stopped."""
    task = play._liveness._task
    assert task is not None
    task.cancel()
    play._liveness._task = None


async def _blitz(sessions: async_sessionmaker, play: PlayService) -> tuple[str, list[User]]:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, _token = await play.create_match(a.id, a.nickname, "player", 75, "draw",
                                               opponent_user=(b.id, b.nickname),
                                               clock="blitz")
    return match_id, [a, b]


async def _running(play: PlayService, match_id: str, users: list[User]) -> dict[str, Any]:
    """The ``clock`` of a state once a player's time runs (the server plays forced draws)."""
    for _ in range(500):
        clock = (await play.state_for(match_id, users[0].id))["clock"]
        if clock["seat"] is not None:
            return dict(clock)
        await asyncio.sleep(0.01)
    raise AssertionError("no player's time ever ran")


def test_an_outage_lasts_from_a_stop_or_an_interval_after_the_last_sign_of_life() -> None:
    now = 1_000_000
    assert outage_ms(now - 15_000, True, now, INTERVAL_MS) == 15_000  # stopped: all of it
    assert outage_ms(now - 15_000, False, now, INTERVAL_MS) == 15_000 - INTERVAL_MS  # died
    assert outage_ms(now - INTERVAL_MS // 2, False, now, INTERVAL_MS) == 0  # still alive


async def test_a_server_stopped_and_started_later_costs_the_player_on_turn_nothing(
        sessions, servers, fake) -> None:  # type: ignore[no-untyped-def]
    play = await servers.start()
    match_id, users = await _blitz(sessions, play)
    before = await _running(play, match_id, users)
    await fake.advance(3)
    await play.stop()  # a deploy: down for 15 s
    await fake.advance(15)
    again = await servers.start()
    clock = await _running(again, match_id, users)
    assert clock["seat"] == before["seat"]
    assert clock["running_ms"] == before["running_ms"] - 3_000


async def test_a_server_killed_costs_the_player_on_turn_at_most_one_interval(
        sessions, servers, fake) -> None:  # type: ignore[no-untyped-def]
    play = await servers.start()
    match_id, users = await _blitz(sessions, play)
    await _running(play, match_id, users)
    for _ in range(5):  # its liveness is written every interval meanwhile
        await fake.advance(1)
        await settle()
    left_at_death = (await _running(play, match_id, users))["running_ms"]
    die(play)
    await fake.advance(15)
    again = await servers.start()
    left = (await _running(again, match_id, users))["running_ms"]
    assert left_at_death - INTERVAL_MS <= left <= left_at_death


async def test_each_outage_is_given_back_once_over_two_restarts(
        sessions, servers, fake) -> None:  # type: ignore[no-untyped-def]
    play = await servers.start()
    match_id, users = await _blitz(sessions, play)
    before = await _running(play, match_id, users)
    await play.stop()
    await fake.advance(10)
    second = await servers.start()
    await fake.advance(2)  # served: this time is the player's
    await second.stop()
    await fake.advance(10)
    third = await servers.start()
    assert (await _running(third, match_id, users))["running_ms"] == before["running_ms"] - 2_000


async def test_a_copy_its_own_server_reads_again_gets_no_time_back(
        sessions, servers, fake) -> None:  # type: ignore[no-untyped-def]
    play = await servers.start()
    match_id, users = await _blitz(sessions, play)
    before = await _running(play, match_id, users)
    await fake.advance(3)
    play._store.forget(match_id)  # e.g. a refused write: the copy is read again
    await fake.advance(10)
    assert (await _running(play, match_id, users))["running_ms"] == before["running_ms"] - 13_000


async def test_the_first_move_timeout_is_given_back_an_outage_too(
        sessions, servers, fake) -> None:  # type: ignore[no-untyped-def]
    play = await servers.start()
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(a.id, a.nickname, "friend", 75, "draw",
                                              clock="none")
    assert token is not None
    await play.join_table(token, b.id, b.nickname, None)
    before = await _running(play, match_id, [a, b])
    await play.stop()
    await fake.advance(30)
    again = await servers.start()
    assert (await _running(again, match_id, [a, b]))["running_ms"] == before["running_ms"]
