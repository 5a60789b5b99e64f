"""Who a request is: created on demand, and the earlier ``kva_session`` scheme.

A request with no session has no user (``request.state.user`` is None): pages that merely
render need none, so a crawler or a 404 creates no row. A route that acts (opening or joining a
table, a quick game, registering) calls :func:`ensure_user`, which creates the guest and its
session then, and has the middleware set the cookie. Guests created are limited per client
address (``KVA_GUEST_CREATE_RATE_IP``): over it, 429 with ``Retry-After`` before any row is written.

Sessions are server-side records (:mod:`kva.service.accounts.sessions`); :class:`SessionCodec` only
reads
a cookie of the earlier signed scheme once, so its holder keeps their user and gets a real
session in exchange.
"""

from __future__ import annotations

from fastapi import HTTPException, Request
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.types import Scope

from kva.service.accounts.registration import User
from kva.service.accounts.sessions import LiveSession, guest_with_session, live_session
from kva.web.render import translator
from kva.web.security import client_ip, client_key
from kva.web.services import services

COOKIE = "kva_session"
MAX_AGE = 60 * 60 * 24 * 365


class SessionCodec:
    """Signs and reads the session cookie (the user id, nothing secret)."""

    def __init__(self, secret_key: str) -> None:
        self._serializer = URLSafeSerializer(secret_key, salt="kva-session")

    def dumps(self, user_id: int) -> str:
        return self._serializer.dumps({"uid": user_id})

    def loads(self, cookie: str | None) -> int | None:
        """The user id in a valid cookie, None for a missing, forged or malformed one."""
        if not cookie or len(cookie) > 512 or "." not in cookie:
            # A session token (no "."): not even tried, since a refused signature raises,
            # and every request of a signed-in visitor would leave a traceback to collect.
            return None
        try:
            data = self._serializer.loads(cookie)
        except BadSignature:
            return None
        uid = data.get("uid") if isinstance(data, dict) else None
        return uid if isinstance(uid, int) and not isinstance(uid, bool) else None


#: Where :func:`session_of` keeps what it read, in the ASGI scope of the request or socket.
SCOPE_KEY = "kva.live_session"


async def session_of(scope: Scope, sessions: async_sessionmaker[AsyncSession],
                     token: str | None) -> LiveSession | None:
    """The live session of ``token`` (:func:`~kva.service.accounts.sessions.live_session`), read
    once
    per request or socket handshake: the bot guard (:class:`kva.web.botapi.BotWebGuard`),
    the identity middleware and the match socket each need it, one after the other, within
    the same request; the first reads it and keeps the answer in ``scope`` for the others.
    Only an answer for this very token is reused, and only for this scope (a later request,
    or a frame of the socket, reads the session again)."""
    kept = scope.get(SCOPE_KEY)
    if kept is not None and kept[0] == token:
        return kept[1]  # type: ignore[no-any-return]
    found = await live_session(sessions, token)
    scope[SCOPE_KEY] = (token, found)
    return found


async def ensure_user(request: Request) -> User:
    """The visitor's user, created now (a guest with a session) if they have none yet."""
    user: User | None = request.state.user
    if user is not None:
        return user
    refusal = await services(request).rate_limiter.check_guest_create(client_key(request))
    if refusal is not None:  # refused before any user or session row is written
        _ = translator(request)
        minutes = max(1, -(-refusal.retry_after // 60))
        request.state.own_error = True
        raise HTTPException(429, _("Too many new visitors from your address. Try again in "
                                   "%(minutes)s min.") % {"minutes": minutes},
                            headers={"Retry-After": str(refusal.retry_after)})
    user, token = await guest_with_session(services(request).sessions, client_ip(request))
    request.state.user = user
    request.state.session_token = token
    request.state.set_session = token
    return user
