"""The statements behind the lobby (:mod:`kva.service.lobby.open_tables`): the open tables still
waiting
for a second player, one of them by its match, and how many a player has opened.

An open table is a ``tables`` row of kind ``open`` whose match is ``waiting``; closed tables
(a friend's, by link) are kind ``closed`` and never read here.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from kva.status import MatchStatus
from kva.storage.models import MatchRow, TableRow, User
from kva.storage.seats import has_free_seat

#: ``tables.kind`` of a table listed in the lobby.
OPEN = "open"


async def open_tables(session: AsyncSession, limit: int) -> list[tuple[MatchRow, User]]:
    """The open tables nobody has joined yet, each match with its creator, oldest first (ties
    by match id), at most ``limit``."""
    rows = await session.execute(
        select(MatchRow, User)
        .join(TableRow, TableRow.match_id == MatchRow.id)
        .join(User, User.id == TableRow.created_by)
        .where(TableRow.kind == OPEN, MatchRow.status == MatchStatus.WAITING, has_free_seat())
        .order_by(MatchRow.created_at, MatchRow.id)
        .limit(limit)
    )
    return [(match, user) for match, user in rows.all()]


async def open_table(session: AsyncSession, match_id: str) -> tuple[TableRow, MatchRow] | None:
    """The open table of ``match_id`` and its match, whatever the match's status; None when
    the match has no open table."""
    found = (await session.execute(
        select(TableRow, MatchRow)
        .join(MatchRow, MatchRow.id == TableRow.match_id)
        .where(TableRow.match_id == match_id, TableRow.kind == OPEN)
    )).first()
    if found is None:
        return None
    table, match = found
    return table, match


async def waiting_open_tables_of(session: AsyncSession, user_id: int) -> int:
    """How many open tables ``user_id`` opened that still wait for a second player."""
    count = await session.scalar(
        select(func.count()).select_from(TableRow)
        .join(MatchRow, MatchRow.id == TableRow.match_id)
        .where(TableRow.created_by == user_id, TableRow.kind == OPEN,
               MatchRow.status == MatchStatus.WAITING))
    return int(count or 0)
