"""Tables of learning (migration ``0009_learn``): a registered player's lesson
progress, and the stored post-game analyses of finished matches.

They live beside :mod:`kva.storage.models` on the same declarative base.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from kva.storage.models import Base, utcnow


class LearnProgress(Base):
    """The lesson steps a registered player has done (guests keep theirs in the browser)."""

    __tablename__ = "learn_progress"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    #: The slugs of the steps done, comma-separated.
    done: Mapped[str] = mapped_column(String(400), nullable=False, default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MatchAnalysis(Base):
    """The analysis of a finished match (JSON), computed once and served from here after."""

    __tablename__ = "match_analyses"

    match_id: Mapped[str] = mapped_column(String(24), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    body: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
