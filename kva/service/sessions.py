"""Server-side sessions: who a ``kva_session`` cookie belongs to, and revoking it.

The cookie carries a random token (256 bits); the ``sessions`` table keeps only its SHA-256,
the user id, when it was created and last seen, and when it was revoked. A session is valid
while its row exists and is not revoked, so logging out (or an operator revoking every session
of a user) takes effect at once, on every process, for pages and WebSockets alike. Guests get a
session too, but only when they first need an identity (opening or joining a table, a quick
game, registering): a page that merely renders creates no row. Each session keeps the client
address it was opened from (``sessions.address``), which the ratings log uses to point out
rated matches between two accounts of one person.

Cookies of the previous scheme (the user id signed with the secret key) are still honoured
once, while their user has no session yet and is younger than a cookie lives: the visitor
keeps their user and gets a real session in exchange.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from kva.service.broker import Broker
from kva.service.messages import RevokedNote
from kva.storage import repo
from kva.storage.botapi import BotAccount
from kva.storage.models import SessionRow, User, utcnow

log = logging.getLogger(__name__)

#: The cookie's name (unchanged from the signed-cookie scheme, see docs/web-contract.md).
COOKIE = "kva_session"
#: How long the browser keeps the cookie (a year; revocation ends it sooner).
MAX_AGE = 60 * 60 * 24 * 365
#: ``last_seen_at`` is written at most this often per session (not on every request).
TOUCH_EVERY = timedelta(minutes=5)
#: The longest cookie value looked at (tokens are 43 characters; old signed cookies ~40).
MAX_COOKIE = 512
#: The broker topic of revocations. Every process subscribes to it once (kva.web.sockets) and
#: closes the WebSockets of a revoked session (close code 4401) the moment it hears of one.
REVOKED_TOPIC = "sessions:revoked"
_SESSIONS = cast(Table, SessionRow.__table__)
#: :func:`open_session`'s INSERT, built once.
_NEW_SESSION = insert(_SESSIONS)


def new_token() -> str:
    """A fresh, unguessable session token."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database keeps of a token: a leaked table does not log anyone in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Identity:
    """The user of a request, the token of their session, and a token to set if it changed."""

    user: User
    token: str
    new_token: str | None = None


#: The longest client address kept (an IPv6 address has at most 45 characters).
MAX_ADDRESS = 45


async def open_session(session: AsyncSession | AsyncConnection, user_id: int,
                       address: str | None = None) -> str:
    """Write a session for ``user_id`` opened from ``address`` in the caller's transaction
    (the caller commits; a Core INSERT, not an object for the unit of work); its token."""
    token = new_token()
    now = utcnow()
    await session.execute(_NEW_SESSION, {
        "token_hash": token_hash(token), "user_id": user_id, "created_at": now,
        "last_seen_at": now, "revoked_at": None,
        "address": address[:MAX_ADDRESS] if address else None})
    return token


@dataclass(frozen=True, slots=True)
class LiveSession:
    """A live session's user, and whether that user is a bot account (which plays through
    the bot API only: :class:`kva.web.botapi.BotWebGuard` keeps its browser sessions off the
    pages and sockets people play with)."""

    user: User
    bot: bool


async def live_session(sessions: async_sessionmaker[AsyncSession],
                       token: str | None) -> LiveSession | None:
    """The live session with ``token``; None for a missing, unknown or revoked one. One
    statement reads the session, its user and whether the user is a bot account, so a
    request or a socket's handshake that needs all three reads the session once. A Core
    statement on a connection, not an ORM query in a session: every request with a cookie
    and every socket's handshake makes it; the user comes back as the detached object an ORM
    read would have given (:func:`kva.storage.repo.detached`).

    Touches ``last_seen_at`` when it is older than :data:`TOUCH_EVERY`.
    """
    if not token or len(token) > MAX_COOKIE:
        return None
    async with repo.core_connection(sessions) as conn:
        found = (await conn.execute(_LIVE_SESSION, {"digest": token_hash(token)})).first()
        if found is None:
            return None
        session_id, last, bot, *user = found
        now = utcnow()
        if last.tzinfo is None:  # SQLite hands back naive datetimes
            last = last.replace(tzinfo=now.tzinfo)
        if now - last > TOUCH_EVERY:
            await conn.execute(
                update(_SESSIONS).where(_SESSIONS.c.id == session_id).values(last_seen_at=now)
            )
            await conn.commit()
    return LiveSession(repo.detached(User, dict(zip(_USER_KEYS, user, strict=True))),
                       bot is not None)


#: :func:`live_session`'s statement, built once: the session's id and last sighting (not the
#: whole row), the user's ``bot_accounts`` key (null: a person), and every column of the user.
_USERS = cast(Table, User.__table__)
_USER_KEYS = tuple(column.key for column in _USERS.columns)
_BOTS = cast(Table, BotAccount.__table__)
_LIVE_SESSION = (
    select(_SESSIONS.c.id, _SESSIONS.c.last_seen_at, _BOTS.c.user_id, *_USERS.columns)
    .join(_USERS, _USERS.c.id == _SESSIONS.c.user_id)
    .outerjoin(_BOTS, _BOTS.c.user_id == _SESSIONS.c.user_id)
    .where(_SESSIONS.c.token_hash == bindparam("digest"), _SESSIONS.c.revoked_at.is_(None))
)


