"""Tables of the bot API (migration ``0008_bot_api``): which accounts are bots,
their API tokens (only a SHA-256 of each is kept), and challenges between players.

They live beside :mod:`kva.storage.models` on the same declarative base, so one metadata
describes the whole schema.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from kva.storage.models import Base, utcnow


class BotAccount(Base):
    """A registered account turned into a bot: it plays through the API only."""

    __tablename__ = "bot_accounts"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    #: How many matches the bot may play at once (its owner's setting).
    max_matches: Mapped[int] = mapped_column(Integer, nullable=False, default=3)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiToken(Base):
    """A bot API token: ``token_hash`` is the SHA-256 of the token (shown once, never
    stored); valid while ``revoked_at`` is null."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    #: The first characters of the token, to tell tokens apart on the settings page.
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    label: Mapped[str] = mapped_column(String(40), nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Challenge(Base):
    """A challenge from one player to another: ``pending`` until the target accepts (then
    ``match_id`` is the match), declines, or the challenger cancels it."""

    __tablename__ = "challenges"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False,
                                               index=True)
    target_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    target: Mapped[int] = mapped_column(Integer, nullable=False)
    bazaar: Mapped[str] = mapped_column(String(16), nullable=False)
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="pending")
    match_id: Mapped[str | None] = mapped_column(String(24), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
