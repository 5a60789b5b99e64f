"""The Kozel rating through the service: the rule's cases of docs/kozel.md (Rating) applied in
the database, who is rated, idempotence, and the reads the profile and the rating table use
(SQLite or PostgreSQL)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import func, select

from kva.kozel import rating_changes
from kva.service import kozel_ratings
from kva.storage.community import KOZEL_START, KozelRating, KozelRatingChange
from kva.storage.models import MatchRow, User
from tests.helpers.community_help import make_user


async def _match(sessions: Any) -> str:
    """A finished match row for the changes to point at (its record is not read)."""
    row = MatchRow(id=secrets.token_urlsafe(9), status="finished", target=101, bazaar="draw",
                   rated=True, version=1, record={})
    async with sessions() as session, session.begin():
        session.add(row)
    return row.id


async def _rate(sessions: Any, match_id: str, seats: Sequence[User | None], scores: list[int],
                time_loser: int | None = None, partners: Any = None,
                rated: bool = True) -> list[kozel_ratings.KozelChange]:
    async with sessions() as session, session.begin():
        return await kozel_ratings.rate_kozel_match(
            session, match_id, [u.id if u else None for u in seats], scores, time_loser,
            partners, rated)


async def _ratings(sessions: Any, users: Sequence[User]) -> list[tuple[int, int]]:
    """Each user's stored (rating, matches); (start, 0) without a row."""
    async with sessions() as session:
        rows = [await session.get(KozelRating, u.id) for u in users]
    return [(r.rating, r.matches) if r else (KOZEL_START, 0) for r in rows]


async def _changes(sessions: Any, match_id: str) -> int:
    async with sessions() as session:
        return await session.scalar(select(func.count()).select_from(KozelRatingChange).where(
            KozelRatingChange.match_id == match_id)) or 0


async def _players(sessions: Any, n: int) -> list[User]:
    return [await make_user(sessions) for _ in range(n)]


async def test_four_players_move_by_a_tenth_of_their_distance_from_100(sessions) -> None:
    """Worked example 5: final scores 25, 40, 61, 105 give +8, +6, +4 and −1 to the козёл."""
    users = await _players(sessions, 4)
    match_id = await _match(sessions)
    changes = await _rate(sessions, match_id, users, [25, 40, 61, 105])
    assert [(c.seat, c.user_id, c.before, c.change, c.after) for c in changes] == [
        (0, users[0].id, 0, 8, 8), (1, users[1].id, 0, 6, 6), (2, users[2].id, 0, 4, 4),
        (3, users[3].id, 0, -1, -1)]
    assert await _ratings(sessions, users) == [(8, 1), (6, 1), (4, 1), (-1, 1)]
    # The next match adds to the running total.
    second = await _match(sessions)
    await _rate(sessions, second, users, [101, 0, 50, 70])
    assert await _ratings(sessions, users) == [(8, 2), (16, 2), (9, 2), (2, 2)]
    async with sessions() as session:
        logged = await session.scalars(select(KozelRatingChange).where(
            KozelRatingChange.match_id == second).order_by(KozelRatingChange.user_id))
        assert [(c.rating_before, c.change, c.rating_after) for c in logged] == [
            (8, 0, 8), (6, 10, 16), (4, 5, 9), (-1, 3, 2)]


async def test_a_time_loss_gives_the_loser_nothing_and_every_other_at_least_one(
    sessions
) -> None:
    """Worked example 5: Alex (32) runs out of time; Masha (30) gets 1, Olya (13) gets 2."""
    masha, alex, olya = await _players(sessions, 3)
    match_id = await _match(sessions)
    changes = await _rate(sessions, match_id, [masha, alex, olya], [30, 32, 13], time_loser=1)
    assert [c.change for c in changes] == [1, 0, 2]
    assert await _ratings(sessions, [masha, alex, olya]) == [(1, 1), (0, 1), (2, 1)]


