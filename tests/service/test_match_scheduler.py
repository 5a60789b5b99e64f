"""The timers of a live match (:mod:`kva.service.play.scheduler`), driven by a fake clock:
nothing here sleeps. First the scheduler alone, then the play service's timers on it: a bot's
turn after its pause, a flag at the deadline, nothing left once the match ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.play import PlayService
from kva.service.play.scheduler import MatchSchedulers, TimerKind
from kva.service.timekeeping import epoch_ms
from kva.storage.db import Database
from kva.storage.models import MatchRow, User
from tests.helpers.clock import FakeClock, let_tasks_run
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play


def _schedulers() -> tuple[FakeClock, MatchSchedulers]:
    clock = FakeClock()
    return clock, MatchSchedulers(clock, epoch_ms(clock))


def _recorder(fired: list[str], name: str):  # type: ignore[no-untyped-def]
    async def action() -> None:
        fired.append(name)
    return action


async def test_a_timer_fires_at_its_deadline_and_not_before() -> None:
    clock, timers = _schedulers()
    fired: list[str] = []
    assert timers.of("m").set_in(TimerKind.CLOCK, 5, _recorder(fired, "flag"))
    assert timers.get("m") is not None and timers.has("m", TimerKind.CLOCK)
    assert timers.of("m").when(TimerKind.CLOCK) == clock.monotonic() + 5
    await clock.advance(4.5)
    assert fired == [] and timers.has("m", TimerKind.CLOCK)
    await clock.advance(0.5)
    assert fired == ["flag"]
    assert timers.get("m") is None and len(timers) == 0  # a match with no timer is dropped


async def test_a_timer_of_a_kind_replaces_the_previous_one_of_that_kind() -> None:
    clock, timers = _schedulers()
    fired: list[str] = []
    scheduler = timers.of("m")
    scheduler.set_in(TimerKind.CLOCK, 5, _recorder(fired, "old deadline"))
    scheduler.set_in(TimerKind.CLOCK, 10, _recorder(fired, "new deadline"))
    scheduler.set_in(TimerKind.SEED, 1, _recorder(fired, "seed"))  # another kind: kept
    await clock.advance(5)
    assert fired == ["seed"]
    await clock.advance(5)
    assert fired == ["seed", "new deadline"]
    # With a key, the timer already set for it goes on (a turn for this very version).
    assert scheduler.set_in(TimerKind.TURN, 1, _recorder(fired, "turn v3"), key=3)
    assert not scheduler.set_in(TimerKind.TURN, 2, _recorder(fired, "again"), key=3)
    assert scheduler.set_in(TimerKind.TURN, 2, _recorder(fired, "turn v4"), key=4)
    await clock.advance(2)
    assert fired[2:] == ["turn v4"]


async def test_a_forced_move_and_a_clock_flag_fire_in_deadline_order() -> None:
    clock, timers = _schedulers()
    fired: list[str] = []
    timers.of("m").set_in(TimerKind.CLOCK, 2, _recorder(fired, "flag"))
    timers.of("m").set_in(TimerKind.TURN, 1, _recorder(fired, "forced draw"))
    timers.of("other").set_in(TimerKind.CLOCK, 1.5, _recorder(fired, "other flag"))
    await clock.advance(3)  # all three come due in one step: in deadline order
    assert fired == ["forced draw", "other flag", "flag"]


async def test_cancel_all_drops_every_timer_and_stops_an_action_under_way() -> None:
    clock, timers = _schedulers()
    fired: list[str] = []
    started = asyncio.Event()

    async def thinks() -> None:
        started.set()
        await asyncio.Event().wait()  # a bot that thinks for ever
        fired.append("bot moved")

    scheduler = timers.of("m")
    scheduler.set_in(TimerKind.TURN, 1, thinks)
    scheduler.set_in(TimerKind.CLOCK, 5, _recorder(fired, "flag"))
    scheduler.set_in(TimerKind.FIRST_MOVE, 5, _recorder(fired, "timeout"))
    await clock.advance(1)
    assert started.is_set()
    [thinking] = scheduler.tasks()
    timers.cancel_all("m")  # the match ended
    await let_tasks_run()
    assert thinking.cancelled() and len(timers) == 0
    await clock.advance(10)
    assert fired == [] and clock.sleeping == 0


async def test_an_action_that_sets_its_own_kind_again_is_not_cancelled() -> None:
    """As a seed wait does for the seat still waiting: the new timer replaces the one that
    runs, which goes on to its end."""
    clock, timers = _schedulers()
    fired: list[str] = []

    async def first() -> None:
        timers.of("m").set_in(TimerKind.SEED, 1, _recorder(fired, "second"))
        await asyncio.sleep(0)
        fired.append("first, to its end")

    timers.of("m").set_in(TimerKind.SEED, 1, first)
    await clock.advance(1)
    assert fired == ["first, to its end"] and timers.has("m", TimerKind.SEED)
    await clock.advance(1)
    assert fired == ["first, to its end", "second"] and len(timers) == 0


async def test_no_timer_is_set_once_the_timers_stop() -> None:
    clock, timers = _schedulers()
    fired: list[str] = []
    timers.of("m").set_in(TimerKind.CLOCK, 1, _recorder(fired, "flag"))
    await timers.stop()
    assert not timers.of("m").set_in(TimerKind.CLOCK, 1, _recorder(fired, "later"))
    await clock.advance(5)
    assert fired == [] and len(timers) == 0


async def test_a_stored_wall_clock_deadline_becomes_a_monotonic_one() -> None:
    clock, timers = _schedulers()
    now_ms = epoch_ms(clock)()
    assert timers.at_wall_ms(now_ms + 2_500) == clock.monotonic() + 2.5
    assert timers.at_wall_ms(now_ms - 1_000) == clock.monotonic()  # past: due at once


# ---------------------------------------------------------------------- the play service
@pytest.fixture
def fake() -> FakeClock:
    return FakeClock(start=1_700_000_000.0)


@pytest.fixture
async def timed(database: Database, sessions: async_sessionmaker, bot_pool: ThreadPoolExecutor,
                fake: FakeClock) -> AsyncIterator[PlayService]:
    """A play service whose every timer (and the wall clock of its match clocks) runs on
    ``fake``; forced moves at once, a bot after 0.8 s."""
    service = make_play(database, bot_executor=bot_pool, time=fake, bot_delay=0.8)
    try:
        yield service
    finally:
        await service.stop()


async def _settle(play: PlayService, match_id: str) -> None:
    """Let the timers that came due finish what they started (their writes run in threads:
    they are awaited, not slept for); the ones due later stay set."""
    for _ in range(100):
        await let_tasks_run()
        scheduler = play.timers.get(match_id)
        running = scheduler.tasks() if scheduler is not None else []
        if not running:
            return
        await asyncio.gather(*running, return_exceptions=True)
    raise AssertionError("the timers never settled")


async def _row(sessions: async_sessionmaker, match_id: str) -> MatchRow:
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


async def _to_a_choice(play: PlayService, match_id: str, users: list[User],
                       stop_at_bot: bool = False) -> int:
    """Play the first legal move of each person on turn until a bot is to play
    (``stop_at_bot``) or, with two people, until one has a real choice; the seat on turn."""
    for _ in range(40):
        await _settle(play, match_id)
        match = play._live[match_id].match
        assert match is not None and not match.over
        seat = match.turn
        assert seat is not None
        if play._live[match_id].seats[seat].bot is not None:
            if stop_at_bot:
                return seat
            raise AssertionError("the bot did not play")
        state = await play.state_for(match_id, users[seat].id)
        if not stop_at_bot:
            return seat
        await play.act(match_id, users[seat].id, state["version"], state["view"]["legal"][0])
    raise AssertionError("no turn came")


async def test_a_bot_plays_after_its_pause(sessions, timed: PlayService,
                                          fake: FakeClock) -> None:
    me = await make_user(sessions)
    match_id, _ = await timed.create_match(me.id, me.nickname, "bot:easy", 75, "draw")
    await _to_a_choice(timed, match_id, [me, me], stop_at_bot=True)
    live = timed._live[match_id]
    version = live.version
    scheduler = timed.timers.get(match_id)
    assert scheduler is not None
    assert scheduler.when(TimerKind.TURN) == fake.monotonic() + 0.8
    await fake.advance(0.75)
    await _settle(timed, match_id)
    assert live.version == version  # still thinking it over
    await fake.advance(0.05)
    await _settle(timed, match_id)
    assert timed._live[match_id].version > version  # it played


async def test_a_player_whose_time_runs_out_is_flagged_at_the_deadline(
        sessions, timed: PlayService, fake: FakeClock) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, _ = await timed.create_match(a.id, a.nickname, "player", 75, "draw",
                                           opponent_user=(b.id, b.nickname), clock="blitz")
    seat = await _to_a_choice(timed, match_id, [a, b])
    clock = timed._live[match_id].clock
    assert clock is not None and clock.seat == seat and clock.deadline is not None
    left_s = (clock.deadline - timed.timers.wall_ms()) / 1000
    assert left_s == 70  # blitz: 10 s a move and 60 of reserve
    await fake.advance(left_s - 0.01)
    await _settle(timed, match_id)
    assert (await _row(sessions, match_id)).status == "active"
    await fake.advance(0.02)
    await _settle(timed, match_id)
    row = await _row(sessions, match_id)
    assert (row.status, row.winner, row.end_reason) == ("finished", 1 - seat, "time")
    assert timed.timers.get(match_id) is None  # over: no timer is left


async def test_the_end_of_a_match_cancels_all_its_timers(sessions, timed: PlayService) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, _ = await timed.create_match(a.id, a.nickname, "player", 75, "draw",
                                           opponent_user=(b.id, b.nickname), clock="blitz")
    await _to_a_choice(timed, match_id, [a, b])
    assert timed.timers.has(match_id, TimerKind.CLOCK)
    await timed.resign(match_id, a.id)
    assert timed.timers.get(match_id) is None
