"""Reading and writing a match's kva-fair/1 inputs (docs/fairness.md): its server seed
(table ``match_fair``) and each seat's client seed (on the seat's row of ``match_seats``).

The server seed is the secret of a match in progress: only the play service reads it, and
only to deal and, once the match is over, to reveal it.

Core statements, not the ORM: a seed is stored twice per new match, and an ORM ``update``
goes through the ORM's bulk-update machinery for one row."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from kva.storage.models import MatchFair, MatchSeat

_FAIR = cast(Table, MatchFair.__table__)
_SEATS = cast(Table, MatchSeat.__table__)
#: :func:`set_client_seed`'s statement, built once: the seed and who chose it, written only
#: while the seat has none.
_SET_SEED = (
    update(_SEATS)
    .where(_SEATS.c.match_id == bindparam("match"), _SEATS.c.seat == bindparam("seat_index"),
           _SEATS.c.client_seed.is_(None))
    .values(client_seed=bindparam("seed"), seed_by=bindparam("by")))
#: :func:`get_fair`'s statement: every column of the row.
_GET_FAIR = select(_FAIR).where(_FAIR.c.match_id == bindparam("match"))
#: :func:`client_seeds`'s statement: each seat's seed and who chose it, in seat order.
_GET_SEEDS = (select(_SEATS.c.client_seed, _SEATS.c.seed_by)
              .where(_SEATS.c.match_id == bindparam("match")).order_by(_SEATS.c.seat))


async def get_fair(session: AsyncSession | AsyncConnection, match_id: str) -> MatchFair | None:
    """The server seed of a match (None: a match from before fair deals), as a new object
    holding the row (never part of ``session``)."""
    row = (await session.execute(_GET_FAIR, {"match": match_id})).first()
    return None if row is None else MatchFair(**row._asdict())


async def set_client_seed(
    session: AsyncSession | AsyncConnection, match_id: str, seat: int, seed: str, by: str
) -> bool:
    """Store ``seat``'s client seed unless it has one already; whether it was stored."""
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _SET_SEED, {"match": match_id, "seat_index": seat, "seed": seed, "by": by})
    return result.rowcount == 1


async def client_seeds(session: AsyncSession | AsyncConnection, match_id: str
                       ) -> list[tuple[str | None, str | None]]:
    """Each seat's client seed and who chose it, as stored now, in seat order (None, None:
    not in yet)."""
    rows = await session.execute(_GET_SEEDS, {"match": match_id})
    return [(seed, by) for seed, by in rows]
