"""What the rating table and a player's pages read (kva.web.profiles), each in a session of
its own: the service opens and ends it, the page only shows the answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service import history, kozel_ratings, ratings
from kva.storage.community import RatingHistory

#: Matches a profile lists as its player's most recent.
RECENT = 10


@dataclass(frozen=True, slots=True)
class Profile:
    """A player's profile: every Georgian rating change (oldest first), their Kozel standing,
    their results, and their most recent matches."""

    changes: list[RatingHistory]
    kozel: kozel_ratings.KozelStanding
    counts: history.Counts
    recent: list[history.HistoryLine]


async def profile(sessions: async_sessionmaker[AsyncSession], user_id: int) -> Profile:
    """The profile of ``user_id``, read in one session."""
    async with sessions() as session:
        changes = await ratings.rating_history(session, user_id)
        kozel = await kozel_ratings.standing(session, user_id)
        tally = await history.counts(session, user_id)
        recent, _total = await history.history(session, user_id, 1, RECENT)
    return Profile(changes, kozel, tally, recent)


async def leaderboard_page(
    sessions: async_sessionmaker[AsyncSession], game: str, page: int, per_page: int,
) -> tuple[Sequence[ratings.LeaderboardEntry | kozel_ratings.KozelLeaderboardEntry], int]:
    """One page of ``game``'s rating table (``"georgian"``:
    :func:`kva.service.ratings.leaderboard`; ``"kozel"``:
    :func:`kva.service.kozel_ratings.leaderboard`) and how many players it has."""
    async with sessions() as session:
        if game == "kozel":
            return await kozel_ratings.leaderboard(session, page, per_page)
        return await ratings.leaderboard(session, page, per_page)


async def matches_page(sessions: async_sessionmaker[AsyncSession], user_id: int, page: int,
                       per_page: int) -> tuple[list[history.HistoryLine], int]:
    """One page of ``user_id``'s finished matches (:func:`kva.service.history.history`) and
    how many there are."""
    async with sessions() as session:
        return await history.history(session, user_id, page, per_page)


async def kozel_rating(sessions: async_sessionmaker[AsyncSession], user_id: int) -> int:
    """``user_id``'s Kozel rating (the start for a player who never played a rated one): what
    the Kozel quick game matches by."""
    async with sessions() as session:
        return (await kozel_ratings.standing(session, user_id, recent=0)).rating
