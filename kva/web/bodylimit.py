"""The request-body cap: no request body larger than ``KVA_MAX_BODY_BYTES`` is read.

``kva serve`` may face the internet without a proxy in front of it, so the cap is the app's
own, not only nginx's ``client_max_body_size``. A plain ASGI middleware, outermost, so that a
refused body costs no session lookup: a ``Content-Length`` over the cap is answered 413 before
anything is read, and a body without one (chunked) is counted as it arrives and refused as soon
as it grows past the cap, so at most the cap (plus one chunk) is ever held. The bot API keeps
its own, smaller cap (:data:`kva.web.botapi.MAX_BODY`) inside this one.

The whole body must also arrive within ``KVA_BODY_TIMEOUT`` seconds of the request: a client
that trickles a body a byte at a time would otherwise hold a connection and a task for as long
as it likes, and a few dozen of them a process's capacity. A late body is answered 408 and the
connection closed. Every answer of this middleware, and every answer it passes on, carries the
site's security headers (:mod:`kva.web.headers`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kva.i18n import COOKIE_NAME as LANG_COOKIE
from kva.i18n import negotiate_locale, translations
from kva.rules import parse_ascii_int
from kva.settings.caps import DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY
from kva.web.headers import add_security_headers


class BodyTooLarge(Exception):
    """Raised to the app from ``receive`` when the body grows past the cap."""


class BodyTooSlow(Exception):
    """Raised to the app from ``receive`` when the body has not arrived in time."""


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    start: Message = {"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]}
    add_security_headers(start)
    await send(start)
    await send({"type": "http.response.body", "body": body})


async def _internal_error(send: Send) -> None:
    """Starlette's plain 500, with the security headers its own error answer lacks; the
    exception still reaches the server, which logs it and sends nothing more."""
    body = b"Internal Server Error"
    start: Message = {"type": "http.response.start", "status": 500, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]}
    add_security_headers(start)
    await send(start)
    await send({"type": "http.response.body", "body": body})


def _translator(scope: Scope) -> Callable[[str], str]:
    """The visitor's language (cookie, then ``Accept-Language``): this answer comes before the
    identity middleware has chosen it."""
    conn = HTTPConnection(scope)
    locale = negotiate_locale(conn.cookies.get(LANG_COOKIE), conn.headers.get("accept-language"))
    return translations(locale).gettext


class BodyLimit:
    """Answers 413 to any HTTP request whose body is over ``max_bytes``, and 408 to one whose
    body has not all arrived ``timeout`` seconds after the request."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY,
                 timeout: float = DEFAULT_BODY_TIMEOUT) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def _too_big(self, scope: Scope, send: Send) -> None:
        _ = _translator(scope)
        await _answer(send, 413, "too_big",
                      _("A request may carry at most %(bytes)s bytes.") % {
                          "bytes": self.max_bytes})

    async def _too_slow(self, scope: Scope, send: Send) -> None:
        _ = _translator(scope)
        await _answer(send, 408, "body_timeout",
                      _("The request's body did not arrive in time."))

    async def _refused_by_header(self, scope: Scope, send: Send) -> bool:
        """Answer a ``Content-Length`` that is no number (400) or over the cap (413)."""
        declared = Headers(scope=scope).get("content-length")
        if declared is None:
            return False
        length = parse_ascii_int(declared)
        if length is None:
            _ = _translator(scope)
            await _answer(send, 400, "bad_length",
                          _("The request's Content-Length is not a whole number."))
            return True
        if length > self.max_bytes:
            await self._too_big(scope, send)
            return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if await self._refused_by_header(scope, send):
            return
        guard = _Guarded(receive, send, self.max_bytes,
                         asyncio.get_running_loop().time() + self.timeout)
        try:
            await self.app(scope, guard.receive, guard.send)
        except (BodyTooLarge, BodyTooSlow):
            pass  # an expected refusal, answered below: no traceback
        except Exception:
            if guard.refused is None:
                if not guard.started:  # the server's own 500 would go out without the headers
                    await _internal_error(send)
                raise
        if guard.refused is BodyTooLarge and not guard.started:
            await self._too_big(scope, send)
        elif guard.refused is BodyTooSlow and not guard.started:
            await self._too_slow(scope, send)


class _Guarded:
    """One request's ``receive`` and ``send`` as the app sees them: the body counted against
    the cap and the deadline, and the security headers added to the answer."""

    def __init__(self, receive: Receive, send: Send, max_bytes: int, deadline: float) -> None:
        self._receive, self._send = receive, send
        self.max_bytes, self.deadline = max_bytes, deadline
        self.received = 0
        self.refused: type[Exception] | None = None
        self.started = self.body_done = False

    async def receive(self) -> Message:
        if self.refused is not None:
            raise self.refused
        if self.body_done:  # after the body, only a disconnect is awaited: no deadline
            return await self._receive()
        try:
            async with asyncio.timeout_at(self.deadline):
                message = await self._receive()
        except TimeoutError:
            self.refused = BodyTooSlow
            raise BodyTooSlow from None
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            self.body_done = not message.get("more_body", False)
            if self.received > self.max_bytes:
                self.refused = BodyTooLarge
                raise BodyTooLarge
        return message

    async def send(self, message: Message) -> None:
        if self.refused is not None and not self.started:
            return  # the app's own answer to a body it could not read: ours replaces it
        if message["type"] == "http.response.start":
            self.started = True
            add_security_headers(message)
        await self._send(message)
