"""A player's finished matches: the history list, the win/loss/draw counts, and the export of
every record as one download.

The export is a single JSON array of ``georgian-domino/1`` records (each exactly what
``/m/{id}/record.json`` serves), oldest first, streamed in batches so a long history never
sits in memory whole.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.storage import history as history_store
from kva.storage import repo

#: Matches per page of the history list.
PER_PAGE = 25
#: Records fetched per query while streaming an export.
EXPORT_BATCH = 50


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One finished match as its player sees it in the history."""

    id: str
    opponent: str | None
    opponent_bot: str | None
    opponent_is_guest: bool
    result: str  # "win", "loss" or "draw"
    score: tuple[int, int]  # (mine, the opponent's)
    target: int
    bazaar: str
    finished_at: datetime | None
    rated: bool
    end_reason: str | None
    rating_delta: float | None


@dataclass(frozen=True, slots=True)
class Counts:
    """How a player's finished matches went."""

    wins: int
    losses: int
    draws: int

    @property
    def total(self) -> int:
        return self.wins + self.losses + self.draws


async def counts(session: AsyncSession, user_id: int) -> Counts:
    """Wins, losses and draws over every finished match of ``user_id``."""
    wins, losses, draws = await history_store.finished_counts(session, user_id)
    return Counts(wins, losses, draws)


async def history(
    session: AsyncSession, user_id: int, page: int = 1, per_page: int = PER_PAGE
) -> tuple[list[HistoryLine], int]:
    """One page of ``user_id``'s finished matches, newest first, and how many there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    total = await history_store.finished_total(session, user_id)
    rows = await history_store.finished_page(session, user_id, (page - 1) * per_page, per_page)
    others = {
        (r.seat1_user_id if r.seat0_user_id == user_id else r.seat0_user_id) for r in rows
    } - {None}
    users = await repo.users_by_id(session, [o for o in others if o is not None])
    deltas = await history_store.rating_deltas(session, user_id, [r.id for r in rows]) \
        if rows else {}
    lines = []
    for r in rows:
        seat = 0 if r.seat0_user_id == user_id else 1
        other_id = r.seat1_user_id if seat == 0 else r.seat0_user_id
        other = users.get(other_id) if other_id is not None else None
        score = r.record.get("score") or [0, 0]
        result = "draw" if r.winner is None else ("win" if r.winner == seat else "loss")
        lines.append(HistoryLine(
            id=r.id, opponent=other.nickname if other else None,
            opponent_bot=r.seat1_bot if seat == 0 else r.seat0_bot,
            opponent_is_guest=other is not None and other.kind == "guest",
            result=result, score=(int(score[seat]), int(score[1 - seat])), target=r.target,
            bazaar=r.bazaar, finished_at=r.finished_at, rated=r.id in deltas,
            end_reason=r.end_reason, rating_delta=deltas.get(r.id),
        ))
    return lines, total


async def export_records(
    sessions: async_sessionmaker[AsyncSession], user_id: int
) -> AsyncIterator[bytes]:
    """Every finished record of ``user_id`` as one JSON array, oldest first, in chunks.

    Pages by ``(finished_at, id)`` (keyset), each batch in its own short session, so a long
    export holds no transaction open between chunks.
    """
    yield b"["
    first = True
    after: tuple[datetime, str] | None = None
    while True:
        async with sessions() as session:
            batch = await history_store.finished_records_after(
                session, user_id, after, EXPORT_BATCH)
        for finished_at, match_id, record in batch:
            yield (b"" if first else b",\n") + json.dumps(
                record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            first = False
            after = (finished_at, match_id)
        if len(batch) < EXPORT_BATCH:
            break
    yield b"]\n"
