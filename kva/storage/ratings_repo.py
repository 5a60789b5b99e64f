"""Players' ratings as stored: the Glicko-2 state on ``users`` and one ``rating_history`` row
per player and rated match, for the rating service (:mod:`kva.service.ratings`).

Every function works in the caller's transaction and leaves committing to it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.community import RatingHistory
from kva.storage.models import User


async def last_rated_at(session: AsyncSession, user_id: int) -> datetime | None:
    """When ``user_id``'s last rated match was rated (None: never)."""
    return await session.scalar(
        select(func.max(RatingHistory.created_at)).where(RatingHistory.user_id == user_id)
    )


async def is_rated(session: AsyncSession, match_id: str) -> bool:
    """Whether ``match_id`` has been rated (it has history rows)."""
    return bool(await session.scalar(
        select(func.count()).select_from(RatingHistory).where(RatingHistory.match_id == match_id)
    ))


async def locked_users(session: AsyncSession, ids: Sequence[int]) -> dict[int, User]:
    """The users of ``ids``, locked in id order (PostgreSQL; SQLite holds the database write
    lock already), by id."""
    return {
        u.id: u
        for u in await session.scalars(
            select(User).where(User.id.in_(ids)).order_by(User.id).with_for_update()
        )
    }


def add_change(
    session: AsyncSession, user_id: int, match_id: str, *, before: tuple[float, float],
    after: tuple[float, float, float], at: datetime,
) -> None:
    """Log one player's rating change through one match: ``before`` (rating, RD), ``after``
    (rating, RD, volatility); written at the next flush."""
    session.add(RatingHistory(
        user_id=user_id, match_id=match_id, rating_before=before[0], rd_before=before[1],
        rating_after=after[0], rd_after=after[1], volatility_after=after[2], created_at=at,
    ))


async def leaderboard_page(
    session: AsyncSession, page: int, per_page: int
) -> tuple[list[tuple[User, int]], int]:
    """One page (from 1) of the registered players with at least one rated match and how
    many rated matches each has, best rating first (ties: lower RD, then nickname); and how
    many such players there are."""
    games = (
        select(RatingHistory.user_id, func.count().label("games"))
        .group_by(RatingHistory.user_id)
        .subquery()
    )
    base = select(User, games.c.games).join(games, games.c.user_id == User.id).where(
        User.kind != "guest")
    total = await session.scalar(select(func.count()).select_from(base.subquery())) or 0
    rows = await session.execute(
        base.order_by(User.rating.desc(), User.rating_deviation, User.nickname)
        .offset((page - 1) * per_page).limit(per_page)
    )
    return [(user, int(count)) for user, count in rows.all()], int(total)


async def history_of(session: AsyncSession, user_id: int) -> list[RatingHistory]:
    """The user's rating changes, oldest first."""
    rows = await session.scalars(
        select(RatingHistory).where(RatingHistory.user_id == user_id)
        .order_by(RatingHistory.created_at, RatingHistory.id)
    )
    return list(rows)


async def match_changes(session: AsyncSession, match_id: str,
                        user_ids: Sequence[int]) -> dict[int, RatingHistory]:
    """The rating changes of ``user_ids`` through ``match_id``, by user id."""
    return {
        h.user_id: h
        for h in await session.scalars(select(RatingHistory).where(
            RatingHistory.user_id.in_(user_ids), RatingHistory.match_id == match_id))
    }
