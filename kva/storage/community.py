"""Tables of the community features: the rating history of every rated match and the rematch
conversation at the end of a match (migration ``0003_ratings_history``), and the Kozel rating
table with its history (migration ``0015_kozel_ratings``).

They live beside :mod:`kva.storage.models` on the same declarative base, so one metadata
describes the whole schema.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from kva.storage.models import Base, utcnow


class RatingHistory(Base):
    """One player's rating change through one rated match (before and after, Glicko scale)."""

    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("user_id", "match_id",
                                       name="uq_rating_history_user_match"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), nullable=False)
    rating_before: Mapped[float] = mapped_column(Float, nullable=False)
    rd_before: Mapped[float] = mapped_column(Float, nullable=False)
    rating_after: Mapped[float] = mapped_column(Float, nullable=False)
    rd_after: Mapped[float] = mapped_column(Float, nullable=False)
    volatility_after: Mapped[float] = mapped_column(Float, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Rematch(Base):
    """The rematch conversation of a finished match.

    ``state`` is ``offered`` (by seat ``offered_by``), ``declined``, ``withdrawn`` or
    ``accepted`` (then ``new_match_id`` is the new match). No row: nobody offered yet.
    At a table of more than two seats ``offered_by`` is the bitmask of the seats that agreed
    (seat ``s`` is bit ``1 << s``), since the rematch waits for every person there.
    """

    __tablename__ = "rematches"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), nullable=False)
    offered_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


#: The Kozel rating of a player who has not played a rated Kozel match: the rule
#: (docs/kozel.md, Rating) makes the rating a running total of per-match changes, so it starts
#: at nothing.
KOZEL_START = 0


class KozelRating(Base):
    """A player's Kozel rating: a running total of :func:`kva.kozel.rating_changes`, apart from
    the Georgian game's Glicko-2 on ``users``. A row exists once the player's first rated Kozel
    match is rated; until then the rating is :data:`KOZEL_START` and no match is counted."""

    __tablename__ = "kozel_ratings"
    __table_args__ = (Index("ix_kozel_ratings_rating", "rating"),)

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    rating: Mapped[int] = mapped_column(Integer, nullable=False, default=KOZEL_START)
    #: Rated Kozel matches the player has played.
    matches: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    #: The change of the latest rated match.
    last_change: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class KozelRatingChange(Base):
    """One player's Kozel rating through one rated match: before, the change, after. Unique
    per (match, player), so a match is never rated twice."""

    __tablename__ = "kozel_rating_changes"
    __table_args__ = (
        UniqueConstraint("match_id", "user_id", name="uq_kozel_rating_changes_match_user"),
        Index("ix_kozel_rating_changes_user_created", "user_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), nullable=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False)
    rating_before: Mapped[int] = mapped_column(Integer, nullable=False)
    change: Mapped[int] = mapped_column(Integer, nullable=False)
    rating_after: Mapped[int] = mapped_column(Integer, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
