"""SQL on the seats of matches (``match_seats``, one row per seat) that the repositories share:
which matches a player sits in, their seat there, and whether a match still has a free seat.
Code holding a loaded match reads its seats from :class:`~kva.storage.models.MatchRow`
instead.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, ScalarSelect, and_, exists, func, select

from kva.storage.models import MatchRow, MatchSeat


def seated(user_id: int) -> ColumnElement[bool]:
    """A match ``user_id`` sits in, in any seat (through ``ix_match_seats_user_id``)."""
    return MatchRow.id.in_(select(MatchSeat.match_id).where(MatchSeat.user_id == user_id))


def seat_of(user_id: int) -> ScalarSelect[int]:
    """The seat ``user_id`` sits in, in the match of the enclosing query."""
    return (select(func.min(MatchSeat.seat))
            .where(MatchSeat.match_id == MatchRow.id, MatchSeat.user_id == user_id)
            .scalar_subquery())


def has_free_seat() -> ColumnElement[bool]:
    """The match of the enclosing query has a seat nobody (no user, no bot) sits in yet."""
    return exists().where(and_(MatchSeat.match_id == MatchRow.id, MatchSeat.user_id.is_(None),
                               MatchSeat.bot.is_(None)))
