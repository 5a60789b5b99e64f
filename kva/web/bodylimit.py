"""The request-body cap: no request body larger than ``KVA_MAX_BODY_BYTES`` is read.

``kva serve`` may face the internet without a proxy in front of it, so the cap is the app's
own, not only nginx's ``client_max_body_size``. A plain ASGI middleware, outermost, so that a
refused body costs no session lookup: a ``Content-Length`` over the cap is answered 413 before
anything is read, and a body without one (chunked) is counted as it arrives and refused as soon
as it grows past the cap, so at most the cap (plus one chunk) is ever held. The bot API keeps
its own, smaller cap (:data:`kva.web.botapi.MAX_BODY`) inside this one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kva.i18n import COOKIE_NAME as LANG_COOKIE
from kva.i18n import negotiate_locale, translations
from kva.rules import parse_ascii_int

#: The default cap: every form and JSON body of the site fits in a few KiB.
DEFAULT_MAX_BODY = 64 * 1024


class BodyTooLarge(Exception):
    """Raised to the app from ``receive`` when the body grows past the cap."""


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"connection", b"close"),
    ]})
    await send({"type": "http.response.body", "body": body})


def _translator(scope: Scope) -> Callable[[str], str]:
    """The visitor's language (cookie, then ``Accept-Language``): this answer comes before the
    identity middleware has chosen it."""
    conn = HTTPConnection(scope)
    locale = negotiate_locale(conn.cookies.get(LANG_COOKIE), conn.headers.get("accept-language"))
    return translations(locale).gettext


class BodyLimit:
    """Answers 413 to any HTTP request whose body is over ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _too_big(self, scope: Scope, send: Send) -> None:
        _ = _translator(scope)
        await _answer(send, 413, "too_big",
                      _("A request may carry at most %(bytes)s bytes.") % {
                          "bytes": self.max_bytes})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            length = parse_ascii_int(declared)
            if length is None:
                _ = _translator(scope)
                await _answer(send, 400, "bad_length",
                              _("The request's Content-Length is not a whole number."))
                return
            if length > self.max_bytes:
                await self._too_big(scope, send)
                return
        received = 0
        refused = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, refused
            if refused:
                raise BodyTooLarge
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    raise BodyTooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if refused and not started:
                return  # the app's own answer to a body it could not read: ours replaces it
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge:
            pass  # an expected refusal, answered below: no traceback
        except Exception:
            if not refused:
                raise
        if refused and not started:
            await self._too_big(scope, send)
