"""Ratings on the platform: which matches are rated, and the Glicko-2 update when one ends.

Policy (documented in docs/community.md):

* A match is rated only if it was created rated *and* both seats are registered players; bot
  and guest matches are always casual, whatever their flag says.
* Every rated match is one Glicko-2 rating period of one game for each player
  (:func:`kva.ratings.rate_match`), computed from both players' ratings before the match.
* Idleness widens the RD: before a player's match is rated, one game-less rating period
  (the paper's step 6) is applied for every full :data:`IDLE_PERIOD` since that player's
  previous rated match, so a player who comes back after months is provisional again.
* With one game per period, volatility keeps the RD from falling much below about 60 (see
  :func:`kva.ratings.rate_match`); that is the system's floor, and it keeps ratings moving.
* A rating is provisional while its RD is above 110 (:func:`kva.ratings.is_provisional`).

:func:`rate_finished_match` runs inside the transaction that finishes the match, so a match is
never finished without its rating change nor rated twice (``rating_history`` is unique per
player and match).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from kva.ratings import Rating, is_provisional, rate_match, update
from kva.service.messages import RatingChange as RatingChangeMessage
from kva.service.messages import RatingsMessage
from kva.status import EndReason, MatchStatus
from kva.storage import ratings_repo
from kva.storage.addresses import session_addresses
from kva.storage.community import RatingHistory
from kva.storage.lookups import match_row, user_row
from kva.storage.models import MatchRow, User, utcnow

log = logging.getLogger(__name__)
#: A rated match resigned after at most this many moves is logged as suspicious.
QUICK_RESIGN_MOVES = 6

#: One game-less rating period is applied per full period of idleness between rated matches.
IDLE_PERIOD = timedelta(days=30)
#: More idle periods than this change nothing any more (the RD is at its cap of 350 by then).
MAX_IDLE_PERIODS = 60


def is_registered(user: User | None) -> bool:
    """Whether ``user`` is a registered player (anyone who is not a guest)."""
    return user is not None and user.kind != "guest"


def rating_of(user: User) -> Rating:
    """The user's stored Glicko-2 state."""
    return Rating(user.rating, user.rating_deviation, user.rating_volatility)


def provisional(user: User) -> bool:
    """Whether the user's rating is still provisional (RD above 110)."""
    return is_provisional(rating_of(user))


def after_idleness(rating: Rating, last_rated: datetime | None, now: datetime) -> Rating:
    """``rating`` with one game-less period applied per full :data:`IDLE_PERIOD` since
    ``last_rated`` (nothing for a player who never played a rated match: RD is 350 already)."""
    if last_rated is None:
        return rating
    if last_rated.tzinfo is None:  # SQLite hands back naive UTC datetimes
        last_rated = last_rated.replace(tzinfo=now.tzinfo)
    periods = min(int((now - last_rated) / IDLE_PERIOD), MAX_IDLE_PERIODS)
    for _ in range(max(periods, 0)):
        rating = update(rating, [])
    return rating


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's rating through one rated match."""

    user_id: int
    before: Rating
    after: Rating

    @property
    def delta(self) -> float:
        return self.after.rating - self.before.rating


async def is_rated_pairing(session: AsyncSession, row: MatchRow) -> bool:
    """Whether ``row`` counts for ratings: created rated, and two registered players."""
    people = row.people()
    if not row.rated or people is None:
        return False
    users = [await user_row(session, uid) for uid in people]
    return all(is_registered(u) for u in users)


