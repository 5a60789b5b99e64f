"""Reading and writing a match's kva-fair/1 inputs (table ``match_fair``, docs/fairness.md).

The server seed in it is the secret of a match in progress: only the play service reads it,
and only to deal and, once the match is over, to reveal it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, update
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import MatchFair


async def get_fair(session: AsyncSession, match_id: str) -> MatchFair | None:
    """The kva-fair/1 inputs of a match (None: a match from before fair deals)."""
    return await session.get(MatchFair, match_id)


async def set_client_seed(
    session: AsyncSession, match_id: str, seat: int, seed: str, by: str
) -> bool:
    """Store ``seat``'s client seed unless it has one already; whether it was stored."""
    column, by_column = (("client_seed0", "seed_by0") if seat == 0
                         else ("client_seed1", "seed_by1"))
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        update(MatchFair)
        .where(MatchFair.match_id == match_id, getattr(MatchFair, column).is_(None))
        .values({column: seed, by_column: by})
    )
    return result.rowcount == 1
