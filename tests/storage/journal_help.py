"""Helpers for the journal-append tests: a bare active match row to append to, an append the
way a move makes it, and the rows its journal holds."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.storage import repo
from kva.storage.db import Database
from kva.storage.models import MatchFair, MatchRow, MatchSeat


async def make_match(sessions: async_sessionmaker, match_id: str) -> None:
    """An active match ``match_id`` with no journal yet (and two empty seats)."""
    async with sessions() as session:
        session.add(MatchRow(id=match_id, status="active", target=75, bazaar="draw",
                             record={}, version=0,
                             seats=[MatchSeat(seat=0), MatchSeat(seat=1)]))
        session.add(MatchFair(match_id=match_id, server_seed="ab" * 32))
        await session.commit()


async def journal_rows(sessions: async_sessionmaker, match_id: str) -> list[tuple[int, str]]:
    """The (version, change) rows of ``match_id``'s journal, in order."""
    async with sessions() as session:
        return await repo.journal_since(session, match_id, 0)


async def append_journal(database: Database, match_id: str, seq: int, change: str,
                         player_session: str | None = None) -> bool:
    """Append as a move does: with the writer chosen for ``database`` when it was made."""
    return await database.journal.append(match_id, seq, change, player_session)
