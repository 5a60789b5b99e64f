"""Leaving a match at the service level: presence across processes, the grace period, the
claim (forfeit ``abandon``) and the first-move timeout (forfeit ``timeout``)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from kva.service.cluster.broker import MemoryBroker
from kva.service.errors import PlayError
from kva.service.play import PlayService, Seat, topic
from kva.service.play.presence import Presence
from kva.service.play.scheduler import TimerKind
from kva.storage.models import MatchRow
from tests.helpers.clock import FakeClock
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play


class _Watcher:
    """A socket on the match, as the play service's watchers see it."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat


async def _match(sessions, play: PlayService, seats: list[Seat], rated: bool = False) -> str:  # type: ignore[no-untyped-def]
    row = play.prepare_match(seats, 75, "draw", rated=rated)
    async with sessions() as session, session.begin():
        session.add(row)
    await play.activate(row.id)
    return row.id


async def _finished(sessions, match_id: str) -> MatchRow:  # type: ignore[no-untyped-def]
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


async def test_claim_after_the_grace_period_wins_by_abandonment(sessions, play) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    match_id = await _match(sessions, play, [Seat(a.id, a.nickname), Seat(b.id, b.nickname)])
    clock = FakeClock()
    presence = Presence(play._broker, play, grace=60, first_move_timeout=120, clock=clock)
    sub = await play._broker.subscribe(topic(match_id))
    play.watchers.add(match_id, _Watcher(0))  # states are built for who watches
    await presence.connected(match_id, 0)
    await presence.connected(match_id, 1)
    await presence.connected(match_id, 1)  # a second tab
    await presence.connected(match_id, None)  # a spectator counts for nothing
    assert presence.messages(match_id) == []
    with pytest.raises(PlayError) as refused:
        await presence.claim(match_id, a.id)
    assert refused.value.code == "illegal"  # b is connected
    await presence.disconnected(match_id, 1)
    assert presence.away_since(match_id, 1) is None  # one tab is still open
    await presence.disconnected(match_id, 1)
    assert presence.away_since(match_id, 1) is not None
    away = presence.message(match_id, 1)
    assert away["online"] is False and away["claim_in"] == 60
    with pytest.raises(PlayError):  # too early
        await presence.claim(match_id, a.id)
    with pytest.raises(PlayError) as refused:  # only the opponent of the absent player
        await presence.claim(match_id, (await make_user(sessions)).id)
    assert refused.value.code == "not_seated"
    await clock.advance(30)
    assert presence.message(match_id, 1)["claim_in"] == 30
    with pytest.raises(PlayError):  # still too early
        await presence.claim(match_id, a.id)
    await clock.advance(30)
    assert presence.message(match_id, 1)["claim_in"] == 0
    await presence.claim(match_id, a.id)
    row = await _finished(sessions, match_id)
    assert (row.status, row.winner, row.end_reason) == ("finished", 0, "abandon")
    assert row.record["hands"][-1]["result"] == {
        "end": "forfeit", "winner": 0, "points": 0, "reason": "abandon"}
    with pytest.raises(PlayError) as refused:
        await presence.claim(match_id, a.id)
    assert refused.value.code == "over"
    published = []
    while not sub._queue.empty():
        published.append(sub._queue.get_nowait())
    assert any(m.get("broadcast", {}).get("online") is False for m in published)
    assert json.loads(published[-1]["states"]["0"])["event"]["kind"] == "forfeit"
    await sub.close()
    await presence.stop()


