"""Tables of the bot API (migration ``0008_bot_api``): which accounts are bots,
their API tokens (only a SHA-256 of each is kept), and challenges between players; and the
statements the bot API (:mod:`kva.service.botapi`) makes on them and on the bots' matches.

They live beside :mod:`kva.storage.models` on the same declarative base, so one metadata
describes the whole schema. Every function leaves committing to the caller.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CursorResult,
    DateTime,
    ForeignKey,
    Integer,
    String,
    func,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from kva.status import OPEN_STATUSES, ChallengeStatus, MatchStatus
from kva.storage.models import Base, MatchRow, User, utcnow
from kva.storage.seats import seated


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
    status: Mapped[str] = mapped_column(String(16), nullable=False, default=ChallengeStatus.PENDING)
    match_id: Mapped[str | None] = mapped_column(String(24), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---------------------------------------------------------------------- bot accounts
async def bot_nicknames(session: AsyncSession) -> list[str]:
    """The nickname of every bot account."""
    return list(await session.scalars(
        select(User.nickname).join(BotAccount, BotAccount.user_id == User.id)))


async def bot_account(session: AsyncSession, user_id: int) -> BotAccount | None:
    """The bot row of ``user_id`` (None: a person)."""
    return await session.get(BotAccount, user_id)


async def bot_ids(session: AsyncSession, user_ids: Collection[int]) -> set[int]:
    """Which of ``user_ids`` (not empty) are bots."""
    return set(await session.scalars(select(BotAccount.user_id)
                                     .where(BotAccount.user_id.in_(user_ids))))


def add_bot_account(session: AsyncSession, user_id: int, max_matches: int) -> None:
    """Make ``user_id`` a bot that plays ``max_matches`` matches at once (written with the
    session's next flush)."""
    session.add(BotAccount(user_id=user_id, max_matches=max_matches))


async def bots_by_rating(session: AsyncSession, limit: int) -> list[tuple[User, BotAccount]]:
    """Up to ``limit`` bots with their users, the highest rated first."""
    rows = await session.execute(
        select(User, BotAccount).join(BotAccount, BotAccount.user_id == User.id)
        .order_by(User.rating.desc()).limit(limit))
    return [(user, bot) for user, bot in rows.all()]


# ---------------------------------------------------------------------- their matches
async def matches_played(session: AsyncSession, user_id: int) -> int:
    """Every match the user sits in (any status but a cancelled table)."""
    count = await session.scalar(
        select(func.count()).select_from(MatchRow)
        .where(seated(user_id), MatchRow.status != MatchStatus.CANCELLED))
    return int(count or 0)


async def active_matches(session: AsyncSession, user_id: int) -> int:
    """How many matches the user sits in that are not over (:data:`~kva.status.OPEN_STATUSES`)."""
    count = await session.scalar(
        select(func.count()).select_from(MatchRow)
        .where(seated(user_id), MatchRow.status.in_(OPEN_STATUSES)))
    return int(count or 0)


async def active_matches_of(session: AsyncSession, user_id: int) -> list[MatchRow]:
    """The matches the user sits in that are not over, the oldest first."""
    return list(await session.scalars(
        select(MatchRow).where(seated(user_id), MatchRow.status.in_(OPEN_STATUSES))
        .order_by(MatchRow.created_at)))


# ---------------------------------------------------------------------- tokens
async def live_token_count(session: AsyncSession, user_id: int) -> int:
    """How many unrevoked API tokens ``user_id`` has."""
    live = await session.scalar(
        select(func.count()).select_from(ApiToken)
        .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None)))
    return int(live or 0)


def add_token(session: AsyncSession, user_id: int, token_hash: str, prefix: str,
              label: str) -> None:
    """Store a new API token of ``user_id`` by its hash (written with the next flush)."""
    session.add(ApiToken(user_id=user_id, token_hash=token_hash, prefix=prefix, label=label))