async def test_the_pair_game_gives_each_partner_his_pairs_change(sessions) -> None:
    users = await _players(sessions, 4)
    sides = [(0, 2), (1, 3)]
    played = await _match(sessions)
    changes = await _rate(sessions, played, users, [40, 105, 40, 105], partners=sides)
    assert [c.change for c in changes] == [6, -1, 6, -1]
    # A time loss at seat 1: his partner (seat 3) gets nothing too, the other pair at least 1.
    timed = await _match(sessions)
    changes = await _rate(sessions, timed, users, [40, 20, 40, 20], time_loser=1,
                          partners=sides)
    assert [c.change for c in changes] == [1, 0, 1, 0]
    assert [c.change for c in changes] == rating_changes([40, 20, 40, 20], 1, sides)
    assert await _ratings(sessions, users) == [(7, 2), (-1, 2), (7, 2), (-1, 2)]


@pytest.mark.parametrize("who", ["guest", "bot", "casual"])
async def test_a_guest_or_bot_seat_or_a_casual_match_rates_nobody(sessions, who: str) -> None:
    users: list[User | None] = list(await _players(sessions, 3))
    if who == "guest":
        users.append(await make_user(sessions, kind="guest"))
    elif who == "bot":
        users.append(None)
    else:
        users.append(await make_user(sessions))
    match_id = await _match(sessions)
    assert await _rate(sessions, match_id, users, [25, 40, 61, 105],
                       rated=who != "casual") == []
    assert await _changes(sessions, match_id) == 0
    assert await _ratings(sessions, [u for u in users if u]) == [(KOZEL_START, 0)] * (
        len([u for u in users if u]))


async def test_rating_a_match_twice_changes_nothing_the_second_time(sessions) -> None:
    users = await _players(sessions, 2)
    match_id = await _match(sessions)
    assert [c.change for c in await _rate(sessions, match_id, users, [101, 30])] == [0, 7]
    assert await _rate(sessions, match_id, users, [101, 30]) == []
    assert await _ratings(sessions, users) == [(0, 1), (7, 1)]
    assert await _changes(sessions, match_id) == 2


async def test_inputs_that_describe_no_match_are_refused(sessions) -> None:
    users = await _players(sessions, 2)
    match_id = await _match(sessions)
    for seats, scores, loser in (([users[0]], [10], None), (users, [1, 2, 3], None),
                                 (users, [1, 2], 2), ([users[0], users[0]], [1, 2], None)):
        with pytest.raises(ValueError):
            await _rate(sessions, match_id, seats, scores, time_loser=loser)


async def test_the_standing_and_the_table_read_what_was_rated(sessions) -> None:
    users = await _players(sessions, 3)
    newcomer = await make_user(sessions)
    await _rate(sessions, await _match(sessions), users, [25, 40, 105])
    await _rate(sessions, await _match(sessions), users, [0, 90, 101])
    async with sessions() as session:
        first = await kozel_ratings.standing(session, users[0].id)
        fresh = await kozel_ratings.standing(session, newcomer.id)
        entries, total = await kozel_ratings.leaderboard(session, 1, 50)
        _, _count = await kozel_ratings.leaderboard(session, 1, 1)
    assert (first.rating, first.matches, first.last_change) == (18, 2, 10)
    assert [(c.rating_before, c.change) for c in first.recent] == [(8, 10), (0, 8)]
    assert (fresh.rating, fresh.matches, fresh.last_change, fresh.recent) == (
        KOZEL_START, 0, None, [])
    mine = {e.nickname: e for e in entries}
    assert newcomer.nickname not in mine  # no rated Kozel match: not listed
    assert [(mine[u.nickname].rating, mine[u.nickname].matches) for u in users] == [
        (18, 2), (7, 2), (-1, 2)]
    ranks = [mine[u.nickname].rank for u in users]
    assert ranks == sorted(ranks) and total >= 3 and _count == total


async def test_two_calls_at_once_for_one_match_rate_it_once(sessions) -> None:
    """Two transactions finishing the same match race: the second waits for the first's locks,
    then finds the match rated and writes nothing."""
    import asyncio

    users = await _players(sessions, 3)
    match_id = await _match(sessions)
    results = await asyncio.gather(*(_rate(sessions, match_id, users, [25, 40, 105])
                                     for _ in range(2)))
    assert sorted(len(r) for r in results) == [0, 3]
    assert await _ratings(sessions, users) == [(8, 1), (6, 1), (-1, 1)]
    assert await _changes(sessions, match_id) == 3
