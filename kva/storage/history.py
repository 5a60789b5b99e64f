"""The statements behind a player's history (:mod:`kva.service.history`): their finished
matches counted, paged and exported, and the rating change each rated one brought them.

"Finished matches of a user" is one filter here, used by every statement: the matches where
they sit in any seat whose status is ``finished``. The list (and its total) also shows the
aborted ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from kva.games.standing import KOZEL_FORMAT
from kva.status import EndReason, MatchStatus
from kva.storage.community import KozelRatingChange, RatingHistory
from kva.storage.models import MatchRow
from kva.storage.seats import seat_of, seated

#: The :mod:`kva.games` name of Kozel, whose matches the counts read from their records.
KOZEL = "kozel"


def _finished_of(user_id: int) -> ColumnElement[bool]:
    return and_(seated(user_id), MatchRow.status == MatchStatus.FINISHED)


def _listed_of(user_id: int) -> ColumnElement[bool]:
    """The matches the history lists: the finished ones and the aborted ones (``cancelled``
    once dealt, :mod:`kva.service.play.aborting`), which count as neither won nor lost and
    have no record to export."""
    return and_(seated(user_id),
                or_(MatchRow.status == MatchStatus.FINISHED,
                    and_(MatchRow.status == MatchStatus.CANCELLED,
                         MatchRow.end_reason == EndReason.ABORT)))


async def finished_counts(session: AsyncSession, user_id: int) -> tuple[int, int, int]:
    """Wins, losses and draws (no winner) over every finished match of ``user_id`` but the
    Kozel ones (:func:`kozel_standings`: a Kozel match is won or lost by its козлы, which
    the ``winner`` column does not say)."""
    my_seat = seat_of(user_id)
    row = (await session.execute(
        select(
            func.count().filter(MatchRow.winner.is_not(None), MatchRow.winner == my_seat),
            func.count().filter(MatchRow.winner.is_not(None), MatchRow.winner != my_seat),
            func.count().filter(MatchRow.winner.is_(None)),
        ).where(_finished_of(user_id), MatchRow.game != KOZEL)
    )).one()
    return int(row[0]), int(row[1]), int(row[2])


async def kozel_standings(session: AsyncSession,
                          user_id: int) -> list[tuple[int, dict[str, Any]]]:
    """Every finished Kozel match of ``user_id``: their seat and the part of its record that
    ranks the seats (``format``, ``sides``, ``loser``, ``score``), read from the stored JSON
    without loading the moves."""
    rows = await session.execute(
        select(seat_of(user_id), MatchRow.record["sides"], MatchRow.record["loser"],
               MatchRow.record["score"])
        .where(_finished_of(user_id), MatchRow.game == KOZEL))
    return [(int(seat), {"format": KOZEL_FORMAT, "sides": sides, "loser": loser,
                         "score": score})
            for seat, sides, loser, score in rows]


async def finished_total(session: AsyncSession, user_id: int) -> int:
    """How many matches the history of ``user_id`` lists (finished or aborted)."""
    total = await session.scalar(
        select(func.count()).select_from(MatchRow).where(_listed_of(user_id)))
    return int(total or 0)


async def finished_page(session: AsyncSession, user_id: int, offset: int,
                        limit: int) -> list[MatchRow]:
    """``limit`` finished or aborted matches of ``user_id`` from ``offset``, newest first
    (ties by id)."""
    return list(await session.scalars(
        select(MatchRow).where(_listed_of(user_id))
        .order_by(MatchRow.finished_at.desc(), MatchRow.id)
        .offset(offset).limit(limit)
    ))


async def rating_deltas(session: AsyncSession, user_id: int,
                        match_ids: Sequence[str]) -> dict[str, float]:
    """How much each of ``match_ids`` changed the rating of ``user_id``, for the rated ones:
    the Glicko-2 rating for a Georgian match, the Kozel rating for a Kozel one."""
    deltas = {
        h.match_id: h.rating_after - h.rating_before
        for h in await session.scalars(select(RatingHistory).where(
            RatingHistory.user_id == user_id, RatingHistory.match_id.in_(match_ids)))
    }
    deltas.update({
        k.match_id: float(k.change)
        for k in await session.scalars(select(KozelRatingChange).where(
            KozelRatingChange.user_id == user_id, KozelRatingChange.match_id.in_(match_ids)))
    })
    return deltas


async def finished_records_after(
    session: AsyncSession, user_id: int, after: tuple[datetime, str] | None, limit: int
) -> list[tuple[datetime, str, dict[str, Any]]]:
    """Up to ``limit`` finished records of ``user_id`` (``finished_at``, id, record), oldest
    first, after the match ``after`` (its ``finished_at`` and id; None: from the first):
    keyset paging, so each batch is one cheap query however far in it is."""
    query = select(MatchRow.finished_at, MatchRow.id, MatchRow.record).where(
        _finished_of(user_id), MatchRow.finished_at.is_not(None))
    if after is not None:
        query = query.where(or_(
            MatchRow.finished_at > after[0],
            and_(MatchRow.finished_at == after[0], MatchRow.id > after[1]),
        ))
    rows = await session.execute(
        query.order_by(MatchRow.finished_at, MatchRow.id).limit(limit))
    return [(finished_at, match_id, record) for finished_at, match_id, record in rows]
