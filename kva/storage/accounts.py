"""The statements on ``users`` that accounts make: finding a player by nickname or nickname
key, a guest becoming a registered player, and a player's stored preferences.

How nicknames are compared (their keys) is :mod:`kva.service.accounts.registration`' business; only
the
keys come here. Every function leaves committing to the caller.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from kva.storage.models import User

#: ``users.kind`` of a registered player, and of a guest.
REGISTERED = "registered"
GUEST = "guest"


async def nickname_key_taken(session: AsyncSession, keys: Collection[str]) -> bool:
    """Whether any user's ``nickname_key`` is one of ``keys``."""
    return await session.scalar(
        select(User.id).where(User.nickname_key.in_(keys)).limit(1)) is not None


async def registered_with_keys(session: AsyncSession, keys: Collection[str]) -> list[User]:
    """The registered players whose ``nickname_key`` is one of ``keys``."""
    return list(await session.scalars(
        select(User).where(User.nickname_key.in_(keys), User.kind == REGISTERED)))


async def user_named(session: AsyncSession, nickname: str) -> User | None:
    """The user whose nickname is exactly ``nickname`` (guest or registered), or None."""
    return await session.scalar(select(User).where(User.nickname == nickname))


async def register_guest(session: AsyncSession, user_id: int, *, nickname: str,
                         nickname_key: str, password_hash: str) -> bool:
    """Turn the guest ``user_id`` into a registered player with these nickname, key and
    password hash, guarded: whether it was still a guest (then the row changed). A key that
    is taken raises the database's IntegrityError."""
    result = await session.execute(
        update(User)
        .where(User.id == user_id, User.kind == GUEST)
        .values(kind=REGISTERED, nickname=nickname, nickname_key=nickname_key,
                password_hash=password_hash)
    )
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


async def reloaded_user(session: AsyncSession, user_id: int) -> User | None:
    """The user ``user_id`` read again from the database (what the database session held of it is
    overwritten), or None."""
    return await session.get(User, user_id, populate_existing=True)


async def set_preferences(session: AsyncSession, user_id: int, stored: str) -> None:
    """Store ``stored`` (compact JSON) as the preferences of ``user_id``."""
    await session.execute(update(User).where(User.id == user_id).values(preferences=stored))


async def set_locale(session: AsyncSession, user_id: int, locale: str) -> None:
    """Store ``locale`` as the language of ``user_id``'s account."""
    await session.execute(update(User).where(User.id == user_id).values(locale=locale))