async def identify_legacy(sessions: async_sessionmaker[AsyncSession],
                          legacy_user_id: int | None,
                          address: str | None = None) -> Identity | None:
    """The user of an old signed cookie (whose user id is ``legacy_user_id``) with a new
    session, or None: what a cookie that is no live session's token (:func:`live_session`)
    may still say. No row is created for nobody (see :func:`guest_with_session`).

    The old cookie carries no time and cannot be revoked, so it is honoured only while its
    user has no session at all: the first exchange (or any login, then logout) ends it, and a
    copy cannot be replayed. Such a cookie was set when its user was created and lived
    :data:`MAX_AGE` in the browser, so one whose user is older than that opens nothing either.
    """
    if legacy_user_id is not None:
        async with sessions() as session:
            legacy = await repo.get_user(session, legacy_user_id)
            if legacy is not None and _legacy_young(legacy) and await session.scalar(
                    select(SessionRow.id).where(SessionRow.user_id == legacy.id).limit(1)
            ) is None:
                token = await open_session(session, legacy.id, address)
                await session.commit()
                return Identity(legacy, token, token)
    return None


def _legacy_young(user: User) -> bool:
    """Whether an old signed cookie of ``user`` can still be within its browser lifetime."""
    created = user.created_at
    if created.tzinfo is None:  # SQLite hands back naive datetimes
        created = created.replace(tzinfo=UTC)
    return utcnow() - created <= timedelta(seconds=MAX_AGE)


async def guest_with_session(sessions: async_sessionmaker[AsyncSession],
                             address: str | None = None) -> tuple[User, str]:
    """A new guest and the token of its first login session (both committed, in one
    transaction)."""
    async def session_of(conn: AsyncSession | AsyncConnection, user: User) -> str:
        return await open_session(conn, user.id, address)

    return await repo.create_guest_with(sessions, session_of)


async def rotate(session: AsyncSession, old_token: str | None, user_id: int,
                 address: str | None = None) -> str:
    """Revoke ``old_token`` (if any) and open a new session for ``user_id``; the caller commits.

    Logging in and registering always rotate, so a token planted before (session fixation) is
    worthless after."""
    if old_token:
        await session.execute(
            update(SessionRow)
            .where(SessionRow.token_hash == token_hash(old_token),
                   SessionRow.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
    return await open_session(session, user_id, address)


async def publish_revoked(broker: Broker | None, tokens: tuple[str | None, ...] = (),
                          user_id: int | None = None) -> None:
    """Tell every process that the sessions of ``tokens`` (or every session of ``user_id``)
    are revoked, so their open WebSockets close now. Call it after the revocation is
    committed. Only token hashes travel; a failure to publish is logged, not raised (sockets
    still re-check the session before every action)."""
    hashes = [token_hash(t) for t in tokens if t and len(t) <= MAX_COOKIE]
    if broker is None or (not hashes and user_id is None):
        return
    note: RevokedNote = {"token_hashes": hashes, "user_id": user_id}
    try:
        await broker.publish(REVOKED_TOPIC, dict(note))
    except Exception:
        log.exception("publishing a session revocation failed")


async def session_is_live(sessions: async_sessionmaker[AsyncSession],
                          token: str | None) -> bool:
    """Whether ``token`` is a live (existing, unrevoked) session: the cheap check a WebSocket
    makes before each action."""
    if not token or len(token) > MAX_COOKIE:
        return False
    digest = token_hash(token)
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
    sql = _IS_LIVE_SQL.get(dialect.name)
    if sql is None:
        sql = _IS_LIVE_SQL[dialect.name] = str(_IS_LIVE.compile(dialect=dialect))
    async with bind.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        if dialect.driver == "asyncpg":
            return await driver.fetchval(sql, digest) is not None
        return bool(await driver.execute_fetchall(sql, (digest,)))


#: :func:`session_is_live`'s statement, built once (Core: the table, not the ORM class), and
#: its SQL per dialect (one parameter: the digest).
_IS_LIVE = select(_SESSIONS.c.id).where(_SESSIONS.c.token_hash == bindparam("digest"),
                                        _SESSIONS.c.revoked_at.is_(None))
_IS_LIVE_SQL: dict[str, str] = {}


async def revoke(sessions: async_sessionmaker[AsyncSession], token: str | None,
                 broker: Broker | None = None) -> bool:
    """Revoke the session of ``token``; whether a live one was revoked. With ``broker``, its
    open sockets on every process are closed too."""
    if not token or len(token) > MAX_COOKIE:
        return False
    async with sessions() as session:
        result = await session.execute(
            update(SessionRow)
            .where(SessionRow.token_hash == token_hash(token), SessionRow.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        await session.commit()
    await publish_revoked(broker, (token,))
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def revoke_all(sessions: async_sessionmaker[AsyncSession], user_id: int,
                     broker: Broker | None = None) -> int:
    """Revoke every live session of ``user_id`` (log out everywhere); how many. With
    ``broker``, their open sockets on every process are closed too."""
    async with sessions() as session:
        result = await session.execute(
            update(SessionRow)
            .where(SessionRow.user_id == user_id, SessionRow.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
        await session.commit()
    await publish_revoked(broker, user_id=user_id)
    return int(result.rowcount)  # type: ignore[attr-defined]
