"""One WebSocket connection from handshake to close: the lifecycle that the match, lobby and
quick-game sockets share, so that each endpoint states only what is its own (what it admits,
what it sends first, what it does with a message, what it undoes at the end).

A :class:`SocketSession` goes through these steps, each endpoint calling them in this order:

1. :meth:`~SocketSession.handshake`: the ``Origin`` check (a foreign one is refused with 1008
   before the handshake is accepted, so the browser sees HTTP 403) and the visitor's session.
2. The endpoint's own checks before accepting (the match socket closes with 4404 or 4403).
3. :meth:`~SocketSession.accept`: the socket is accepted and wrapped in a rate-limited
   :class:`~kva.web.sockets.Channel`; refusals after this are told over the socket.
4. :meth:`~SocketSession.serve`: the socket is counted against its client's (and match's) caps
   of :class:`~kva.web.sockets.SocketRegistry` (refused with 4429 when over one), the
   endpoint's body runs, and however it ends the socket is forgotten first, then what the
   body set up is undone (:meth:`~SocketSession.on_close`).
5. :meth:`~SocketSession.receive`, inside the body: the client's frames until it goes, each one
   rate limited, size limited and parsed as JSON before the endpoint sees it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from kva.service.accounts.registration import User
from kva.service.accounts.sessions import COOKIE
from kva.web.identity import session_of
from kva.web.security import client_key, origin_ok
from kva.web.services import Services, services
from kva.web.sockets import Channel

#: What an endpoint does with the JSON value of an admitted frame.
MessageHandler = Callable[[Any], Awaitable[None]]
#: What an endpoint does with a frame it cannot read: its error code and message.
BadFrameHandler = Callable[[str, str], Awaitable[None]]


class BadFrame(Exception):
    """A client frame that is not a message: too big, not UTF-8, or not JSON."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_frame(frame: Mapping[str, Any], limit: int) -> Any:
    """The JSON value of a received ASGI ``websocket.receive`` message, text or binary (UTF-8);
    :class:`BadFrame` ``too_big`` when it is over ``limit`` bytes, ``bad_json`` when it is not
    UTF-8 or not JSON (brackets nested past the parser's depth included)."""
    text: str | None = frame.get("text")
    data: bytes = text.encode("utf-8") if text is not None else (frame.get("bytes") or b"")
    if len(data) > limit:
        raise BadFrame("too_big", f"a message may be at most {limit} bytes")
    try:
        return json.loads(text if text is not None else data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise BadFrame("bad_json", "the message is not valid JSON") from None


async def ignore_bad_frame(code: str, message: str) -> None:
    """The default for a frame that cannot be read: nothing is answered, the socket stays."""


class SocketSession:
    """One WebSocket of an endpoint, from its handshake to its close (module docstring)."""

    def __init__(self, ws: WebSocket, *, frame_limit: int) -> None:
        self.ws = ws
        #: The largest client frame read, in bytes (each endpoint names its own).
        self.frame_limit = frame_limit
        self.svc: Services = services(ws)
        #: The visitor's user, and their session cookie (None without a live session).
        self.user: User | None = None
        self.token: str | None = None
        self._channel: Channel | None = None
        self._cleanup = AsyncExitStack()

    @property
    def user_id(self) -> int | None:
        return self.user.id if self.user is not None else None

    @property
    def channel(self) -> Channel:
        """The accepted socket's channel (:meth:`accept` first)."""
        if self._channel is None:
            raise RuntimeError("the socket is not accepted yet")
        return self._channel

    async def handshake(self) -> bool:
        """Whether the handshake may go on: a foreign ``Origin`` is refused (1008, before
        accepting: HTTP 403), otherwise the visitor's session is read."""
        if not origin_ok(self.ws):
            await self.ws.close(code=1008)
            return False
        token = self.ws.cookies.get(COOKIE)
        # The bot guard in front of some sockets read the session already (kept in the scope).
        live = await session_of(self.ws.scope, self.svc.sessions, token)
        self.user = live.user if live is not None else None
        self.token = token if self.user is not None else None
        return True

    async def accept(self) -> Channel:
        """Accept the handshake; the socket's channel, rate limited by the settings."""
        await self.ws.accept()
        settings = self.svc.settings
        self._channel = Channel(self.ws, rate=settings.ws_rate, burst=settings.ws_burst,
                                flood=settings.ws_flood)
        return self._channel

    def on_close(self, callback: Callable[[], Awaitable[object]]) -> None:
        """Have ``callback`` undo something the body set up, once the socket is forgotten
        (the last one given runs first)."""
        self._cleanup.push_async_callback(callback)

    async def serve(self, body: Callable[[], Awaitable[None]], *, match_id: str | None = None,
                    seat: int | None = None) -> None:
        """Count the socket (``match_id`` and ``seat``: the match it watches and the viewer's
        seat there), run ``body`` until the socket ends, then forget it and undo what
        :meth:`on_close` was given. A socket over a cap is refused (an ``error``, close 4429)
        and ``body`` does not run; a client that goes mid-send or mid-receive ends it
        quietly."""
        channel = self.channel
        if not await self.svc.sockets.register(channel, token=self.token,
                                               user_id=self.user_id,
                                               address=client_key(self.ws),
                                               match_id=match_id, seat=seat):
            return
        try:
            await body()
        except WebSocketDisconnect:
            pass
        finally:
            self.svc.sockets.unregister(channel)  # first: its place is free at once
            await self._cleanup.aclose()

    async def receive(self, handle: MessageHandler,
                      bad_frame: BadFrameHandler = ignore_bad_frame) -> None:
        """Read the client's frames until it goes or the channel closes. A frame over the rate
        limit is refused by :meth:`Channel.admit`; one that cannot be read goes to
        ``bad_frame`` (ignored by default); the JSON value of every other one to ``handle``."""
        channel = self.channel
        while not channel.closed:
            frame = await self.ws.receive()
            if frame["type"] == "websocket.disconnect":
                return
            if not await channel.admit():  # over the rate limit: refused (or closed)
                continue
            try:
                value = read_frame(frame, self.frame_limit)
            except BadFrame as bad:
                await bad_frame(bad.code, bad.message)
                continue
            await handle(value)
