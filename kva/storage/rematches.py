"""The statements of the rematch conversation (:mod:`kva.service.lobby.rematch`): one ``rematches``
row per finished match, written once and then changed only by guarded updates (``... WHERE
state = 'offered' AND offered_by = ...``), so two processes or two clicks racing can never
both win. Each guarded update says whether it changed the row; the caller commits.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import CursorResult, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.dml import Update

from kva.storage.community import Rematch
from kva.storage.models import MatchRow, MatchSeat, utcnow


async def get_rematch(session: AsyncSession, match_id: str) -> Rematch | None:
    """The rematch row of the finished match ``match_id`` (None: nobody offered yet)."""
    return await session.get(Rematch, match_id)


async def insert_rematch(session: AsyncSession, match_id: str, *, state: str, offered_by: int,
                         new_match_id: str | None = None) -> None:
    """Write the first rematch row of ``match_id``; a row there already raises the
    database's IntegrityError (someone else wrote it first)."""
    await session.execute(insert(Rematch).values(
        match_id=match_id, state=state, offered_by=offered_by, new_match_id=new_match_id,
        updated_at=utcnow()))


async def offer_again(session: AsyncSession, match_id: str, offered_by: int,
                      after: Collection[str]) -> bool:
    """Offer anew by seat ``offered_by`` while the conversation is in one of the states
    ``after``; whether it was."""
    return await _changed(session, (
        update(Rematch)
        .where(Rematch.match_id == match_id, Rematch.state.in_(after))
        .values(state="offered", offered_by=offered_by, updated_at=utcnow())))


async def answer_offer(session: AsyncSession, match_id: str, offered_by: int, state: str,
                       new_match_id: str | None = None, *, agreed: int | None = None) -> bool:
    """Move the standing offer of seat ``offered_by`` to ``state`` (and, given, set the new
    match, and at a larger table the seats that ``agreed`` in the end); whether such an offer
    stood."""
    values: dict[str, Any] = {"state": state, "updated_at": utcnow()}
    if new_match_id is not None:
        values["new_match_id"] = new_match_id
    if agreed is not None:
        values["offered_by"] = agreed
    return await _changed(session, (
        update(Rematch)
        .where(Rematch.match_id == match_id, Rematch.state == "offered",
               Rematch.offered_by == offered_by)
        .values(values)))


async def agree_to_offer(session: AsyncSession, match_id: str, agreed: int,
                         together: int) -> bool:
    """At a table of more than two seats, where ``offered_by`` holds the seats that agreed
    as a bitmask: change the standing offer agreed by ``agreed`` to ``together``; whether
    it still stood as ``agreed``."""
    return await _changed(session, (
        update(Rematch)
        .where(Rematch.match_id == match_id, Rematch.state == "offered",
               Rematch.offered_by == agreed)
        .values(offered_by=together, updated_at=utcnow())))


async def seat_count(session: AsyncSession, match_id: str) -> int:
    """How many seats the match ``match_id`` has (which rematch conversation it holds)."""
    return int(await session.scalar(
        select(func.count()).select_from(MatchSeat).where(MatchSeat.match_id == match_id))
        or 0)


async def add_match(session: AsyncSession, row: MatchRow) -> None:
    """Add the new match ``row`` to the session and flush it (its row exists from here on,
    in the caller's transaction)."""
    session.add(row)
    await session.flush()


async def _changed(session: AsyncSession, statement: Update) -> bool:
    """Run a guarded update; whether it changed exactly one row."""
    result: CursorResult[Any] = await session.execute(statement)  # type: ignore[assignment]
    return result.rowcount == 1
