"""Where :class:`kva.service.play.presence.Presence` keeps presence records beyond its process.

One small interface, :class:`PresenceStore`, two implementations: :class:`MemoryPresenceStore`
(one process: nothing to share, so it keeps nothing) and :class:`RedisPresenceStore` (several
processes on one Redis). The composition root (:mod:`kva.platform`) picks one.

The broker tells the processes watching a match of every presence change, but a process that
watches nothing of a match at that moment hears nothing, and a process that dies says nothing.
With a Redis broker, each change is also written to ``<prefix><match>`` (a hash: ``seat:origin``
→ ``[online, at]``, kept a day), which a process reads when its first socket of the match opens;
and each process refreshes its liveness in ``<prefix>origins`` (a sorted set: origin → expiry,
every :data:`HEARTBEAT` seconds), so the players a dead process said were online count as away
from the time it stopped answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from kva.games.base import MAX_SEATS
from kva.service.periodic import repeat

log = logging.getLogger(__name__)

#: Seconds between two liveness refreshes (and checks of the others').
HEARTBEAT = 2.0
#: Seconds after its last refresh that a silent process counts as dead.
EXPIRE = 10.0
#: Seconds a match's presence records are kept after their last change.
KEEP = 86400
#: The default key prefix.
PREFIX = "kva:presence:"

#: (seat, origin, online, at) as stored.
Record = tuple[int, str, bool, float]
#: What a store calls with the origins newly found dead (Presence tells the viewers).
DeathHandler = Callable[[set[str]], Awaitable[None]]


class PresenceStore(Protocol):
    """What :class:`~kva.service.play.presence.Presence` needs of a presence store."""

    #: This process's name in the records (new at every start of the process).
    origin: str
    #: Called with the origins newly found dead.
    on_dead: DeathHandler | None

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def save(self, match_id: str, seat: int, online: bool, at: float) -> None: ...
    async def load(self, match_id: str) -> list[Record]: ...
    async def forget(self, match_id: str) -> None: ...
    def dead_since(self, origin: str) -> float | None: ...


class MemoryPresenceStore:
    """The store of a process alone: the broker's notes reach every viewer there is, and no
    other process can die, so nothing is kept and every process lives."""

    def __init__(self) -> None:
        self.origin = secrets.token_hex(6)
        self.on_dead: DeathHandler | None = None

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def save(self, match_id: str, seat: int, online: bool, at: float) -> None:
        return None

    async def load(self, match_id: str) -> list[Record]:
        """No other process said anything: no records."""
        return []

    async def forget(self, match_id: str) -> None:
        return None

    def dead_since(self, origin: str) -> float | None:
        return None


class RedisPresenceStore:
    """Presence records and process liveness in Redis (see the module)."""

    def __init__(self, url: str, *, prefix: str = PREFIX, heartbeat: float = HEARTBEAT,
                 expire: float = EXPIRE, clock: Callable[[], float] = time.time) -> None:
        import redis.asyncio as redis

        self._redis: Any = redis.from_url(url, decode_responses=True)
        self._prefix = prefix
        self._heartbeat = heartbeat
        self._expire = expire
        self._clock = clock
        self.origin = secrets.token_hex(6)
        #: Origins that stopped refreshing: origin → when they stopped (epoch seconds).
        self._dead: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        #: Called with the origins newly found dead (Presence tells the viewers).
        self.on_dead: DeathHandler | None = None

    async def start(self) -> None:
        await self._beat()
        self._task = asyncio.create_task(self._run(), name="kva-presence-liveness")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self._redis.zrem(self._prefix + "origins", self.origin)
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    async def save(self, match_id: str, seat: int, online: bool, at: float) -> None:
        """This process's presence of ``seat`` in ``match_id`` changed."""
        key = self._prefix + match_id
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, f"{seat}:{self.origin}", json.dumps([online, at]))
            pipe.expire(key, KEEP)
            await pipe.execute()

    async def load(self, match_id: str) -> list[Record]:
        """Every process's presence records of ``match_id``."""
        out: list[Record] = []
        raw: dict[str, str] = await self._redis.hgetall(self._prefix + match_id)
        for field, value in raw.items():
            seat_text, _, origin = field.partition(":")
            try:
                online, at = json.loads(value)
                seat = int(seat_text)
            except (ValueError, TypeError):
                continue
            if 0 <= seat < MAX_SEATS and origin and isinstance(online, bool):
                out.append((seat, origin, online, float(at)))
        return out

    async def forget(self, match_id: str) -> None:
        """The match is over: its records are not needed any more."""
        await self._redis.delete(self._prefix + match_id)

    def dead_since(self, origin: str) -> float | None:
        """When ``origin`` stopped answering, or None while it lives (as last checked)."""
        return self._dead.get(origin)

    async def _beat(self) -> None:
        now = self._clock()
        key = self._prefix + "origins"
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zadd(key, {self.origin: int((now + self._expire) * 1000)})
            pipe.zremrangebyscore(key, "-inf", int((now - KEEP) * 1000))
            pipe.zrange(key, 0, -1, withscores=True)
            replies = await pipe.execute()
        scores = {origin: score / 1000 for origin, score in replies[-1]}
        dead = {origin: expiry - self._expire for origin, expiry in scores.items()
                if expiry < now and origin != self.origin}
        # An origin that refreshes again (a long pause, not a death) is alive again; one
        # forgotten by Redis after a day stays dead here.
        kept = {o: t for o, t in self._dead.items() if o not in scores}
        new = set(dead) - set(self._dead)
        self._dead = {**kept, **dead}
        if new and self.on_dead is not None:
            await self.on_dead(new)

    async def _run(self) -> None:
        await repeat(self._heartbeat, self._beat, log, "presence liveness refresh failed")

