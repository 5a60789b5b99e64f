"""The statements of the ``sessions`` table (logins, guests' included): writing one, reading
a live one with its user, and revoking. The rules around them (tokens, cookies, when to touch,
who is told of a revocation) are :mod:`kva.service.accounts.sessions`'; only token hashes come here.

The two reads every request or socket frame makes (:func:`live_session_user`,
:func:`session_live`) are Core statements built once, not ORM queries: they run so often that
the ORM's per-statement work showed up in the CPU profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import Final, cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite.aiosqlite import SQLiteDialect_aiosqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from kva.storage import repo
from kva.storage.botapi import BotAccount
from kva.storage.models import SessionRow, User, utcnow

_SESSIONS = cast(Table, SessionRow.__table__)
_USERS = cast(Table, User.__table__)
_BOTS = cast(Table, BotAccount.__table__)
#: :func:`insert_session`'s INSERT, built once.
_NEW_SESSION = insert(_SESSIONS)
_USER_KEYS = tuple(column.key for column in _USERS.columns)
#: :func:`live_session_user`'s statement, built once: the session's id and last sighting (not
#: the whole row), the user's ``bot_accounts`` key (null: a person), and every column of the
#: user.
_LIVE_SESSION = (
    select(_SESSIONS.c.id, _SESSIONS.c.last_seen_at, _BOTS.c.user_id, *_USERS.columns)
    .join(_USERS, _USERS.c.id == _SESSIONS.c.user_id)
    .outerjoin(_BOTS, _BOTS.c.user_id == _SESSIONS.c.user_id)
    .where(_SESSIONS.c.token_hash == bindparam("digest"), _SESSIONS.c.revoked_at.is_(None))
)
#: :func:`session_live`'s statement, built once (Core: the table, not the ORM class), and its
#: SQL as each driver it is sent to directly takes it (one parameter: the digest), compiled
#: once here: a constant of the module, not a cache filled per engine.
_IS_LIVE = select(_SESSIONS.c.id).where(_SESSIONS.c.token_hash == bindparam("digest"),
                                        _SESSIONS.c.revoked_at.is_(None))
_IS_LIVE_SQL: Final[Mapping[str, str]] = MappingProxyType({
    "sqlite": str(_IS_LIVE.compile(dialect=SQLiteDialect_aiosqlite())),
    # SQLAlchemy leaves this dialect's __init__ unannotated; it takes no arguments here.
    "postgresql": str(_IS_LIVE.compile(dialect=PGDialect_asyncpg())),  # type: ignore[no-untyped-call]
})


async def insert_session(session: AsyncSession | AsyncConnection, digest: str, user_id: int,
                         address: str | None) -> None:
    """Write a live session whose token hashes to ``digest``, in the caller's transaction (the
    caller commits; a Core INSERT, not an object for the unit of work)."""
    now = utcnow()
    await session.execute(_NEW_SESSION, {
        "token_hash": digest, "user_id": user_id, "created_at": now, "last_seen_at": now,
        "revoked_at": None, "address": address})


async def live_session_user(sessions: async_sessionmaker[AsyncSession], digest: str,
                            touch_after: timedelta) -> tuple[User, bool] | None:
    """The user of the live session whose token hashes to ``digest`` and whether that user is
    a bot account; None for an unknown or revoked one. One statement on a connection reads
    all three; the user comes back as the detached object an ORM read would have given
    (:func:`kva.storage.repo.detached`).

    Touches (and commits) ``last_seen_at`` when it is older than ``touch_after``.
    """
    async with repo.core_connection(sessions) as conn:
        found = (await conn.execute(_LIVE_SESSION, {"digest": digest})).first()
        if found is None:
            return None
        session_id, last, bot, *user = found
        now = utcnow()
        if last.tzinfo is None:  # SQLite hands back naive datetimes
            last = last.replace(tzinfo=now.tzinfo)
        if now - last > touch_after:
            await conn.execute(
                update(_SESSIONS).where(_SESSIONS.c.id == session_id).values(last_seen_at=now)
            )
            await conn.commit()
    return repo.detached(User, dict(zip(_USER_KEYS, user, strict=True))), bot is not None


async def has_session(session: AsyncSession, user_id: int) -> bool:
    """Whether ``user_id`` has any session row at all (live or revoked)."""
    return await session.scalar(
        select(SessionRow.id).where(SessionRow.user_id == user_id).limit(1)) is not None


async def revoke_token_hash(session: AsyncSession, digest: str) -> int:
    """Mark the live session whose token hashes to ``digest`` revoked (the caller commits);
    how many were (0 or 1)."""
    result = await session.execute(
        update(SessionRow)
        .where(SessionRow.token_hash == digest, SessionRow.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def revoke_user_sessions(session: AsyncSession, user_id: int) -> int:
    """Mark every live session of ``user_id`` revoked (the caller commits); how many were."""
    result = await session.execute(
        update(SessionRow)
        .where(SessionRow.user_id == user_id, SessionRow.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def session_live(sessions: async_sessionmaker[AsyncSession], digest: str) -> bool:
    """Whether the session whose token hashes to ``digest`` exists and is not revoked."""
    bind = sessions.kw.get("bind")
    if not isinstance(bind, AsyncEngine):
        async with sessions() as session:
            return await session.scalar(_IS_LIVE, {"digest": digest}) is not None
    dialect = bind.dialect
    if not repo.sent_direct(dialect):
        async with bind.connect() as conn:
            return await conn.scalar(_IS_LIVE, {"digest": digest}) is not None
    # A socket makes this check for every frame that is not an action: one SELECT sent to the
    # driver as its own SQL, as kva.storage.journal_writer sends a move, not through an
    # ORM session nor SQLAlchemy's cursor (CPU per check, microbenchmark: SQLite 0.80 (ORM
    # session) -> 0.39 (Core) -> 0.14 ms; PostgreSQL 0.9 (Core) -> 0.37 ms). A SELECT opens
    # no transaction in either driver (sqlite3 opens one before DML only), so none is left.
    sql = _IS_LIVE_SQL[dialect.name]  # one of repo.sent_direct's drivers
    async with bind.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        if dialect.driver == "asyncpg":
            return await driver.fetchval(sql, digest) is not None
        return bool(await driver.execute_fetchall(sql, (digest,)))
