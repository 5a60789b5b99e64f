"""Time control (docs/rules.md, "Time control"): the per-move time, then the reserve; forced
draws and passes cost nothing; running out loses the match on time, recorded as such; the
deadline is stored with the match, so a restarted server keeps it. A fake wall clock is
injected: nothing here waits for a clock to run down."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.games.georgian import GEORGIAN
from kva.rules import DRAW, PASS, Match
from kva.service.errors import PlayError
from kva.service.history import history
from kva.service.play import PlayService
from kva.service.play.clock import HAND_PAUSE_MS, Clock, check_clock
from kva.service.play.presence import Presence
from kva.service.play.scheduler import TimerKind
from kva.storage.db import Database
from kva.storage.models import MatchRow, User
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play

BLITZ_MOVE, BLITZ_RESERVE = 10_000, 60_000


class Wall:
    """A wall clock in epoch ms that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


def _service(database: Database, wall: Wall, pool: ThreadPoolExecutor) -> PlayService:
    return make_play(database, bot_executor=pool, now_ms=wall)


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
async def play(database, sessions, wall: Wall) -> AsyncIterator[PlayService]:  # type: ignore[no-untyped-def]
    with ThreadPoolExecutor(max_workers=1) as pool:
        service = _service(database, wall, pool)
        try:
            yield service
        finally:
            await service.stop()


async def _quick_game(sessions: async_sessionmaker, play: PlayService, clock: str = "blitz",
                      rated: bool = False) -> tuple[str, list[User]]:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, _token = await play.create_match(a.id, a.nickname, "player", 75, "draw",
                                               rated=rated, opponent_user=(b.id, b.nickname),
                                               clock=clock)
    return match_id, [a, b]


async def _running(play: PlayService, match_id: str, users: list[User]) -> dict[str, Any]:
    """The state once a player has a real choice (forced draws and passes are played by the
    server in the background): the running seat's own state."""
    for _ in range(500):
        state = await play.state_for(match_id, users[0].id)
        seat = state["clock"]["seat"]
        if seat is not None:
            return await play.state_for(match_id, users[seat].id)
        await asyncio.sleep(0.01)
    raise AssertionError("no player's time ever ran")


async def _row(sessions: async_sessionmaker, match_id: str) -> MatchRow:
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


def _stored_clock(row: MatchRow) -> dict[str, Any]:
    return dict(row.record["meta"]["clock"])


async def test_the_per_move_time_is_spent_before_the_reserve(sessions, play, wall) -> None:
    match_id, users = await _quick_game(sessions, play)
    state = await _running(play, match_id, users)
    clock = state["clock"]
    seat = clock["seat"]
    assert clock["preset"] == "blitz" and clock["per_move"] == 10 and clock["reserve_s"] == 60
    assert clock["running_ms"] == BLITZ_MOVE + BLITZ_RESERVE
    assert clock["move_ms"] == BLITZ_MOVE and clock["left"] == [BLITZ_RESERVE] * 2
    wall.now += 4_000  # within the per-move time: the reserve is untouched
    await play.act(match_id, users[seat].id, state["version"], state["view"]["legal"][0])
    left = (await play.state_for(match_id, users[0].id))["clock"]["left"]
    assert left == [BLITZ_RESERVE, BLITZ_RESERVE]
    state = await _running(play, match_id, users)
    seat = state["clock"]["seat"]
    wall.now += 3_000
    shown = (await play.state_for(match_id, users[seat].id))["clock"]
    assert shown["running_ms"] == state["clock"]["running_ms"] - 3_000  # it counts down
    wall.now += 12_000  # 15 s in all: 5 s over the per-move time
    await play.act(match_id, users[seat].id, state["version"], state["view"]["legal"][0])
    left = (await play.state_for(match_id, users[0].id))["clock"]["left"]
    assert left[seat] == BLITZ_RESERVE - 5_000 and left[1 - seat] == BLITZ_RESERVE


