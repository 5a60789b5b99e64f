"""Rated Kozel tables through the play service: a table of registered players moves each
player's Kozel rating as it finishes (docs/kozel.md, Rating), by points or by a time loss that
stops the match for all, the pair game's partners together; a guest at any seat leaves it
casual, and a finish seen again rates nothing twice (SQLite or PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.kozel import rating_changes
from kva.service.finish import RatingsHook
from kva.service.history import history
from kva.service.kozel_ratings import final_of_record
from kva.service.play import PlayService
from kva.storage.community import KOZEL_START, KozelRating, KozelRatingChange
from kva.storage.models import MatchRow, User
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play

BLITZ_MOVE, BLITZ_RESERVE = 10_000, 60_000


class Wall:
    """A wall clock in epoch ms that moves only when the test says: nobody's time runs out
    unless the test moves it."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
async def play(database: Any, wall: Wall) -> AsyncIterator[PlayService]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        service = make_play(database, bot_executor=pool, now_ms=wall)
        try:
            yield service
        finally:
            await service.stop()


async def _table(sessions: async_sessionmaker, play: PlayService, users: list[User],
                 options: dict[str, object]) -> str:
    """A rated blitz Kozel open table of ``users`` (the first creates it, the others join as
    registered players), started; its match id."""
    creator = users[0]
    match_id, token = await play.create_match(
        creator.id, creator.nickname, "open", game="kozel", options=options,
        seats=len(users), rated=True, clock="blitz")
    assert token is not None
    for user in users[1:]:
        await play.join_table(token, user.id, user.nickname, None, registered=True)
    return match_id


async def _running_seat(play: PlayService, match_id: str, users: list[User]) -> int:
    """The seat whose time runs once a player has a real choice (the server plays forced
    knocks and draws in the background)."""
    for _ in range(500):
        state = await play.state_for(match_id, users[0].id)
        seat = state["clock"]["seat"]
        if seat is not None:
            return int(seat)
        await asyncio.sleep(0.01)
    raise AssertionError("no player's time ever ran")


async def _play_out(play: PlayService, match_id: str, users: list[User]) -> None:
    """Each player plays their last legal action when it is their turn, until the end."""
    for _ in range(3000):
        state = await play.state_for(match_id, users[0].id)
        if state["status"] != "active":
            return
        seat = state["clock"]["seat"]
        if seat is None:
            await asyncio.sleep(0.005)
            continue
        mine = await play.state_for(match_id, users[seat].id)
        legal = mine["view"]["legal"]
        if mine["status"] == "active" and mine["view"]["turn"] == seat and legal:
            await play.act(match_id, users[seat].id, mine["version"], legal[-1])
    raise AssertionError("the match never ended")


async def _time_out(play: PlayService, wall: Wall, match_id: str, users: list[User]) -> int:
    """Run the clock of the player to move out; the seat that lost on time."""
    seat = await _running_seat(play, match_id, users)
    wall.now += BLITZ_MOVE + BLITZ_RESERVE
    assert await play.flag(match_id) is True
    return seat


async def _row(sessions: async_sessionmaker, match_id: str) -> MatchRow:
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


async def _totals(sessions: async_sessionmaker, users: list[User]) -> list[tuple[int, int]]:
    """Each user's stored (Kozel rating, rated matches); (start, 0) without a row."""
    async with sessions() as session:
        rows = [await session.get(KozelRating, u.id) for u in users]
    return [(r.rating, r.matches) if r else (KOZEL_START, 0) for r in rows]


async def _logged(sessions: async_sessionmaker, match_id: str) -> int:
    async with sessions() as session:
        return await session.scalar(select(func.count()).select_from(KozelRatingChange).where(
            KozelRatingChange.match_id == match_id)) or 0


