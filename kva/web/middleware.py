"""The identity and language middleware: who is asking (the session cookie), in which
language, the security headers and the session cookie on every response.

A plain ASGI middleware, not Starlette's ``BaseHTTPMiddleware``: that one runs each request in a
task group of its own and leaves the group, its cancel scope and their tracebacks behind as
cyclic garbage, ~400 objects of each kind for 200 new matches, which made the young collections
of a loaded server long enough to show in its action latency (docs/performance.md). This one
adds nothing per request but a wrapper around ``send``.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kva.config import Settings
from kva.i18n import COOKIE_NAME as LANG_COOKIE
from kva.i18n import negotiate_locale
from kva.service.accounts.sessions import Identity, identify_legacy
from kva.web import errors
from kva.web.headers import SECURITY_HEADERS, add_security_headers
from kva.web.identity import COOKIE, MAX_AGE, SessionCodec, session_of
from kva.web.security import client_ip, origin_ok
from kva.web.services import services

#: Paths that never look at the session cookie.
_ANONYMOUS_PREFIXES = ("/static/", "/healthz", "/favicon")


class IdentityAndLanguage:
    """Sets ``request.state.locale``, ``.user``, ``.session_token`` and ``.new_visitor`` for the
    routes; refuses a form posted from another site (403); adds :data:`SECURITY_HEADERS` and
    writes or deletes the session cookie (a route that signs someone in or out sets
    ``request.state.set_session``: the new token, or ``""``)."""

    def __init__(self, app: ASGIApp, settings: Settings, codec: SessionCodec) -> None:
        self.app = app
        self.settings = settings
        self.codec = codec

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        state = request.state
        state.locale = negotiate_locale(
            request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
        )
        state.user = None
        state.session_token = None
        if request.method not in ("GET", "HEAD", "OPTIONS") and not origin_ok(request):
            refused = errors.error_page(request, 403, None)  # a form posted from another site
            refused.headers.update(SECURITY_HEADERS)
            await refused(scope, receive, send)
            return
        new_cookie: str | None = None
        cookie = request.cookies.get(COOKIE)
        if cookie and not request.url.path.startswith(_ANONYMOUS_PREFIXES):
            # The cookie is a session token (kva.service.accounts.sessions); a cookie of the old
            # signed
            # scheme is exchanged once for a session of the same user. Without a session the
            # visitor has no user until a route needs one (kva.web.identity.ensure_user).
            sessions = services(request).sessions
            live = await session_of(scope, sessions, cookie)  # read once (the bot guard's)
            who = Identity(live.user, cookie) if live is not None else await identify_legacy(
                sessions, self.codec.loads(cookie), client_ip(request))
            if who is not None:
                state.user = who.user
                state.session_token = who.token
                new_cookie = who.new_token
        state.new_visitor = state.user is None

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_security_headers(message)
                headers = MutableHeaders(scope=message)
                chosen = getattr(state, "set_session", None)  # set by log in / out
                cookie_value = chosen if chosen is not None else new_cookie
                if cookie_value is not None:
                    headers.append("set-cookie", self._cookie_header(cookie_value))
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _cookie_header(self, token: str) -> str:
        """The ``Set-Cookie`` value that stores ``token`` (``""``: deletes the cookie)."""
        response = Response()
        secure = self.settings.secure_cookies
        if token == "":
            response.delete_cookie(COOKIE, httponly=True, samesite="lax", secure=secure)
        else:
            response.set_cookie(COOKIE, token, max_age=MAX_AGE, httponly=True, samesite="lax",
                                secure=secure)
        return response.headers["set-cookie"]