def test_the_reserve_never_refills_and_a_new_hand_starts_after_a_pause() -> None:
    clock = Clock.new("blitz")
    assert clock is not None
    clock.advance(0, (True, True), False, 0)
    assert (clock.seat, clock.deadline) == (0, BLITZ_MOVE + BLITZ_RESERVE)
    clock.advance(0, (True, True), False, 30_000,
                  new_hand=True)  # 20 s of the reserve gone; seat 0 leads the next hand
    assert clock.left == [BLITZ_RESERVE - 20_000, BLITZ_RESERVE]
    assert clock.deadline == 30_000 + HAND_PAUSE_MS + BLITZ_MOVE + BLITZ_RESERVE - 20_000
    clock.advance(1, (True, True), False, 31_000)
    assert clock.left == [BLITZ_RESERVE - 20_000, BLITZ_RESERVE]  # a quick move: no refill
    clock.advance(0, (True, False), False, 31_000)
    assert clock.left[1] == BLITZ_RESERVE and clock.seat == 0


def _advance(clock: Clock, match: Match, now: int) -> None:
    """The clock after a change to ``match``, as the play service advances it (a person in
    seat 0, a bot in seat 1), asking the Georgian game what is forced."""
    seat = match.turn
    forced = seat is not None and GEORGIAN.forced_action(match, seat) is not None
    clock.advance(seat, (True, False), forced, now)


def test_forced_draws_and_passes_and_bots_cost_no_time() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        match = Match(75, "draw", random.Random(seed))
        clock = Clock.new("blitz")
        assert clock is not None
        now = 0
        forced_seen = False
        while not match.over:
            _advance(clock, match, now)
            forced = match.legal_codes() in ([DRAW], [PASS])
            if forced or match.turn == 1:  # the server's draw or pass, or the bot's turn
                assert clock.seat is None and clock.deadline is None
                forced_seen = forced_seen or forced
            else:
                assert clock.seat == 0
            before = list(clock.left)
            now += 9_000  # under the per-move time: a player's move costs no reserve
            match.apply_unchecked(rng.choice(match.legal_codes()))
            _advance(clock, match, now)
            assert clock.left == before
            if forced_seen and len(match.hands) > 1:
                break
        if forced_seen:
            return
    raise AssertionError("no forced draw or pass in 40 matches")


async def test_running_out_of_time_loses_the_match_on_time(sessions, play, wall) -> None:
    match_id, users = await _quick_game(sessions, play, rated=True)
    state = await _running(play, match_id, users)
    seat = state["clock"]["seat"]
    wall.now += BLITZ_MOVE + BLITZ_RESERVE - 1
    assert await play.flag(match_id) is False  # 1 ms still left: nothing changes
    assert (await _row(sessions, match_id)).status == "active"
    wall.now += 1
    assert await play.flag(match_id) is True
    row = await _row(sessions, match_id)
    assert (row.status, row.winner, row.end_reason) == ("finished", 1 - seat, "time")
    meta = row.record["meta"]
    assert meta["end"] == "time"
    assert _stored_clock(row) | {"left": None} == {
        "preset": "blitz", "per_move": 10, "reserve": 60, "left": None, "seat": None,
        "deadline": None, "by": None, "flagged": seat}
    assert _stored_clock(row)["left"][seat] == 0
    assert row.record["hands"][-1]["result"]["end"] == "forfeit"
    final = await play.state_for(match_id, users[seat].id)
    assert final["clock"]["flagged"] == seat and final["clock"]["seat"] is None
    async with sessions() as session:  # rated like any loss, and the history says how
        loser = await session.get(User, users[seat].id)
        assert loser is not None and loser.rating < 1500
        lines, _total = await history(session, users[seat].id)
    assert [(line.result, line.end_reason) for line in lines] == [("loss", "time")]


async def test_a_move_after_the_deadline_loses_on_time(sessions, play, wall) -> None:
    match_id, users = await _quick_game(sessions, play)
    state = await _running(play, match_id, users)
    seat = state["clock"]["seat"]
    wall.now += BLITZ_MOVE + BLITZ_RESERVE  # the timer has not fired yet
    with pytest.raises(PlayError) as refused:
        await play.act(match_id, users[seat].id, state["version"], state["view"]["legal"][0])
    assert refused.value.code == "over"
    row = await _row(sessions, match_id)
    assert (row.winner, row.end_reason) == (1 - seat, "time")


