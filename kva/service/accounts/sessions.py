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

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from kva.service.cluster.broker import Broker
from kva.service.messages import RevokedNote
from kva.storage import login_sessions, repo
from kva.storage.models import User, utcnow

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
    await login_sessions.insert_session(session, token_hash(token), user_id,
                                        address[:MAX_ADDRESS] if address else None)
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
    request or a socket's handshake that needs all three reads the session once
    (:func:`kva.storage.login_sessions.live_session_user`).

    Touches ``last_seen_at`` when it is older than :data:`TOUCH_EVERY`.
    """
    if not token or len(token) > MAX_COOKIE:
        return None
    found = await login_sessions.live_session_user(sessions, token_hash(token), TOUCH_EVERY)
    if found is None:
        return None
    user, bot = found
    return LiveSession(user, bot)


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
            if legacy is not None and _legacy_young(legacy) \
                    and not await login_sessions.has_session(session, legacy.id):
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
        await login_sessions.revoke_token_hash(session, token_hash(old_token))
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
    return await login_sessions.session_live(sessions, token_hash(token))


async def digest_is_live(sessions: async_sessionmaker[AsyncSession], digest: str) -> bool:
    """Whether the session whose token hashes to ``digest`` is live (what a known-device
    cookie names: the device stays known while that login lasts)."""
    if len(digest) != len(token_hash("")):
        return False
    return await login_sessions.session_live(sessions, digest)


async def revoke(sessions: async_sessionmaker[AsyncSession], token: str | None,
                 broker: Broker | None = None) -> bool:
    """Revoke the session of ``token``; whether a live one was revoked. With ``broker``, its
    open sockets on every process are closed too."""
    if not token or len(token) > MAX_COOKIE:
        return False
    async with sessions() as session:
        revoked = await login_sessions.revoke_token_hash(session, token_hash(token))
        await session.commit()
    await publish_revoked(broker, (token,))
    return bool(revoked)


async def revoke_all(sessions: async_sessionmaker[AsyncSession], user_id: int,
                     broker: Broker | None = None) -> int:
    """Revoke every live session of ``user_id`` (log out everywhere); how many. With
    ``broker``, their open sockets on every process are closed too."""
    async with sessions() as session:
        revoked = await login_sessions.revoke_user_sessions(session, user_id)
        await session.commit()
    await publish_revoked(broker, user_id=user_id)
    return revoked