async def tokens_of(session: AsyncSession, user_id: int) -> list[ApiToken]:
    """Every API token of ``user_id``: the live ones first, each group the newest first."""
    return list(await session.scalars(
        select(ApiToken).where(ApiToken.user_id == user_id)
        .order_by(ApiToken.revoked_at.is_not(None), ApiToken.id.desc())))


async def get_token(session: AsyncSession, token_id: int) -> ApiToken | None:
    """The API token row ``token_id``, or None."""
    return await session.get(ApiToken, token_id)


async def token_holder(
    session: AsyncSession, token_hash: str
) -> tuple[datetime | None, int, str, int | None] | None:
    """For the token with ``token_hash``, in one query: when it was revoked (None: live),
    its user's id and nickname, and its user's ``bot_accounts`` key (None: not a bot); None
    for an unknown token."""
    found = (await session.execute(
        select(ApiToken.revoked_at, User.id, User.nickname, BotAccount.user_id)
        .join(User, User.id == ApiToken.user_id)
        .outerjoin(BotAccount, BotAccount.user_id == ApiToken.user_id)
        .where(ApiToken.token_hash == token_hash))).first()
    if found is None:
        return None
    revoked_at, user_id, nickname, bot = found
    return revoked_at, user_id, nickname, bot


async def token_live(session: AsyncSession, token_hash: str) -> bool:
    """Whether the token with ``token_hash`` exists and is not revoked."""
    found = await session.scalar(select(ApiToken.id).where(
        ApiToken.token_hash == token_hash, ApiToken.revoked_at.is_(None)))
    return found is not None


# ---------------------------------------------------------------------- challenges
async def get_challenge(session: AsyncSession, challenge_id: str) -> Challenge | None:
    """The challenge ``challenge_id``, or None."""
    return await session.get(Challenge, challenge_id)


async def pending_from(session: AsyncSession, challenger_id: int) -> list[Challenge]:
    """The challenges ``challenger_id`` sent that are still ``pending`` (expired or not)."""
    return list(await session.scalars(
        select(Challenge).where(Challenge.challenger_id == challenger_id,
                                Challenge.status == ChallengeStatus.PENDING)))


async def pending_to(session: AsyncSession, target_id: int,
                     oldest_first: bool = False) -> list[Challenge]:
    """The challenges sent to ``target_id`` that are still ``pending`` (expired or not);
    with ``oldest_first``, in the order they were sent."""
    query = select(Challenge).where(Challenge.target_id == target_id,
                                    Challenge.status == ChallengeStatus.PENDING)
    if oldest_first:
        query = query.order_by(Challenge.created_at)
    return list(await session.scalars(query))


async def add_challenge(session: AsyncSession, challenge_id: str, challenger_id: int,
                        target_id: int, *, target: int, bazaar: str, rated: bool) -> Challenge:
    """Write a new ``pending`` challenge (flushed: it exists in the caller's transaction)."""
    row = Challenge(id=challenge_id, challenger_id=challenger_id, target_id=target_id,
                    target=target, bazaar=bazaar, rated=rated, status=ChallengeStatus.PENDING,
                    created_at=utcnow())
    session.add(row)
    await session.flush()
    return row


async def answer_pending(session: AsyncSession, challenge_id: str,
                         status: ChallengeStatus) -> bool:
    """Move the challenge from ``pending`` to ``status``, guarded: whether it was pending
    (two answers racing: one wins)."""
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        update(Challenge).where(Challenge.id == challenge_id,
                                Challenge.status == ChallengeStatus.PENDING)
        .values(status=status))
    return bool(result.rowcount)


async def set_challenge_failed(session: AsyncSession, challenge_id: str) -> None:
    """Mark the challenge ``failed`` (its match could not be created)."""
    await session.execute(update(Challenge).where(Challenge.id == challenge_id)
                          .values(status=ChallengeStatus.FAILED))


async def set_challenge_match(session: AsyncSession, challenge_id: str, match_id: str) -> None:
    """Record the match an accepted challenge started."""
    await session.execute(update(Challenge).where(Challenge.id == challenge_id)
                          .values(match_id=match_id))