async def test_a_restarted_server_keeps_the_deadline_and_still_flags(database, sessions, play,
                                                                    wall) -> None:
    match_id, users = await _quick_game(sessions, play)
    state = await _running(play, match_id, users)
    wall.now += 2_000
    await play.act(match_id, users[state["clock"]["seat"]].id, state["version"],
                   state["view"]["legal"][0])  # one move in the journal
    state = await _running(play, match_id, users)
    seat = state["clock"]["seat"]
    deadline = play._live[match_id].clock.deadline
    wall.now += 5_000  # mid-turn: the server stops
    await play.stop()
    with ThreadPoolExecutor(max_workers=1) as pool:
        again = _service(database, wall, pool)
        try:
            await again.start()
            live = again._live[match_id]
            assert live.clock is not None and live.clock.deadline == deadline
            assert live.clock.seat == seat
            shown = (await again.state_for(match_id, users[0].id))["clock"]
            assert shown["running_ms"] == state["clock"]["running_ms"] - 5_000
            timers = again.timers.get(match_id)  # armed from the stored deadline
            due = timers.when(TimerKind.CLOCK) if timers is not None else None
            assert due is not None
            left = due - again.timers.clock.monotonic()
            assert abs(left - (deadline - wall.now) / 1000) < 1
            wall.now = deadline  # the time runs out while it serves the match
            await again.stop()
            # restarted at once (no outage to give back): it fires at once
            third = _service(database, wall, pool)
            try:
                await third.start()
                for _ in range(300):
                    if (await _row(sessions, match_id)).status == "finished":
                        break
                    await asyncio.sleep(0.01)
            finally:
                await third.stop()
        finally:
            await again.stop()
    row = await _row(sessions, match_id)
    assert (row.status, row.winner, row.end_reason) == ("finished", 1 - seat, "time")


async def test_rated_coin_and_quick_games_always_have_a_clock(sessions, play) -> None:
    me, other = await make_user(sessions), await make_user(sessions)
    for opponent, kwargs in (("player", {"opponent_user": (other.id, other.nickname)}),
                             ("open", {"rated": True}), ("open", {"stake": 10})):
        with pytest.raises(ValueError, match="always have a clock"):
            await play.create_match(me.id, me.nickname, opponent, 75, "draw", clock="none",
                                    **kwargs)
    with pytest.raises(ValueError, match="clock must be one of"):
        await play.create_match(me.id, me.nickname, "friend", 75, "draw", clock="bullet")
    assert check_clock(None, casual=False) == "standard"
    friendly, _ = await play.create_match(me.id, me.nickname, "friend", 75, "draw",
                                          clock="none")
    bot, _ = await play.create_match(me.id, me.nickname, "bot:easy", 75, "draw")
    quick, _ = await play.create_match(me.id, me.nickname, "player", 75, "draw",
                                       opponent_user=(other.id, other.nickname))
    for casual in (friendly, bot):  # no clock: only the first move is timed
        stored = _stored_clock(await _row(sessions, casual))
        assert (stored["preset"], stored["per_move"], stored["reserve"]) == ("none", 120, 0)
    assert _stored_clock(await _row(sessions, quick))["preset"] == "standard"


async def test_with_no_clock_only_the_first_move_is_timed_and_shown(sessions, play,
                                                                   wall) -> None:
    play.first_move_timeout = 30
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(a.id, a.nickname, "friend", 75, "draw",
                                              clock="none")
    assert token is not None
    await play.join_table(token, b.id, b.nickname, None)
    users = [a, b]
    state = await _running(play, match_id, users)
    first = state["clock"]["seat"]
    assert state["clock"] | {"running_ms": None} == {
        "preset": "none", "per_move": 30, "reserve_s": 0, "left": [0, 0], "seat": first,
        "running_ms": None, "move_ms": 30_000, "flagged": None}
    wall.now += 29_000  # the first move, in time
    await play.act(match_id, users[first].id, state["version"], state["view"]["legal"][0])
    state = await _running(play, match_id, users)  # the other one's first move is timed too
    second = state["clock"]["seat"]
    assert second == 1 - first and state["clock"]["running_ms"] == 30_000
    await play.act(match_id, users[second].id, state["version"], state["view"]["legal"][0])
    for _ in range(100):  # both have moved: no time runs any more, however long they think
        state = await play.state_for(match_id, a.id)
        if state["view"]["turn"] is not None and state["view"]["legal"] == [] and \
                state["clock"]["seat"] is None:
            break
        await asyncio.sleep(0.01)
    assert play._live[match_id].clock.moved == [True, True]
    assert play._live[match_id].clock.seat is None
    wall.now += 10 * 60_000
    assert await play.flag(match_id) is False