async def test_presence_from_another_process_counts(sessions, play) -> None:
    here = Presence(play._broker, play, grace=0, first_move_timeout=60)
    there = Presence(play._broker, play, grace=0, first_move_timeout=60)
    now = time.time()
    here.note("m1", {"origin": there.origin, "seat": 0, "online": True, "at": now})
    assert here.away_since("m1", 0) is None
    here.note("m1", {"origin": there.origin, "seat": 0, "online": False, "at": now})
    assert here.away_since("m1", 0) == now
    await here.connected("m1", 0)  # reconnected here: present again
    assert here.away_since("m1", 0) is None
    for junk in (None, "x", {"origin": 1}, {"origin": "o", "seat": 7, "online": True, "at": 1},
                 {"origin": "o", "seat": 1, "online": "yes", "at": 1}):
        here.note("m1", junk)
    assert here.away_since("m1", 1) is None  # never connected anywhere: not away


async def test_a_player_who_never_moves_loses_on_time(database, sessions, bot_pool) -> None:
    """The opener of a clocked match who never moves loses on time once the first-move limit
    has passed on the play service's clock, not a moment before (a fake clock: a busy machine
    cannot make the test early or late)."""
    a, b = await make_user(sessions), await make_user(sessions)
    clock = FakeClock()
    play = make_play(database, bot_executor=bot_pool, time=clock, first_move_timeout=30)
    try:
        presence = Presence(play._broker, play, grace=60, first_move_timeout=30, clock=clock)
        play.commit_hooks.append(presence.after_commit)
        match_id = await _match(sessions, play, [Seat(a.id, a.nickname), Seat(b.id, b.nickname)],
                                rated=True)
        state = await play.state_for(match_id, a.id)
        opener = state["view"]["turn"]
        timers = play.timers.get(match_id)
        assert timers is not None
        await clock.advance(29)
        assert (await _finished(sessions, match_id)).status == "active"
        await clock.advance(1)
        await asyncio.gather(*timers.tasks())  # the loss on time, started at the deadline
        row = await _finished(sessions, match_id)
        assert (row.status, row.end_reason, row.winner) == ("finished", "timeout", 1 - opener)
        # A rated match lost on time is rated like any other.
        async with sessions() as session:
            from kva.storage.models import User

            loser = await session.get(User, (a.id, b.id)[opener])
        assert loser.rating < 1500
        await presence.stop()
    finally:
        await play.stop()


async def test_a_match_without_a_clock_times_the_first_move_itself(
        database, sessions, bot_pool) -> None:
    """A match stored before clocks: the first-move timeout, a timer of the match on the play
    service's clock, makes the absent opener lose."""
    a, b = await make_user(sessions), await make_user(sessions)
    clock = FakeClock()
    play = make_play(database, bot_executor=bot_pool, time=clock)
    try:
        presence = Presence(play._broker, play, grace=60, first_move_timeout=120, clock=clock)
        match_id = await _match(sessions, play, [Seat(a.id, a.nickname),
                                                 Seat(b.id, b.nickname)])
        live = play._live[match_id]
        live.clock = None  # as it would be loaded from before clocks: no time runs
        play.timers.cancel(match_id, TimerKind.CLOCK)
        assert live.match is not None and live.match.turn is not None
        opener = live.match.turn
        presence.after_commit(live)
        timers = play.timers.get(match_id)
        assert timers is not None
        await clock.advance(119)
        assert timers.has(TimerKind.FIRST_MOVE) and timers.tasks() == []
        await clock.advance(1)
        await asyncio.gather(*timers.tasks())  # the forfeit, started at the deadline
        row = await _finished(sessions, match_id)
        assert (row.status, row.end_reason, row.winner) == ("finished", "timeout", 1 - opener)
        assert not play.timers.has(match_id, TimerKind.FIRST_MOVE)
        await presence.stop()
    finally:
        await play.stop()


