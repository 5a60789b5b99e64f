"""Reading and writing a match's kva-fair/1 inputs (table ``match_fair``, docs/fairness.md).

The server seed in it is the secret of a match in progress: only the play service reads it,
and only to deal and, once the match is over, to reveal it.

Core statements on the table, not the ORM: a seed is stored twice per new match, and an ORM
``update(MatchFair)`` goes through the ORM's bulk-update machinery for one row."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from kva.storage.models import MatchFair

_FAIR = cast(Table, MatchFair.__table__)
#: :func:`set_client_seed`'s statements per seat, built once: the seed and who chose it,
#: written only while the seat has none.
_SET_SEED = tuple(
    update(_FAIR)
    .where(_FAIR.c.match_id == bindparam("match"), _FAIR.c[column].is_(None))
    .values({column: bindparam("seed"), by_column: bindparam("by")})
    for column, by_column in (("client_seed0", "seed_by0"), ("client_seed1", "seed_by1")))
#: :func:`get_fair`'s statement: every column of the row.
_GET_FAIR = select(_FAIR).where(_FAIR.c.match_id == bindparam("match"))


async def get_fair(session: AsyncSession | AsyncConnection, match_id: str) -> MatchFair | None:
    """The kva-fair/1 inputs of a match (None: a match from before fair deals), as a new
    object holding the row (never part of ``session``)."""
    row = (await session.execute(_GET_FAIR, {"match": match_id})).first()
    return None if row is None else MatchFair(**row._asdict())


async def set_client_seed(
    session: AsyncSession | AsyncConnection, match_id: str, seat: int, seed: str, by: str
) -> bool:
    """Store ``seat``'s client seed unless it has one already; whether it was stored."""
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _SET_SEED[seat], {"match": match_id, "seed": seed, "by": by})
    return result.rowcount == 1