async def test_a_first_move_not_made_in_time_loses_by_timeout(sessions, play, wall) -> None:
    play.first_move_timeout = 5
    me = await make_user(sessions)
    match_id, _ = await play.create_match(me.id, me.nickname, "bot:easy", 75, "draw")
    for _ in range(500):  # the bot may open: then my first turn comes
        state = await play.state_for(match_id, me.id)
        if state["clock"]["seat"] == 0:
            break
        await asyncio.sleep(0.01)
    assert state["clock"]["seat"] == 0 and state["clock"]["running_ms"] == 5_000
    wall.now += 5_000
    assert await play.flag(match_id) is True
    row = await _row(sessions, match_id)
    assert (row.winner, row.end_reason, row.record["meta"]["end"]) == (1, "timeout", "timeout")


async def test_a_clock_replaces_the_first_move_timeout(sessions, play) -> None:
    presence = Presence(play._broker, play, grace=60, first_move_timeout=60)
    play.commit_hooks.append(presence.after_commit)
    match_id, users = await _quick_game(sessions, play)
    await _running(play, match_id, users)
    play._run_commit_hooks(play._live[match_id])
    assert not play.timers.has(match_id, TimerKind.FIRST_MOVE)
    await presence.stop()


async def test_a_match_keeps_the_times_of_its_preset_when_the_presets_change(
        database, sessions, wall) -> None:  # type: ignore[no-untyped-def]
    with ThreadPoolExecutor(max_workers=1) as pool:
        quick = make_play(database, bot_executor=pool, now_ms=wall,
                          clock_presets={"blitz": (3, 30), "standard": (20, 120),
                                         "relaxed": (45, 300)})
        match_id, users = await _quick_game(sessions, quick)
        state = await _running(quick, match_id, users)
        assert (state["clock"]["per_move"], state["clock"]["reserve_s"]) == (3, 30)
        assert state["clock"]["running_ms"] == 33_000
        await quick.stop()
        later = _service(database, wall, pool)  # restarted with the usual presets
        try:
            shown = (await later.state_for(match_id, users[0].id))["clock"]
            assert (shown["per_move"], shown["reserve_s"], shown["running_ms"]) == (3, 30, 33_000)
        finally:
            await later.stop()


async def test_a_rematch_is_played_with_the_same_clock(sessions, play) -> None:
    from kva.service.lobby.rematch import RematchService
    from tests.helpers.community_help import finished_match

    rematch = RematchService(sessions, play._broker, play)
    a, b = await make_user(sessions), await make_user(sessions)
    blitz = await finished_match(sessions, a, b, rated=False)
    async with sessions() as session, session.begin():
        row = await session.get(MatchRow, blitz.id)
        assert row is not None
        row.record = {**row.record, "meta": {**row.record["meta"],
                                              "clock": {"preset": "blitz"}}}
    legacy_rated = await finished_match(sessions, a, b, rated=True)  # from before clocks
    presets = []
    for old in (blitz, legacy_rated):
        await rematch.offer(old.id, a.id)
        accepted = await rematch.accept(old.id, b.id)
        presets.append(_stored_clock(await _row(sessions, accepted["match_id"]))["preset"])
    assert presets == ["blitz", "standard"]


async def test_a_quick_game_pairs_only_the_same_clock_and_never_none(sessions, play) -> None:
    from kva.service.lobby.quickgame import MemoryQuickGame, QuickGameError

    now = [1000.0]
    quick = MemoryQuickGame(play, clock=lambda: now[0], tick=3600)  # rounds run when the test says
    a, b, c = [await make_user(sessions) for _ in range(3)]
    with pytest.raises(QuickGameError) as refused:
        await quick.join(a.id, a.nickname, 1500, 75, "draw", False, True, clock="none")
    assert refused.value.code == "bad_clock" and quick.waiting() == 0
    first = await quick.join(a.id, a.nickname, 1500, 75, "draw", False, True, clock="blitz")
    await quick.join(b.id, b.nickname, 1500, 75, "draw", False, True)  # the default: standard
    assert quick.waiting() == 2  # not paired: other clocks
    second = await quick.join(c.id, c.nickname, 1500, 75, "draw", False, True, clock="blitz")
    match_id = await first.result
    assert await second.result == match_id and quick.waiting() == 1
    assert _stored_clock(await _row(sessions, match_id))["preset"] == "blitz"
    await quick.stop()
