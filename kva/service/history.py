"""A player's finished matches: the history list, the win/loss/draw counts, and the export of
every record as one download.

The export is a single JSON array of records, ``georgian-domino/1`` or ``kozel/1`` (each
exactly what ``/m/{id}/record.json`` serves), oldest first, streamed in batches so a long
history never sits in memory whole.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games.standing import kozel_limit, kozel_place, seat_scores
from kva.status import MatchStatus
from kva.storage import history as history_store
from kva.storage import repo
from kva.storage.models import MatchRow, User

#: Matches per page of the history list.
PER_PAGE = 25
#: Records fetched per query while streaming an export.
EXPORT_BATCH = 50


@dataclass(frozen=True, slots=True)
class OtherSeat:
    """Another player of a match with more than one opponent (a Kozel table)."""

    nickname: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One finished (or aborted) match as its player sees it in the history.

    A Kozel match (``game == "kozel"``) also says the player's ``place`` (1 = best) and
    whether they were the козёл (``goat``), and names every other player in ``others``; its
    ``result`` is ``win`` for a player who is not a козёл and ``loss`` for one who is, and its
    ``score`` is (the player's, the limit's) penalty points.
    """

    id: str
    opponent: str | None
    opponent_bot: str | None
    opponent_is_guest: bool
    result: str  # "win", "loss", "draw" or "aborted" (no record, no rating)
    score: tuple[int, int]  # (mine, the opponent's)
    target: int
    bazaar: str
    finished_at: datetime | None
    rated: bool
    end_reason: str | None
    rating_delta: float | None
    #: The :mod:`kva.games` name of the match's game.
    game: str = "georgian"
    #: Kozel: the player's place and whether they are the козёл (None, False: Georgian, or
    #: aborted).
    place: int | None = None
    goat: bool = False
    #: Kozel: the other seats in seat order (empty for Georgian: its one opponent is above).
    others: tuple[OtherSeat, ...] = ()


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
    """Wins, losses and draws over every finished match of ``user_id``: a Kozel match is a
    win unless they were its козёл (then a loss), whatever their place."""
    wins, losses, draws = await history_store.finished_counts(session, user_id)
    for seat, standing in await history_store.kozel_standings(session, user_id):
        seats = sum(len(side) for side in standing["sides"] or [])
        if kozel_place(standing, seats, seat)[1]:
            losses += 1
        else:
            wins += 1
    return Counts(wins, losses, draws)


async def history(
    session: AsyncSession, user_id: int, page: int = 1, per_page: int = PER_PAGE
) -> tuple[list[HistoryLine], int]:
    """One page of ``user_id``'s finished and aborted matches, newest first, and how many
    there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    total = await history_store.finished_total(session, user_id)
    rows = await history_store.finished_page(session, user_id, (page - 1) * per_page, per_page)
    others = {u for r in rows for u in r.seat_users()} - {None, user_id}
    users = await repo.users_by_id(session, [o for o in others if o is not None])
    deltas = await history_store.rating_deltas(session, user_id, [r.id for r in rows]) \
        if rows else {}
    lines = []
    for r in rows:
        if r.game == history_store.KOZEL:
            lines.append(_kozel_line(r, user_id, users, deltas))
            continue
        seat = r.seat_of_player(user_id)
        other_id = r.user_at(1 - seat)
        other = users.get(other_id) if other_id is not None else None
        score = r.record.get("score") or [0, 0]
        result = ("aborted" if r.status == MatchStatus.CANCELLED else "draw" if r.winner is None
                  else "win" if r.winner == seat else "loss")
        lines.append(HistoryLine(
            id=r.id, opponent=other.nickname if other else None,
            opponent_bot=r.bot_at(1 - seat),
            opponent_is_guest=other is not None and other.kind == "guest",
            result=result, score=(int(score[seat]), int(score[1 - seat])), target=r.target,
            bazaar=r.bazaar, finished_at=r.finished_at, rated=r.id in deltas,
            end_reason=r.end_reason, rating_delta=deltas.get(r.id),
        ))
    return lines, total


def _kozel_line(row: MatchRow, user_id: int, users: Mapping[int, User],
                deltas: Mapping[str, float]) -> HistoryLine:
    """The history line of a Kozel match: its place and козёл from its record."""
    seat = row.seat_of_player(user_id)
    aborted = row.status == MatchStatus.CANCELLED
    place, goat = (None, False) if aborted else kozel_place(row.record, len(row.seats), seat)
    limit = kozel_limit(row.record)
    others = tuple(
        OtherSeat(_nickname(users, s.user_id), s.bot) for s in row.seats if s.seat != seat)
    return HistoryLine(
        id=row.id, opponent=None, opponent_bot=None, opponent_is_guest=False,
        result="aborted" if aborted else "loss" if goat else "win",
        score=(seat_scores(row.record, len(row.seats))[seat], limit), target=limit,
        bazaar=row.bazaar, finished_at=row.finished_at, rated=row.id in deltas,
        end_reason=row.end_reason, rating_delta=deltas.get(row.id),
        game=row.game, place=place, goat=goat, others=others,
    )


def _nickname(users: Mapping[int, User], user_id: int | None) -> str | None:
    """The nickname of a seat's user (None: a bot's seat, or a user gone)."""
    user = users.get(user_id) if user_id is not None else None
    return user.nickname if user is not None else None


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
