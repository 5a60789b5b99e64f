"""Tables of the community features (migration ``0003_ratings_history``): the rating history of
every rated match, and the rematch conversation at the end of a match.

They live beside :mod:`kva.storage.models` on the same declarative base, so one metadata
describes the whole schema.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, UniqueConstraint
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
    """

    __tablename__ = "rematches"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), nullable=False)
    offered_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    new_match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id"), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
