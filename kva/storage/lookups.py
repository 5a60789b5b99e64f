"""Rows by primary key, through the session's identity map: a row this transaction loaded
already comes back without a second read (the rating and the coin payout of a finishing match
share the match's row this way)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import MatchRow, User


async def match_row(session: AsyncSession, match_id: str, *, fresh: bool = False
                    ) -> MatchRow | None:
    """The match ``match_id`` (None: no such match); ``fresh``: read again from the database
    even if the session holds it, its loaded attributes replaced."""
    return await session.get(MatchRow, match_id, populate_existing=fresh)


async def user_row(session: AsyncSession, user_id: int | None) -> User | None:
    """The user ``user_id`` (None: no such user, or no id)."""
    return await session.get(User, user_id)