async def rate_finished_match(
    session: AsyncSession, match_id: str, now: datetime | None = None
) -> list[RatingChange]:
    """Update both players' ratings for the finished match ``match_id`` and log the change.

    Call it inside the transaction that finishes the match. Returns the two changes, or an
    empty list when the match is casual, not finished, or already rated (then nothing is
    written).
    """
    now = now or utcnow()
    row = await match_row(session, match_id)
    # The session's identity map holds the rows it loaded only weakly: kept alive for the rest
    # of this transaction, the row is the one coins.finish_match reads next (no second SELECT
    # of the whole row in the commit that finishes every match).
    session.info["kva.finished_match"] = row
    if (row is None or row.status != MatchStatus.FINISHED
            or not await is_rated_pairing(session, row)):
        return []
    ids = row.people()
    assert ids is not None  # a rated pairing: two people
    if await ratings_repo.is_rated(session, match_id):
        return []
    # Both rows locked in id order, so two matches of the same player finishing at once are
    # rated one after the other.
    locked = await ratings_repo.locked_users(session, ids)
    users = [locked[ids[0]], locked[ids[1]]]
    before = [after_idleness(rating_of(u), await ratings_repo.last_rated_at(session, u.id), now)
              for u in users]
    score0 = 0.5 if row.winner is None else (1.0 if row.winner == 0 else 0.0)
    after = rate_match(before[0], before[1], score0)
    changes = []
    for user, old, new in zip(users, before, after, strict=True):
        ratings_repo.add_change(session, user.id, match_id, before=(old.rating, old.rd),
                                after=(new.rating, new.rd, new.volatility), at=now)
        user.rating, user.rating_deviation, user.rating_volatility = (
            new.rating, new.rd, new.volatility)
        changes.append(RatingChange(user.id, old, new))
    await session.flush()
    await _log_suspicious(session, row, users, changes)
    return changes


def _moves(record: Any) -> int:
    hands = record.get("hands") if isinstance(record, dict) else None
    return sum(len(h.get("moves") or []) for h in hands or [] if isinstance(h, dict))


async def _log_suspicious(session: AsyncSession, row: MatchRow, users: list[User],
                          changes: list[RatingChange]) -> None:
    """Warn (for operators) about a rated match that may be one person's two accounts: their
    sessions share a client address, or it ended by resignation within a few moves."""
    addresses = await session_addresses(session, [u.id for u in users])
    shared = sorted(addresses[users[0].id] & addresses[users[1].id])
    moves = _moves(row.record)
    quick_resign = row.end_reason == EndReason.RESIGN and moves <= QUICK_RESIGN_MOVES
    if not shared and not quick_resign:
        return
    delta = ", ".join(f"{u.nickname} {c.before.rating:.0f}->{c.after.rating:.0f}"
                      for u, c in zip(users, changes, strict=True))
    log.warning(
        "suspicious rated match %s between %s (id %d) and %s (id %d): %s%s%s; ratings %s",
        row.id, users[0].nickname, users[0].id, users[1].nickname, users[1].id,
        f"sessions share address {', '.join(shared)}" if shared else "",
        "; " if shared and quick_resign else "",
        f"resigned after {moves} moves" if quick_resign else "", delta)


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One line of the rating table."""

    rank: int
    nickname: str
    rating: float
    rd: float
    provisional: bool
    games: int


async def leaderboard(
    session: AsyncSession, page: int = 1, per_page: int = 50
) -> tuple[list[LeaderboardEntry], int]:
    """Registered players with at least one rated match, best rating first (ties: fewer RD,
    then nickname), one page of them; and how many such players there are."""
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page start at 1")
    rows, total = await ratings_repo.leaderboard_page(session, page, per_page)
    start = (page - 1) * per_page
    entries = [
        LeaderboardEntry(start + i + 1, user.nickname, user.rating, user.rating_deviation,
                         provisional(user), games)
        for i, (user, games) in enumerate(rows)
    ]
    return entries, total


async def rating_history(session: AsyncSession, user_id: int) -> list[RatingHistory]:
    """The user's rating changes, oldest first."""
    return await ratings_repo.history_of(session, user_id)


def change_message(before: Rating, after: Rating) -> RatingChangeMessage:
    """One seat's entry of a ``ratings`` message: the rating before and after, the RD before,
    and whether that rating was provisional (why the change may be large)."""
    return {"before": round(before.rating), "after": round(after.rating),
            "rd": round(before.rd), "provisional": is_provisional(before)}


async def glicko2_ratings_message(session: AsyncSession, row: MatchRow) -> RatingsMessage | None:
    """``{"type": "ratings", "ratings": [change_message, ...by seat]}`` for the Glicko-2 rated
    match ``row`` once it has been rated (what a page reloaded after the end shows), else None
    (:func:`kva.service.finish.match_ratings_message` picks it by the match's game)."""
    seats = row.people()
    if seats is None:
        return None
    found = await ratings_repo.match_changes(session, row.id, seats)
    if len(found) != 2:
        return None
    return {"type": "ratings", "ratings": [
        change_message(Rating(found[uid].rating_before, found[uid].rd_before),
                       Rating(found[uid].rating_after, found[uid].rd_after))
        for uid in seats]}
