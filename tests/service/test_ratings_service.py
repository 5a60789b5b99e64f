"""Ratings on the platform: which matches are rated, the Glicko-2 update in the database, the
rating history, idleness, and the rating table (service level, SQLite or PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from kva.ratings import Rating, rate_match, update
from kva.service import ratings
from kva.storage.community import RatingHistory
from kva.storage.models import User, utcnow
from tests.helpers.community_help import finished_match, make_user


async def _reload(sessions, *users):  # type: ignore[no-untyped-def]
    async with sessions() as session:
        return [await session.get(User, u.id) for u in users]


async def _rate(sessions, match_id, now=None):  # type: ignore[no-untyped-def]
    async with sessions() as session, session.begin():
        return await ratings.rate_finished_match(session, match_id, now)


async def test_a_rated_match_moves_both_ratings_by_glicko2_and_logs_them(sessions) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    row = await finished_match(sessions, a, b, winner=1)
    changes = await _rate(sessions, row.id)
    expected_a, expected_b = rate_match(Rating(), Rating(), 0.0)
    a2, b2 = await _reload(sessions, a, b)
    assert (a2.rating, a2.rating_deviation, a2.rating_volatility) == pytest.approx(
        (expected_a.rating, expected_a.rd, expected_a.volatility))
    assert (b2.rating, b2.rating_deviation) == pytest.approx((expected_b.rating, expected_b.rd))
    assert b2.rating > 1500 > a2.rating
    assert [c.user_id for c in changes] == [a.id, b.id]
    assert changes[1].delta == pytest.approx(b2.rating - 1500)
    # One match leaves a new player provisional (RD above 110).
    assert ratings.provisional(a2) and ratings.provisional(b2)
    async with sessions() as session:
        logged = {h.user_id: h for h in await session.scalars(
            select(RatingHistory).where(RatingHistory.match_id == row.id))}
    assert set(logged) == {a.id, b.id}
    assert (logged[b.id].rating_before, logged[b.id].rd_before) == (1500.0, 350.0)
    assert logged[b.id].rating_after == pytest.approx(b2.rating)
    assert logged[a.id].rd_after == pytest.approx(a2.rating_deviation)


async def test_rating_a_match_twice_changes_nothing_the_second_time(sessions) -> None:
    a, b = await make_user(sessions), await make_user(sessions)
    row = await finished_match(sessions, a, b, winner=0)
    assert len(await _rate(sessions, row.id)) == 2
    before = [(u.rating, u.rating_deviation) for u in await _reload(sessions, a, b)]
    assert await _rate(sessions, row.id) == []
    after = [(u.rating, u.rating_deviation) for u in await _reload(sessions, a, b)]
    assert before == after
    async with sessions() as session:
        count = await session.scalar(select(func.count()).select_from(RatingHistory).where(
            RatingHistory.match_id == row.id))
    assert count == 2


@pytest.mark.parametrize("case", ["guest", "bot", "flag_off", "unfinished"])
async def test_casual_matches_change_no_rating(sessions, case: str) -> None:
    a = await make_user(sessions)
    b = await make_user(sessions, kind="guest" if case == "guest" else "registered")
    if case == "bot":
        row = await finished_match(sessions, a, None, bots=(None, "easy"), winner=0)
    else:
        row = await finished_match(sessions, a, b, rated=case != "flag_off", winner=0)
    if case == "unfinished":
        async with sessions() as session, session.begin():
            (await session.get(type(row), row.id)).status = "active"
    assert await _rate(sessions, row.id) == []
    for user in await _reload(sessions, a, b):
        assert (user.rating, user.rating_deviation, user.rating_volatility) == (1500, 350, 0.06)
    async with sessions() as session:
        assert not await session.scalar(select(func.count()).select_from(RatingHistory).where(
            RatingHistory.match_id == row.id))


async def test_idleness_widens_the_rd_before_the_next_match(sessions) -> None:
    a, b, c = [await make_user(sessions) for _ in range(3)]
    long_ago = utcnow() - timedelta(days=200)
    first = await finished_match(sessions, a, b, winner=0, finished_at=long_ago)
    await _rate(sessions, first.id, now=long_ago)
    (a1,) = await _reload(sessions, a)
    now = utcnow()
    second = await finished_match(sessions, a, c, winner=0, finished_at=now)
    changes = {ch.user_id: ch for ch in await _rate(sessions, second.id, now=now)}
    widened = Rating(a1.rating, a1.rating_deviation, a1.rating_volatility)
    for _ in range(6):  # 200 days: six full 30-day periods without a game
        widened = update(widened, [])
    assert changes[a.id].before.rd == pytest.approx(widened.rd)
    assert changes[a.id].before.rd > a1.rating_deviation
    # The newcomer c had no earlier rated match: nothing to widen.
    assert changes[c.id].before == Rating()


def test_after_idleness_is_identity_without_a_previous_match() -> None:
    r = Rating(1620, 80, 0.06)
    assert ratings.after_idleness(r, None, utcnow()) == r
    assert ratings.after_idleness(r, utcnow() - timedelta(days=29), utcnow()) == r
    assert ratings.after_idleness(r, utcnow() - timedelta(days=31), utcnow()).rd > 80


async def test_many_matches_make_a_rating_established(sessions) -> None:
    # Two newcomers trading wins: about fifteen matches bring the RD under 110.
    a, b = await make_user(sessions), await make_user(sessions)
    for i in range(16):
        row = await finished_match(sessions, a, b, winner=i % 2, seed=1000 + 7 * i)
        await _rate(sessions, row.id)
    a2, b2 = await _reload(sessions, a, b)
    assert not ratings.provisional(a2) and not ratings.provisional(b2)
    assert 60 < a2.rating_deviation < 110


async def test_rating_table_orders_registered_rated_players(sessions) -> None:
    strong, weak, idle = [await make_user(sessions) for _ in range(3)]
    guest = await make_user(sessions, kind="guest")
    for i in range(3):
        row = await finished_match(sessions, strong, weak, winner=0, seed=50 + i)
        await _rate(sessions, row.id)
    casual = await finished_match(sessions, strong, guest, winner=1)
    await _rate(sessions, casual.id)
    async with sessions() as session:
        entries, total = await ratings.leaderboard(session, 1, 10_000)
    names = [e.nickname for e in entries]
    assert strong.nickname in names and weak.nickname in names
    assert idle.nickname not in names and guest.nickname not in names
    assert names.index(strong.nickname) < names.index(weak.nickname)
    mine = {e.nickname: e for e in entries}
    assert mine[strong.nickname].games == 3 and mine[strong.nickname].provisional
    assert [e.rank for e in entries] == list(range(1, len(entries) + 1))
    assert total == len(entries)
    ordered = [e.rating for e in entries]
    assert ordered == sorted(ordered, reverse=True)
    async with sessions() as session:
        page2, total2 = await ratings.leaderboard(session, 2, 1)
        assert total2 == total and page2[0].rank == 2
        with pytest.raises(ValueError):
            await ratings.leaderboard(session, 0, 10)
