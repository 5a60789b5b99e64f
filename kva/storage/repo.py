"""The queries the play service and the web shell need, one small function each.

Every function takes an ``AsyncSession`` and leaves committing to the caller, except where the
docstring says otherwise, so a caller can put several writes in one transaction.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.storage.models import MatchRow, TableRow, User, WatchGrant, utcnow


async def create_guest(sessions: async_sessionmaker[AsyncSession]) -> User:
    """Create and commit a guest user named ``guest-NNNN`` (more digits if the name is taken)."""
    for attempt in range(12):
        digits = 4 + attempt // 3
        nickname = f"guest-{secrets.randbelow(9 * 10 ** (digits - 1)) + 10 ** (digits - 1)}"
        async with sessions() as session:
            user = User(nickname=nickname, kind="guest")
            session.add(user)
            try:
                await session.commit()
            except IntegrityError:
                await session.rollback()
                continue
            return user
    raise RuntimeError("could not find a free guest nickname")


async def get_user(session: AsyncSession, user_id: int) -> User | None:
    """The user with id ``user_id``, or None."""
    return await session.get(User, user_id)


async def users_by_id(session: AsyncSession, ids: list[int]) -> dict[int, User]:
    """Users by id for the given ids (missing ids are left out)."""
    if not ids:
        return {}
    rows = await session.scalars(select(User).where(User.id.in_(ids)))
    return {u.id: u for u in rows}


async def get_match(session: AsyncSession, match_id: str) -> MatchRow | None:
    """The match row, or None."""
    return await session.get(MatchRow, match_id)


async def match_version(session: AsyncSession, match_id: str) -> int | None:
    """The stored version of a match (None if there is no such match): a cheap freshness check
    for a copy held in memory, which another process may have moved on."""
    return await session.scalar(select(MatchRow.version).where(MatchRow.id == match_id))


async def save_match_state(
    session: AsyncSession,
    match_id: str,
    expected_version: int,
    *,
    record: dict[str, Any],
    status: str,
    winner: int | None = None,
    end_reason: str | None = None,
    finished_at: datetime | None = None,
    seat1_user_id: int | None = None,
) -> bool:
    """Write a match's new record at ``expected_version + 1`` if nobody wrote it meanwhile.

    Returns False (and writes nothing) when the stored version is not ``expected_version``:
    another process or task changed the match first.
    """
    values: dict[str, Any] = {
        "record": record,
        "status": status,
        "version": expected_version + 1,
        "updated_at": utcnow(),
        "winner": winner,
        "end_reason": end_reason,
        "finished_at": finished_at,
    }
    if seat1_user_id is not None:
        values["seat1_user_id"] = seat1_user_id
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        update(MatchRow)
        .where(MatchRow.id == match_id, MatchRow.version == expected_version)
        .values(**values)
    )
    return result.rowcount == 1


async def table_by_token(session: AsyncSession, token: str) -> TableRow | None:
    """The closed table whose link carries ``token``, or None."""
    return await session.scalar(select(TableRow).where(TableRow.token == token))


async def table_of_match(session: AsyncSession, match_id: str) -> TableRow | None:
    """The closed table of a friend match, or None (bot matches have none)."""
    return await session.scalar(select(TableRow).where(TableRow.match_id == match_id))


async def unfinished_matches(session: AsyncSession) -> list[MatchRow]:
    """Every match still being played (what to resume after a restart)."""
    rows = await session.scalars(select(MatchRow).where(MatchRow.status == "active"))
    return list(rows)


async def matches_of_user(session: AsyncSession, user_id: int, limit: int = 20) -> list[MatchRow]:
    """The user's matches, unfinished first, newest first."""
    rows = await session.scalars(
        select(MatchRow)
        .where(or_(MatchRow.seat0_user_id == user_id, MatchRow.seat1_user_id == user_id),
               MatchRow.status != "cancelled")
        .order_by(MatchRow.finished_at.is_not(None), MatchRow.created_at.desc())
        .limit(limit)
    )
    return list(rows)


async def has_watch_grant(session: AsyncSession, match_id: str, user_id: int) -> bool:
    """Whether ``user_id`` may watch the private match ``match_id`` (gave its password)."""
    return await session.get(WatchGrant, (match_id, user_id)) is not None


async def grant_watch(session: AsyncSession, match_id: str, user_id: int) -> None:
    """Let ``user_id`` watch the private match ``match_id`` (nothing changes if they may)."""
    if not await has_watch_grant(session, match_id, user_id):
        session.add(WatchGrant(match_id=match_id, user_id=user_id))


async def copy_watch_grants(session: AsyncSession, from_match: str, to_match: str) -> None:
    """Whoever may watch ``from_match`` may watch ``to_match`` (its rematch)."""
    users = await session.scalars(select(WatchGrant.user_id)
                                  .where(WatchGrant.match_id == from_match))
    for user_id in users:
        session.add(WatchGrant(match_id=to_match, user_id=user_id))
