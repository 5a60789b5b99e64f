"""The schema: users (guests and, later, registered players), matches and closed tables.

Designed to carry the next features without a rewrite: ``users`` already has a kind, a unique
nickname and Glicko-2 columns; ``matches`` holds seats as user ids or bot names, a rated flag and
the whole ``georgian-domino/1`` record (in progress or finished) with an optimistic version.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (stored as such on every backend)."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base of every kva table."""


class User(Base):
    """A person: a guest (``kind='guest'``, nickname ``guest-4821``) or, later, a registered one."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    nickname: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False, default="guest")
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    #: The casefolded nickname of a registered player, unique (None for guests).
    nickname_key: Mapped[str | None] = mapped_column(String(40), unique=True, nullable=True)
    locale: Mapped[str | None] = mapped_column(String(8), nullable=True)
    rating: Mapped[float] = mapped_column(Float, nullable=False, default=1500.0)
    rating_deviation: Mapped[float] = mapped_column(Float, nullable=False, default=350.0)
    rating_volatility: Mapped[float] = mapped_column(Float, nullable=False, default=0.06)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: A registered player's table preferences, compact JSON (kva.service.preferences).
    preferences: Mapped[str | None] = mapped_column(String(255), nullable=True)


class MatchRow(Base):
    """One match. ``record`` is the full record (hidden information included, so never sent to a
    player while ``status`` is not ``finished``); ``version`` counts committed changes and is the
    optimistic-concurrency guard of every write."""

    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), nullable=False, index=True)
    target: Mapped[int] = mapped_column(Integer, nullable=False)
    bazaar: Mapped[str] = mapped_column(String(16), nullable=False)
    rated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    seat0_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id"), nullable=True, index=True
    )
    seat1_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id"), nullable=True, index=True
    )
    seat0_bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seat1_bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    record: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    end_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Only its players and visitors who gave its table's password may watch it (a password
    #: table, and the rematches that follow one): see :class:`WatchGrant`.
    private: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                          server_default=false())
    #: Domino Coin each player puts into the match (0: not a coin match; migration 0007,
    #: :mod:`kva.service.coins`).
    stake: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    #: The match's kva-fair/1 inputs (migration 0005). Only set on a new row, so that adding
    #: the row adds them in the same transaction; never loaded through here (``raise``).
    fair: Mapped[MatchFair | None] = relationship(lazy="raise", cascade="save-update")


class MatchFair(Base):
    """The kva-fair/1 inputs of a match (docs/fairness.md): the secret server seed, drawn when
    the match is created and never sent to anyone before the match is over (only the play
    service reads this table), and each seat's client seed with who chose it (``player``: the
    browser; ``server``: a bot's seat, or a seat whose browser sent none in time)."""

    __tablename__ = "match_fair"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    server_seed: Mapped[str] = mapped_column(String(64), nullable=False)
    client_seed0: Mapped[str | None] = mapped_column(String(32), nullable=True)
    client_seed1: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seed_by0: Mapped[str | None] = mapped_column(String(8), nullable=True)
    seed_by1: Mapped[str | None] = mapped_column(String(8), nullable=True)


class MatchAction(Base):
    """One committed change of a match in progress, appended (migration 0006): the journal
    that makes a commit cost the same at the first action and the last.

    ``seq`` is the match's version after the change; the primary key (``match_id``, ``seq``)
    is the optimistic-concurrency guard (a writer whose copy is stale inserts a ``seq`` that
    exists, and is refused), so no read precedes a write. ``change`` is compact JSON
    (:mod:`kva.storage.journal`): the move, and when it ended a hand the hand's result and
    score, and when a new hand was dealt its opener and deal. ``matches.record`` is the
    checkpoint at ``matches.version``; the record now is the checkpoint with the later rows
    applied. The whole record is written to ``matches.record`` when the match ends.
    """

    __tablename__ = "match_actions"
    __table_args__ = (PrimaryKeyConstraint("match_id", "seq", name="pk_match_actions"),)

    match_id: Mapped[str] = mapped_column(String(24), ForeignKey("matches.id"))
    seq: Mapped[int] = mapped_column(Integer)
    change: Mapped[str] = mapped_column(Text, nullable=False)


class WatchGrant(Base):
    """A visitor who may watch a private match: they gave its table's password (or watched the
    match it is a rematch of). Stored, so every process honours it."""

    __tablename__ = "watch_grants"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableRow(Base):
    """A table waiting for its second player: ``kind`` ``closed`` (a friend's, by the
    unguessable token of its link, with an optional password hash) or ``open`` (listed in the
    lobby)."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), unique=True, nullable=False)
    token: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    password_hash: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    kind: Mapped[str] = mapped_column(String(16), nullable=False, default="closed",
                                      server_default="closed", index=True)


class SessionRow(Base):
    """A login (guests have one too): the SHA-256 of the cookie's token, never the token itself;
    valid until ``revoked_at`` is set (see :mod:`kva.service.sessions`)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The client address the session was opened from (migration 0004), for operators.
    address: Mapped[str | None] = mapped_column(String(45), nullable=True)