async def test_a_rated_three_player_table_played_out_moves_each_rating(sessions, play) -> None:
    users = [await make_user(sessions) for _ in range(3)]
    match_id = await _table(sessions, play, users, {"limit": 15})
    await _play_out(play, match_id, users)
    row = await _row(sessions, match_id)
    assert (row.status, row.end_reason) == ("finished", "points")
    final = final_of_record(row.record)
    assert final.stopped_by is None and final.partners is None
    assert max(final.scores) >= 15  # someone reached the limit: the козёл
    expected = rating_changes(final.scores)
    assert await _totals(sessions, users) == [(KOZEL_START + c, 1) for c in expected]
    assert await _logged(sessions, match_id) == 3
    # Each player's history shows the match rated, with their own change.
    for user, change in zip(users, expected, strict=True):
        async with sessions() as session:
            lines, _total = await history(session, user.id)
        line = next(line for line in lines if line.id == match_id)
        assert (line.rated, line.rating_delta) == (True, change)


async def test_a_time_loss_stops_the_match_and_the_others_gain_at_least_one(
    sessions, play, wall,
) -> None:
    users = [await make_user(sessions) for _ in range(3)]
    match_id = await _table(sessions, play, users, {})
    loser = await _time_out(play, wall, match_id, users)
    row = await _row(sessions, match_id)
    assert (row.status, row.end_reason) == ("finished", "time")
    final = final_of_record(row.record)
    assert final.stopped_by == loser
    changes = [rating - KOZEL_START for rating, _matches in await _totals(sessions, users)]
    assert changes == rating_changes(final.scores, loser)
    assert changes[loser] == 0
    assert all(c >= 1 for seat, c in enumerate(changes) if seat != loser)


async def test_in_the_pair_game_the_time_losers_partner_gets_nothing_too(
    sessions, play, wall,
) -> None:
    users = [await make_user(sessions) for _ in range(4)]
    match_id = await _table(sessions, play, users, {"pairs": True})
    loser = await _time_out(play, wall, match_id, users)
    final = final_of_record((await _row(sessions, match_id)).record)
    assert final.partners == [[0, 2], [1, 3]]
    changes = [rating - KOZEL_START for rating, _matches in await _totals(sessions, users)]
    partner = (loser + 2) % 4
    assert changes[loser] == changes[partner] == 0
    assert all(c >= 1 for seat, c in enumerate(changes) if seat not in (loser, partner))
    assert changes == rating_changes(final.scores, loser, final.partners)


async def test_a_guest_at_any_seat_leaves_the_match_casual(sessions, play, wall) -> None:
    """A rated table refuses guests while it waits; should one sit anyway (the caller's
    ``registered`` flag is trusted), the rating still checks every seat itself."""
    users = [await make_user(sessions), await make_user(sessions),
             await make_user(sessions, kind="guest")]
    match_id = await _table(sessions, play, users, {})
    await _time_out(play, wall, match_id, users)
    assert (await _row(sessions, match_id)).status == "finished"
    assert await _totals(sessions, users) == [(KOZEL_START, 0)] * 3
    assert await _logged(sessions, match_id) == 0


async def test_a_finish_run_again_after_a_restart_rates_nothing_twice(
    sessions, database, play, wall,
) -> None:
    users = [await make_user(sessions) for _ in range(3)]
    match_id = await _table(sessions, play, users, {})
    await _time_out(play, wall, match_id, users)
    rated = await _totals(sessions, users)
    assert all(matches == 1 for _rating, matches in rated)
    # A process that takes the finished match over runs its hooks on a fresh session: the
    # match is rated already, so nothing is written and the event adds nothing.
    restarted = make_play(database)
    try:
        async with sessions() as session, session.begin():
            assert await RatingsHook().finished(session, match_id) is None
        await restarted.state_for(match_id, users[0].id)
    finally:
        await restarted.stop()
    assert await _totals(sessions, users) == rated
    assert await _logged(sessions, match_id) == 3


async def test_a_kozel_table_against_a_bot_is_never_rated(sessions, play) -> None:
    me = await make_user(sessions)
    with pytest.raises(ValueError, match="only open tables and quick games can be rated"):
        await play.create_match(me.id, me.nickname, "bot:easy", game="kozel", rated=True,
                                clock="blitz")
