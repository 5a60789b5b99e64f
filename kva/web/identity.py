"""Who a request is: created on demand, and the earlier ``kva_session`` scheme.

A request with no session has no user (``request.state.user`` is None): pages that merely
render need none, so a crawler or a 404 creates no row. A route that acts (opening or joining a
table, a quick game, registering) calls :func:`ensure_user`, which creates the guest and its
session then, and has the middleware set the cookie.

Sessions are server-side records (:mod:`kva.service.sessions`); :class:`SessionCodec` only reads
a cookie of the earlier signed scheme once, so its holder keeps their user and gets a real
session in exchange.
"""

from __future__ import annotations

from fastapi import Request
from itsdangerous import BadSignature, URLSafeSerializer

from kva.service.sessions import guest_with_session
from kva.storage.models import User
from kva.web.security import client_ip
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


async def ensure_user(request: Request) -> User:
    """The visitor's user, created now (a guest with a session) if they have none yet."""
    user: User | None = request.state.user
    if user is not None:
        return user
    user, token = await guest_with_session(services(request).sessions, client_ip(request))
    request.state.user = user
    request.state.session_token = token
    request.state.set_session = token
    return user
