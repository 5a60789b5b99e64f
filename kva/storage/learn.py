"""Tables of learning (migration ``0009_learn``): a registered player's lesson
progress, and the stored post-game analyses of finished matches; and the statements on them.

They live beside :mod:`kva.storage.models` on the same declarative base.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from kva.storage.models import Base, MatchRow, utcnow


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


async def progress(session: AsyncSession, user_id: int) -> LearnProgress | None:
    """The stored lesson progress of ``user_id`` (None: no step done yet)."""
    return await session.get(LearnProgress, user_id)


def put_progress(session: AsyncSession, row: LearnProgress | None, user_id: int,
                 done: str) -> None:
    """Set the progress of ``user_id`` to ``done`` (slugs, comma-separated): its ``row`` as
    read by :func:`progress` in the same database session, changed, or a new one when it had
    none. The caller commits."""
    if row is None:
        session.add(LearnProgress(user_id=user_id, done=done, updated_at=utcnow()))
    else:
        row.done = done
        row.updated_at = utcnow()


async def match_rated(session: AsyncSession, match_id: str) -> bool | None:
    """Whether the match ``match_id`` is rated (None: no such match)."""
    rated = await session.scalar(select(MatchRow.rated).where(MatchRow.id == match_id))
    return None if rated is None else bool(rated)


async def stored_analysis(session: AsyncSession, match_id: str) -> MatchAnalysis | None:
    """The stored analysis of ``match_id`` (of any version), or None."""
    return await session.get(MatchAnalysis, match_id)


def add_analysis(session: AsyncSession, match_id: str, version: int, body: str) -> None:
    """Store the analysis ``body`` (JSON) of ``match_id`` made by analysis ``version`` (the
    caller commits)."""
    session.add(MatchAnalysis(match_id=match_id, version=version, body=body))