async def test_moving_disarms_the_timeout_and_bots_never_time_out(
        database, sessions, bot_pool) -> None:
    """Once the person has made their first move, and a bot never, the first-move limit
    passing on the play service's clock ends nothing (a fake clock: the person's move may take
    as long as a busy machine needs)."""
    me = await make_user(sessions, kind="guest")
    clock = FakeClock()
    play = make_play(database, bot_executor=bot_pool, time=clock, first_move_timeout=30)
    try:
        presence = Presence(play._broker, play, grace=60, first_move_timeout=30, clock=clock)
        play.commit_hooks.append(presence.after_commit)
        match_id = await _match(sessions, play, [Seat(me.id, me.nickname), Seat(bot="easy")])
        deadline = time.monotonic() + 30
        moved = False
        while not moved:
            assert time.monotonic() < deadline, "the person's first move never came"
            state = await play.state_for(match_id, me.id)
            view = state["view"]
            if view["turn"] == 0 and view["legal"] and view["legal"][0]["type"] == "play":
                await play.act(match_id, me.id, state["version"], view["legal"][0])
                moved = True
            await asyncio.sleep(0.01)
        await clock.advance(31)
        timers = play.timers.get(match_id)
        if timers is not None:
            await asyncio.gather(*timers.tasks())
        row = await _finished(sessions, match_id)
        assert row.end_reason != "timeout"
        assert not play.timers.has(match_id, TimerKind.FIRST_MOVE)
        await presence.stop()
    finally:
        await play.stop()


async def test_a_match_needs_two_real_seats(sessions, play) -> None:
    me = await make_user(sessions)
    for seats in ([Seat(me.id, me.nickname)], [Seat(me.id, me.nickname), Seat()],
                  [Seat(me.id, me.nickname), Seat(bot="nobody")],
                  [Seat(me.id, me.nickname, bot="easy"), Seat(bot="easy")]):
        with pytest.raises(ValueError):
            play.prepare_match(seats, 75, "draw")
    with pytest.raises(ValueError):
        play.prepare_match([Seat(me.id, me.nickname), Seat(bot="easy")], 80, "draw")


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        Presence(MemoryBroker(), None, grace=-1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Presence(MemoryBroker(), None, first_move_timeout=0)  # type: ignore[arg-type]


async def test_at_a_kozel_table_of_three_the_player_away_longest_forfeits(
        sessions, play) -> None:  # type: ignore[no-untyped-def]
    users = [await make_user(sessions) for _ in range(3)]
    row = play.prepare_match([Seat(u.id, u.nickname) for u in users], game="kozel",
                             options={})
    async with sessions() as session, session.begin():
        session.add(row)
    await play.activate(row.id)
    match_id = row.id
    clock = FakeClock()
    presence = Presence(play._broker, play, grace=60, first_move_timeout=120, clock=clock)
    play.watchers.add(match_id, _Watcher(0))
    for seat in range(3):
        await presence.connected(match_id, seat)
    with pytest.raises(PlayError) as refused:
        await presence.claim(match_id, users[0].id)
    assert refused.value.code == "illegal" and "every other player" in refused.value.message
    await presence.disconnected(match_id, 2)
    await clock.advance(10)
    await presence.disconnected(match_id, 1)
    assert [m["seat"] for m in presence.messages(match_id)] == [1, 2]
    await clock.advance(55)  # seat 2 is past its grace, seat 1 not yet
    assert presence.message(match_id, 2)["claim_in"] == 0
    assert presence.message(match_id, 1)["claim_in"] == 5
    await presence.claim(match_id, users[0].id)
    finished = await _finished(sessions, match_id)
    assert (finished.status, finished.end_reason) == ("finished", "abandon")
    assert finished.record["loser"] == [2]


async def test_presence_of_a_third_and_fourth_seat_from_another_process_counts(
        sessions, play) -> None:  # type: ignore[no-untyped-def]
    presence = Presence(play._broker, play, grace=60, first_move_timeout=120)
    for seat in (2, 3):
        presence.note("m1", {"origin": "other", "seat": seat, "online": False,
                             "at": time.time() - 5})
        assert presence.away_since("m1", seat) is not None
    for seat in (4, -1, True, "2"):  # no game has a fifth seat; a seat is a whole number
        presence.note("m1", {"origin": "other", "seat": seat, "online": False, "at": 1.0})
    assert sorted(seat for _match, seat in presence._seen) == [2, 3]
