"""Finished Kozel matches for tests: a real ``kozel/1`` record of seeded random play, stored
as a finished match row, the way the play core stores one."""

from __future__ import annotations

import random
import secrets
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva import kozel
from kva.storage.models import MatchRow, MatchSeat, User, utcnow


def kozel_record(seats: int, seed: int, names: list[str], *, limit: int = 25,
                 pairs: bool = False) -> dict[str, Any]:
    """The record of a Kozel match of ``seats`` played to its end by random legal actions,
    dealt by kva-fair/1 (its ``meta.fair`` revealed, as a finished match's record is)."""
    rng = random.Random(seed)
    dealer = kozel.KozelFairDealer(rng.randbytes(32), [rng.randbytes(16).hex()
                                                       for _ in range(seats)])
    match = kozel.Match(seats, kozel.Options(limit=limit, pairs=pairs), dealer=dealer)
    while not match.over:
        seat = match.turn
        assert seat is not None
        match.apply(rng.choice(list(match.legal(seat))), seat)
    return kozel.write_record(match, [{"name": n} for n in names],
                              {"match_id": str(seed), "fair": dealer.meta(reveal=True),
                               "options": {"fish": "all", "pairs": pairs, "limit": limit}})


async def finished_kozel_match(
    sessions: async_sessionmaker, players: list[User | str], *, seed: int | None = None,
    goat: int | None = None, finished_at: datetime | None = None, pairs: bool = False,
) -> MatchRow:
    """A finished Kozel match row: each of ``players`` a user or a bot's level. ``goat``
    forces the seat that is the one козёл (seeds are searched until it is)."""
    seed = secrets.randbelow(10**9) if seed is None else seed
    names = [p if isinstance(p, str) else p.nickname for p in players]
    while True:
        record = kozel_record(len(players), seed, names, pairs=pairs)
        if goat is None or record["loser"] == [goat]:
            break
        seed += 1
    when = finished_at or utcnow()
    row = MatchRow(
        id=secrets.token_urlsafe(9), status="finished", target=0, bazaar="", rated=False,
        game="kozel",
        seats=[MatchSeat(seat=i, user_id=None if isinstance(p, str) else p.id,
                         bot=p if isinstance(p, str) else None)
               for i, p in enumerate(players)],
        version=50, record=record, winner=None, end_reason="points", created_at=when,
        updated_at=when, finished_at=when,
    )
    async with sessions() as session, session.begin():
        session.add(row)
    return row
