"""What every WebSocket of the platform shares (match, lobby, quick game): a send path that
never raises on a closing socket, a message rate limit per socket, caps on sockets per client
and per match, and closing the sockets of a revoked session.

* :class:`Channel` wraps one accepted socket: sends are serialised and a send on a socket that
  is closing (Starlette's ``WebSocketDisconnect``, its ``RuntimeError`` after a close, or an
  ``OSError`` of the transport) marks the channel closed instead of raising.
* :class:`TokenBucket` is the per-socket rate limit (``ws_rate`` messages a second, bursts of
  ``ws_burst``); refused frames are answered ``rate_limited``, and a socket that goes on
  flooding (more than ``ws_flood`` refusals, forgiven at one a second) is closed with 4429.
* :class:`SocketRegistry` counts this process's sockets per client (the user, else the client
  address as :func:`kva.web.security.client_key` groups it) and, for a match's spectators, per
  match and per address and user on that match; it refuses the ones over ``ws_per_client``,
  ``ws_per_match`` or ``ws_spectators_per_client`` (an ``error`` ``too_many_sockets`` /
  ``match_full``, then close 4429). A seated player's match socket is never refused: over
  the player's ``ws_per_client`` it replaces their oldest socket (``replaced``, close 4409),
  so that spectators, however many, never keep a player from their own match (and its
  disconnection forfeit). It also listens once to the broker's
  :data:`kva.service.accounts.sessions.REVOKED_TOPIC`: a revoked session's sockets, on every
  process,
  get ``error`` ``revoked`` and close 4401.

One socket's lifecycle around these (handshake, caps, frames, cleanup) is
:class:`kva.web.socketsession.SocketSession`'s.

The caps are per process (every instance behind a load balancer applies them on its own):
nginx sends all the sockets of a match to one process (docs/deployment.md), and a seated
player's socket is admitted whatever the counts, so nothing needs sharing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from kva.service.accounts.sessions import REVOKED_TOPIC, token_hash
from kva.service.cluster.broker import Broker, Subscription
from kva.service.messages import ServerMessage, error

log = logging.getLogger(__name__)

#: Close codes (4000-4999 are the application's).
CLOSE_REVOKED = 4401
CLOSE_TOO_MANY = 4429
#: A seated player's socket that a newer one of theirs replaced (the page does not reconnect).
CLOSE_REPLACED = 4409
#: A socket whose seat its player no longer holds (they left the table before it started):
#: its page reconnects, and is told the match as what the player is now.
CLOSE_SEAT_GIVEN_UP = 4410
#: What a send on a closing socket may raise (Starlette 1.x: WebSocketDisconnect for a gone
#: transport, RuntimeError/WebSocketDisconnected after a close was sent; OSError from below).
SEND_ERRORS: tuple[type[BaseException], ...] = (WebSocketDisconnect, RuntimeError, OSError)


def holds_seat(holders: object, seat: int | None, user_id: int | None) -> bool:
    """Whether a socket or stream viewing a match as ``seat`` for ``user_id`` may still be
    sent that seat's states, by the ``holders`` published with them (a message without them:
    nothing changed). A spectator's view (``seat`` None) is anyone's."""
    if seat is None or not isinstance(holders, list):
        return True
    return seat < len(holders) and holders[seat] == user_id


def dumps(message: ServerMessage | dict[str, Any]) -> str:
    """The compact JSON text of a message."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; :meth:`take` spends one."""

    def __init__(self, rate: float, burst: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs rate > 0 and burst >= 1")
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._tokens = float(burst)
        self._at = clock()

    def take(self) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Channel:
    """One accepted WebSocket: serialised sends that never raise, a rate limit, and a close
    that any task may call."""

    def __init__(self, ws: WebSocket, *, rate: float = 10.0, burst: int = 20,
                 flood: int = 40, clock: Callable[[], float] = time.monotonic) -> None:
        self.ws = ws
        self.lock = asyncio.Lock()
        self.closed = False
        self.close_code: int | None = None
        self._bucket = TokenBucket(rate, burst, clock)
        self._strikes = TokenBucket(1.0, max(1, flood), clock)

    async def send(self, message: ServerMessage | dict[str, Any]) -> bool:
        """Send ``message``; False (and the channel marked closed) if the socket is going."""
        async with self.lock:
            return await self.send_locked(dumps(message))

    async def send_locked(self, text: str) -> bool:
        """Send ``text``; the caller holds :attr:`lock`."""
        if self.closed:
            return False
        try:
            await self.ws.send_text(text)
        except SEND_ERRORS:
            self.closed = True
            return False
        return True

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket (once; errors of a socket already going are ignored)."""
        async with self.lock:
            if self.closed:
                return
            self.closed = True
            self.close_code = code
            with contextlib.suppress(*SEND_ERRORS):
                await self.ws.close(code=code, reason=reason)

    async def refuse(self, code: str, message: str, close_code: int) -> None:
        """An ``error`` frame, then close with ``close_code``."""
        await self.send(error(code, message))
        await self.close(close_code, code)

    async def admit(self) -> bool:
        """Whether the client's next frame may be handled. A frame over the rate limit is
        answered ``rate_limited``; a socket that keeps flooding is closed (4429)."""
        if self._bucket.take():
            return True
        if not self._strikes.take():
            await self.refuse("rate_limited", "too many messages: closing", CLOSE_TOO_MANY)
            return False
        await self.send(error("rate_limited", "too many messages; slow down"))
        return False


class _Entry:
    __slots__ = ("channel", "client", "keys", "match_id", "seat_key", "token_hash", "user_id")

    def __init__(self, channel: Channel, client: str, match_id: str | None,
                 token_hash: str | None, user_id: int | None,
                 keys: tuple[tuple[str, ...], ...], seat_key: tuple[str, ...] | None) -> None:
        self.channel = channel
        self.client = client
        self.match_id = match_id
        self.token_hash = token_hash
        self.user_id = user_id
        #: The counts this socket is in besides its client's: a spectator's match, address and
        #: user there, or a seated player's sockets on their match (:attr:`seat_key`).
        self.keys = keys
        self.seat_key = seat_key


class SocketRegistry:
    """This process's open sockets: per-client and per-match caps, and revocations.

    A seated player's match socket is never refused for a cap: it counts against its player's
    ``per_client`` sockets, and one over that closes the player's oldest other socket
    (``replaced``, 4409) instead, never a seat's only socket at another match (with none to
    close, it is let in over the cap: a player holds at most ``per_client`` sockets plus one
    per match they sit at). Spectators count against ``per_match`` (the match's spectators
    only) and ``spectators_per_client`` (per client address, and per user, on one match).
    """

    def __init__(self, *, per_client: int = 16, per_match: int = 200,
                 spectators_per_client: int = 4) -> None:
        if per_client < 1 or per_match < 1 or spectators_per_client < 1:
            raise ValueError("socket caps must be at least 1")
        self.per_client = per_client
        self.per_match = per_match
        self.spectators_per_client = spectators_per_client
        self._entries: dict[Channel, _Entry] = {}
        #: Each client's sockets, oldest first.
        self._by_client: dict[str, dict[Channel, None]] = defaultdict(dict)
        self._counts: dict[tuple[str, ...], int] = defaultdict(int)
        self._sub: Subscription | None = None
        self._listener: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ counting
    async def register(self, channel: Channel, *, token: str | None, user_id: int | None,
                       address: str, match_id: str | None = None,
                       seat: int | None = None) -> bool:
        """Count an accepted socket (``address``: its :func:`~kva.web.security.client_key`;
        ``seat``: the match's seat of ``user_id``, None for a spectator); False (and the
        socket refused and closed) when its client or its match has too many already."""
        client = f"u:{user_id}" if user_id is not None else f"ip:{address}"
        seat_key = (("seat", match_id, str(user_id))
                    if match_id is not None and seat is not None and user_id is not None
                    else None)
        keys: tuple[tuple[str, ...], ...] = ()
        replaced = None
        if seat_key is not None:
            keys = (seat_key,)
            replaced = self._replaceable(client, match_id)
            if replaced is not None:
                self.unregister(replaced)
        else:
            if match_id is not None:
                keys = (("match", match_id), ("ip", match_id, address))
                if user_id is not None:
                    keys += (("user", match_id, str(user_id)),)
            refusal = self._refusal(client, keys)
            if refusal is not None:
                await channel.refuse(*refusal, CLOSE_TOO_MANY)
                return False
        self._by_client[client][channel] = None
        for key in keys:
            self._counts[key] += 1
        hashed = token_hash(token) if token else None
        self._entries[channel] = _Entry(channel, client, match_id, hashed, user_id, keys,
                                        seat_key)
        if replaced is not None:
            await replaced.refuse("replaced", "a newer connection of yours took this one's "
                                  "place", CLOSE_REPLACED)
        return True

    def _refusal(self, client: str, keys: tuple[tuple[str, ...], ...]
                 ) -> tuple[str, str] | None:
        """Why a socket that is not a seated player's is refused (its error code and
        message), or None."""
        if len(self._by_client.get(client, ())) >= self.per_client:
            return ("too_many_sockets",
                    f"at most {self.per_client} live connections per player")
        for key in keys:
            if key[0] == "match" and self._counts.get(key, 0) >= self.per_match:
                return "match_full", f"at most {self.per_match} spectators per match"
            if key[0] != "match" and self._counts.get(key, 0) >= self.spectators_per_client:
                return ("too_many_sockets", f"at most {self.spectators_per_client} "
                        "spectator connections per client on one match")
        return None

    def _replaceable(self, client: str, match_id: str | None) -> Channel | None:
        """The socket a seated player's new one replaces when the player is at their cap:
        their oldest, except a seat's only socket at another match; None if under the cap
        or none may go."""
        own = self._by_client.get(client, {})
        if len(own) < self.per_client:
            return None
        for channel in own:
            seat_key = self._entries[channel].seat_key
            if (seat_key is None or seat_key[1] == match_id
                    or self._counts.get(seat_key, 0) > 1):
                return channel
        return None

    def unregister(self, channel: Channel) -> None:
        """Forget a closed socket (harmless if it was never counted)."""
        entry = self._entries.pop(channel, None)
        if entry is None:
            return
        own = self._by_client.get(entry.client)
        if own is not None:
            own.pop(channel, None)
            if not own:
                del self._by_client[entry.client]
        for key in entry.keys:
            self._counts[key] -= 1
            if self._counts[key] <= 0:
                del self._counts[key]

    def counts(self) -> tuple[int, int, int]:
        """Open sockets, clients and matches with sockets (for tests and monitoring)."""
        matches = {e.match_id for e in self._entries.values() if e.match_id is not None}
        return len(self._entries), len(self._by_client), len(matches)

    # ------------------------------------------------------------------ revocation
    async def revoked(self, note: Any) -> int:
        """Close the sockets of the sessions in a revocation note; how many."""
        if not isinstance(note, dict):
            return 0
        hashes = note.get("token_hashes")
        wanted = {h for h in hashes if isinstance(h, str)} if isinstance(hashes, list) else set()
        user_id = note.get("user_id")
        victims = [e.channel for e in self._entries.values()
                   if (e.token_hash is not None and e.token_hash in wanted)
                   or (isinstance(user_id, int) and e.user_id == user_id)]
        for channel in victims:
            await channel.refuse("revoked", "your session has ended; log in again",
                                 CLOSE_REVOKED)
        return len(victims)

    async def start(self, broker: Broker) -> None:
        """Subscribe to revocations (once per process)."""
        self._sub = await broker.subscribe(REVOKED_TOPIC)
        self._listener = asyncio.create_task(self._listen(self._sub), name="kva-revocations")

    async def _listen(self, sub: Subscription) -> None:
        async for note in sub:
            try:
                await self.revoked(note)
            except Exception:  # one bad note must not stop the listener
                log.exception("closing the sockets of a revoked session failed")

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        if self._sub is not None:
            await self._sub.close()
            self._sub = None
