"""The schema: users (guests and, later, registered players), matches and closed tables.

Designed to carry the next features without a rewrite: ``users`` already has a kind, a unique
nickname and Glicko-2 columns; ``matches`` holds a rated flag and the whole
``georgian-domino/1`` record (in progress or finished) with an optimistic version, and its seats
are rows of ``match_seats`` (a user id or a bot name each), so a game may have 2 to 4 of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
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
    #: A registered player's table preferences, compact JSON (kva.service.accounts.preferences).
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
    #: :mod:`kva.service.coins.wallets`).
    stake: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    #: The game the match is played in, by its :mod:`kva.games` name (migration 0016).
    game: Mapped[str] = mapped_column(String(16), nullable=False, default="georgian",
                                      server_default="georgian")
    #: The match's kva-fair/1 inputs (migration 0005). Only set on a new row, so that adding
    #: the row adds them in the same transaction; never loaded through here (``raise``).
    fair: Mapped[MatchFair | None] = relationship(lazy="raise", cascade="save-update")
    #: Its seats in turn order, one row each, the empty seat of a waiting table included.
    #: Loaded with the match (``selectin``: one more SELECT for a whole list of matches, never
    #: one per match, and never a lazy load, which an async session cannot do).
    seats: Mapped[list[MatchSeat]] = relationship(
        lazy="selectin", order_by="MatchSeat.seat", cascade="all, delete-orphan")

    def user_at(self, seat: int) -> int | None:
        """The user sitting in ``seat`` (None: a bot, or nobody yet)."""
        return self.seats[seat].user_id

    def bot_at(self, seat: int) -> str | None:
        """The level of the bot sitting in ``seat`` (None: a person, or nobody yet)."""
        return self.seats[seat].bot

    def seat_users(self) -> list[int | None]:
        """The user of each seat, in seat order (None where a bot sits or nobody does)."""
        return [s.user_id for s in self.seats]

    def seated_users(self) -> list[int]:
        """The users who sit in the match, in seat order (bots and empty seats left out)."""
        return [s.user_id for s in self.seats if s.user_id is not None]

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat of ``user_id`` (None: they do not sit in this match)."""
        if user_id is None:
            return None
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    def seat_of_player(self, user_id: int) -> int:
        """The seat of ``user_id``, read as one of their matches (ValueError if they do not
        sit in it)."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise ValueError(f"user {user_id} does not sit in match {self.id}")
        return seat

    def people(self) -> list[int] | None:
        """The user of each seat when every seat holds a person (what ratings and coin
        stakes need); None when a bot sits in one, or one is still empty."""
        return people_of((s.user_id, s.bot) for s in self.seats)


def people_of(seats: Iterable[tuple[int | None, str | None]]) -> list[int] | None:
    """The user of each seat (user id, bot level) when every seat holds a person; None when
    a bot sits in one, or one is still empty."""
    people = []
    for user_id, bot in seats:
        if user_id is None or bot is not None:
            return None
        people.append(user_id)
    return people


class MatchSeat(Base):
    """One seat of a match (migration 0014), numbered in turn order from 0: the user who sits
    in it, or the level of the bot that does, or neither (the free seat of a table waiting
    for a player), and the seat's kva-fair/1 client seed once it is in. Every seat of a match
    has its row from the match's creation on; a player joining a table fills the free one."""

    __tablename__ = "match_seats"
    __table_args__ = (
        PrimaryKeyConstraint("match_id", "seat", name="pk_match_seats"),
        # A user's matches (history, profiles, "my live matches", the lobby's count): the
        # match ids come from the index alone.
        Index("ix_match_seats_user_id", "user_id", "match_id"),
    )

    match_id: Mapped[str] = mapped_column(String(24), ForeignKey("matches.id"))
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The seat's kva-fair/1 client seed (docs/fairness.md; None until it is in; public, unlike
    #: the server seed) and who chose it (``player``: the browser; ``server``: a bot's seat,
    #: or a seat whose browser sent none in time).
    client_seed: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seed_by: Mapped[str | None] = mapped_column(String(8), nullable=True)


class MatchFair(Base):
    """The secret kva-fair/1 input of a match (docs/fairness.md): the server seed, drawn when
    the match is created and never sent to anyone before the match is over (only the play
    service reads this table). Each seat's client seed is on its :class:`MatchSeat`."""

    __tablename__ = "match_fair"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    server_seed: Mapped[str] = mapped_column(String(64), nullable=False)


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


class ProcessAlive(Base):
    """When each server process was last known alive (migration 0011): it writes its row
    every liveness interval, and once more, ``stopped``, when it stops. The time a match's
    clock was left with no process serving it is read from here and given back
    (:mod:`kva.service.play.liveness`)."""

    __tablename__ = "process_alive"

    process_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    #: Epoch milliseconds, the clocks' own time.
    alive_at: Mapped[int] = mapped_column(BigInteger, nullable=False)
    stopped: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                          server_default=false())


class MatchTakeover(Base):
    """The last time a process took up a match whose clock was running (migration 0011):
    the process, the match's version then, and the deadline it moved forward by the time no
    process served the match. It stands for the deadline of the journal while the match is
    still at that version."""

    __tablename__ = "match_takeovers"

    match_id: Mapped[str] = mapped_column(String(24), ForeignKey("matches.id"),
                                          primary_key=True)
    process_id: Mapped[str] = mapped_column(String(32), nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    deadline: Mapped[int] = mapped_column(BigInteger, nullable=False)


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
    valid until ``revoked_at`` is set (see :mod:`kva.service.accounts.sessions`)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), nullable=False, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The client address the session was opened from (migration 0004), for operators.
    address: Mapped[str | None] = mapped_column(String(45), nullable=True)
