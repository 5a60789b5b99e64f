"""The Kozel rating on the platform: rating a finished Kozel match, and reading the table.

Kozel has its own rating, apart from the Georgian game's Glicko-2 (:mod:`kva.service.ratings`):
a running total per player, starting at :data:`KOZEL_START`, moved after each rated match by
:func:`kva.kozel.rating_changes` (docs/kozel.md, Rating). Who is rated follows the Georgian
policy (docs/community.md): a match counts only if it was created rated *and* every seat is a
registered player; a bot or a guest at any seat leaves the whole match casual, so nobody's
rating can be farmed against a bot or a throwaway guest.

:func:`rate_kozel_match` runs inside the transaction that finishes the match, so a match is
never finished without its rating changes, nor rated twice (``kozel_rating_changes`` is
unique per match and player).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from kva.kozel import rating_changes
from kva.service.messages import KozelRatingChange as KozelRatingChangeMessage
from kva.service.messages import KozelRatingsMessage
from kva.service.ratings import is_registered
from kva.status import MatchStatus
from kva.storage import kozel_ratings_repo
from kva.storage.community import KOZEL_START, KozelRatingChange
from kva.storage.lookups import user_row
from kva.storage.models import MatchRow, utcnow

#: Kozel seats a match has: two to four players.
MIN_SEATS, MAX_SEATS = 2, 4


@dataclass(frozen=True, slots=True)
class KozelChange:
    """One seat's Kozel rating through one rated match."""

    seat: int
    user_id: int
    before: int
    change: int

    @property
    def after(self) -> int:
        return self.before + self.change


def _check_seats(seat_users: Sequence[int | None], scores: Sequence[int],
                 time_loser: int | None) -> None:
    """Refuse inputs that describe no Kozel match (a caller's bug, never a player's doing)."""
    if not MIN_SEATS <= len(seat_users) <= MAX_SEATS or len(scores) != len(seat_users):
        raise ValueError("a Kozel match has 2 to 4 seats, one score each")
    if time_loser is not None and not 0 <= time_loser < len(seat_users):
        raise ValueError(f"no seat {time_loser} lost on time")
    players = [uid for uid in seat_users if uid is not None]
    if len(set(players)) != len(players):
        raise ValueError("one player sits at two seats")


async def is_rated_seating(session: AsyncSession, seat_users: Sequence[int | None],
                           rated: bool) -> bool:
    """Whether a Kozel match counts for ratings: created ``rated``, and every seat a registered
    player (a ``None`` seat is a bot's)."""
    if not rated or any(uid is None for uid in seat_users):
        return False
    return all([is_registered(await user_row(session, uid)) for uid in seat_users])


async def rate_kozel_match(
    session: AsyncSession,
    match_id: str,
    seat_users: Sequence[int | None],
    scores: Sequence[int],
    time_loser: int | None,
    partners: Sequence[Sequence[int]] | None,
    rated: bool,
    now: datetime | None = None,
) -> list[KozelChange]:
    """Apply the rating changes of the finished Kozel match ``match_id`` and log them.

    ``seat_users`` is each seat's user id (None: a bot), ``scores`` each seat's final score
    (``match.seat_scores()``), ``time_loser`` the seat whose clock stopped the match (None:
    played out), ``partners`` the pairs of the pair game (``match.sides``; None otherwise) and
    ``rated`` the match's flag. Call it inside the transaction that finishes the match. Returns
    each seat's change in seat order, or an empty list when the match is casual or was rated
    already (then nothing is written).
    """
    _check_seats(seat_users, scores, time_loser)
    if not await is_rated_seating(session, seat_users, rated):
        return []
    now = now or utcnow()
    # Every seat is a player by now (a bot's seat left the match casual above).
    players = [uid for uid in seat_users if uid is not None]
    # Locked before asking whether the match was rated: a second call for the same match
    # waits for the first to commit, then sees its changes and writes nothing.
    ratings = await kozel_ratings_repo.locked_ratings(session, players)
    if await kozel_ratings_repo.is_rated(session, match_id):
        return []
    changes = rating_changes(scores, time_loser, partners)
    applied = []
    for seat, (user_id, change) in enumerate(zip(players, changes, strict=True)):
        row = ratings[user_id]
        applied.append(KozelChange(seat, user_id, row.rating, change))
        kozel_ratings_repo.add_change(session, match_id, user_id, before=row.rating,
                                      change=change, at=now)
        row.rating += change
        row.matches += 1
        row.last_change = change
        row.updated_at = now
    await session.flush()
    return applied


