"""Kozel ratings as stored: one ``kozel_ratings`` row per player who has played a rated Kozel
match and one ``kozel_rating_changes`` row per player and rated match, for the Kozel rating
service (:mod:`kva.service.kozel_ratings`).

Every function works in the caller's transaction and leaves committing to it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.community import KOZEL_START, KozelRating, KozelRatingChange
from kva.storage.models import User, utcnow


async def is_rated(session: AsyncSession, match_id: str) -> bool:
    """Whether the Kozel match ``match_id`` has been rated (it has change rows)."""
    return await session.scalar(
        select(KozelRatingChange.id).where(KozelRatingChange.match_id == match_id).limit(1)
    ) is not None


async def locked_ratings(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, KozelRating]:
    """The Kozel ratings of ``user_ids``, by user id, each locked (PostgreSQL; SQLite holds the
    database write lock already) in id order, so two matches of one player are rated one after
    the other. A player without a row gets one at :data:`KOZEL_START` first; the insert skips a
    row another transaction has just created rather than fail on it."""
    if not user_ids:
        return {}
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    now = utcnow()
    await session.execute(
        insert(KozelRating)
        .values([{"user_id": uid, "rating": KOZEL_START, "matches": 0, "last_change": 0,
                  "updated_at": now} for uid in sorted(set(user_ids))])
        .on_conflict_do_nothing(index_elements=["user_id"])
    )
    rows = await session.scalars(
        select(KozelRating).where(KozelRating.user_id.in_(user_ids))
        .order_by(KozelRating.user_id).with_for_update()
        .execution_options(populate_existing=True)
    )
    return {row.user_id: row for row in rows}


def add_change(session: AsyncSession, match_id: str, user_id: int, *, before: int, change: int,
               at: datetime) -> None:
    """Log one player's Kozel rating change through one match; written at the next flush."""
    session.add(KozelRatingChange(match_id=match_id, user_id=user_id, rating_before=before,
                                  change=change, rating_after=before + change, created_at=at))


async def rating_of(session: AsyncSession, user_id: int) -> KozelRating | None:
    """The stored Kozel rating of ``user_id`` (None: never rated in Kozel)."""
    return await session.get(KozelRating, user_id)


async def changes_of(session: AsyncSession, user_id: int, limit: int) -> list[KozelRatingChange]:
    """The latest ``limit`` Kozel rating changes of ``user_id``, newest first."""
    rows = await session.scalars(
        select(KozelRatingChange).where(KozelRatingChange.user_id == user_id)
        .order_by(KozelRatingChange.created_at.desc(), KozelRatingChange.id.desc())
        .limit(limit)
    )
    return list(rows)


async def match_changes(session: AsyncSession, match_id: str) -> list[KozelRatingChange]:
    """The Kozel rating changes of the match ``match_id`` (empty: not rated)."""
    rows = await session.scalars(
        select(KozelRatingChange).where(KozelRatingChange.match_id == match_id)
        .order_by(KozelRatingChange.id)
    )
    return list(rows)


async def leaderboard_page(
    session: AsyncSession, page: int, per_page: int
) -> tuple[list[tuple[str, KozelRating]], int]:
    """One page (from 1) of the registered players with at least one rated Kozel match, each
    with their nickname, best rating first (ties: more matches, then nickname); and how many
    such players there are."""
    base = (
        select(User.nickname, KozelRating)
        .join(User, User.id == KozelRating.user_id)
        .where(User.kind != "guest", KozelRating.matches > 0)
    )
    total = await session.scalar(select(func.count()).select_from(base.subquery())) or 0
    rows = await session.execute(
        base.order_by(KozelRating.rating.desc(), KozelRating.matches.desc(), User.nickname)
        .offset((page - 1) * per_page).limit(per_page)
    )
    return [(nickname, rating) for nickname, rating in rows.all()], int(total)
