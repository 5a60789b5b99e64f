"""The life cycle of a Georgian match as the platform names it: its status and how it ended.

Both are :class:`~enum.StrEnum`: each member *is* its string, so a member stored in a row's
``status`` or ``end_reason`` column, sent in a message or dumped as JSON is the same text as
before, and a plain string read back from the database compares equal to the member. Pure and
standard library only, so that storage, the services and the web tier can all name the same
values without importing one another.
"""

from __future__ import annotations

from enum import StrEnum


class MatchStatus(StrEnum):
    """Where a match is in its life: ``waiting`` for a second player, ``active`` (seated and
    dealt or being dealt), ``finished`` with a winner, or ``cancelled`` (the table called off
    before anyone joined, or the match aborted; then its ``end_reason`` is ``abort``)."""

    WAITING = "waiting"
    ACTIVE = "active"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        """Whether a match in this status is over: finished, or cancelled (called off while
        it waited, or aborted); nothing more happens to it."""
        return self in (MatchStatus.FINISHED, MatchStatus.CANCELLED)


#: A match still open: waiting for its second player or in play. (Tuples, not sets: a query's
#: ``IN`` list keeps one order, so its text and its cached statement do too.)
OPEN_STATUSES: tuple[MatchStatus, ...] = tuple(s for s in MatchStatus if not s.over)
#: A match that is over (for a status read as a plain string, from a row or a message).
CLOSED_STATUSES: tuple[MatchStatus, ...] = tuple(s for s in MatchStatus if s.over)


class EndReason(StrEnum):
    """How a match ended, as its row's ``end_reason`` says: on ``points``; a player resigned,
    abandoned it, made no first move in time (``timeout``) or ran out of time later
    (``time``); or it was called off after the deal (``abort``, status ``cancelled``)."""

    POINTS = "points"
    RESIGN = "resign"
    ABANDON = "abandon"
    TIMEOUT = "timeout"
    TIME = "time"
    ABORT = "abort"


#: The endings in which a player gave the match up (resigned or walked away), which the coin
#: and rating rules treat alike when they come early.
GIVEN_UP: tuple[EndReason, ...] = (EndReason.RESIGN, EndReason.ABANDON)


class ChallengeStatus(StrEnum):
    """Where a bot-API challenge is: ``pending`` an answer, ``accepted`` (its match made),
    ``declined`` by its target, ``cancelled`` by its challenger, ``failed`` (its match could not
    be made); ``expired`` is never stored: a pending challenge past its time is shown so."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"