@dataclass(frozen=True, slots=True)
class KozelFinal:
    """What the rating of a finished Kozel match reads from its record."""

    #: Each seat's final score (partners share their pair's): ``match.seat_scores()``.
    scores: list[int]
    #: The seat whose forfeit stopped the match for all (its clock ran out, or it resigned
    #: or left); None when the match was played out to the limit.
    stopped_by: int | None
    #: The pairs of the pair game (the record's ``sides``); None when each plays alone.
    partners: list[list[int]] | None


def final_of_record(record: Mapping[str, Any]) -> KozelFinal:
    """The final scores, the seat that stopped the match and the pairs of the finished
    ``kozel/1`` record ``record`` (docs/kozel-record.md): the finishing transaction has the
    record just written, so the rating needs no replay of the match."""
    sides: list[list[int]] = record["sides"]
    side_score: list[int] = record["score"]
    side_of = {seat: index for index, side in enumerate(sides) for seat in side}
    scores = [side_score[side_of[seat]] for seat in range(len(side_of))]
    last = record["hands"][-1].get("result") if record["hands"] else None
    stopped_by = last["by"] if last is not None and last["end"] == "forfeit" else None
    partners = sides if any(len(side) > 1 for side in sides) else None
    return KozelFinal(scores, stopped_by, partners)


async def rate_finished_kozel_match(
    session: AsyncSession, row: MatchRow, now: datetime | None = None,
) -> list[KozelChange]:
    """Rate the Kozel match ``row`` as it finishes (:class:`kva.service.finish.RatingsHook`).

    A forfeit of any kind is rated as kozel.md's time loss: the forfeiting seat stopped the
    match for all, so it gets nothing and every other seat at least 1; a player about to be
    the козёл cannot escape the −1 more cheaply by resigning than by running out of time.
    Returns each seat's change, or an empty list (not finished, casual, or rated already)."""
    if row.status != MatchStatus.FINISHED:
        return []
    final = final_of_record(row.record)
    return await rate_kozel_match(session, row.id, row.seat_users(), final.scores,
                                  final.stopped_by, final.partners, row.rated, now)


def kozel_change_message(change: KozelChange) -> KozelRatingChangeMessage:
    """One seat's entry of a Kozel ``ratings`` message."""
    return {"seat": change.seat, "before": change.before, "after": change.after,
            "change": change.change}


async def kozel_ratings_message(session: AsyncSession, row: MatchRow) -> KozelRatingsMessage | None:
    """``{"type": "ratings", "ratings": [kozel_change_message, ...by seat]}`` for the Kozel
    match ``row`` once it is rated (what a page opened after its end shows), else None."""
    seats = row.people()
    if seats is None:
        return None
    found = {c.user_id: c for c in await kozel_ratings_repo.match_changes(session, row.id)}
    if set(found) != set(seats):
        return None
    return {"type": "ratings", "ratings": [
        kozel_change_message(KozelChange(seat, uid, found[uid].rating_before,
                                         found[uid].change))
        for seat, uid in enumerate(seats)]}


@dataclass(frozen=True, slots=True)
class KozelStanding:
    """A player's Kozel rating as the profile shows it."""

    rating: int
    matches: int
    last_change: int | None
    #: The latest rated matches' changes, newest first.
    recent: list[KozelRatingChange]


async def standing(session: AsyncSession, user_id: int, recent: int = 10) -> KozelStanding:
    """``user_id``'s Kozel rating, rated matches and latest ``recent`` changes (a player who
    never played a rated Kozel match: :data:`KOZEL_START`, no matches)."""
    row = await kozel_ratings_repo.rating_of(session, user_id)
    if row is None or row.matches == 0:
        return KozelStanding(KOZEL_START, 0, None, [])
    return KozelStanding(row.rating, row.matches, row.last_change,
                         await kozel_ratings_repo.changes_of(session, user_id, recent))


@dataclass(frozen=True, slots=True)
class KozelLeaderboardEntry:
    """One line of the Kozel rating table."""

    rank: int
    nickname: str
    rating: int
    matches: int


async def leaderboard(
    session: AsyncSession, page: int = 1, per_page: int = 50
) -> tuple[list[KozelLeaderboardEntry], int]:
    """Registered players with at least one rated Kozel match, best rating first (ties: more
    matches, then nickname), one page of them; and how many such players there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    rows, total = await kozel_ratings_repo.leaderboard_page(session, page, per_page)
    start = (page - 1) * per_page
    return [KozelLeaderboardEntry(start + i + 1, nickname, row.rating, row.matches)
            for i, (nickname, row) in enumerate(rows)], total
