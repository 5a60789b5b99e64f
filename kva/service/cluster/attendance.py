"""Attendance shared by the processes on one Redis (:class:`RedisAttendance`).

The interface, and the in-memory implementation of a process alone, are in
:mod:`kva.service.lobby.attendance`. Each process keeps a key per user it has sockets for,
``<prefix><user>`` (a sorted set of process → expiry, refreshed every :data:`HEARTBEAT`
seconds, so a crashed process's users are gone once it expires), and the process that sees a
user's last socket anywhere close writes ``<prefix>gone:<user>``, the time. Sweeps take a short
Redis lock (``SET NX PX``), so one process sweeps at a time; cancelling a table is guarded
anyway (only a waiting table, only for its creator).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

from kva.service.cluster.chores import Chores
from kva.service.lobby.attendance import GONE_KEEP, SocketCounts
from kva.service.periodic import repeat

log = logging.getLogger(__name__)

#: Seconds between two refreshes of this process's users in Redis.
HEARTBEAT = 2.0
#: Seconds a user's entry for a process outlives its last refresh (a crashed process).
EXPIRE = 6.0
#: The default key prefix.
PREFIX = "kva:here:"

# KEYS: here:<user>, gone:<user>. ARGV: origin, now (ms), gone keep (ms).
# The user's last socket on this process closed: if no other process has one, note the time.
_LEAVE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 1
"""

# KEYS: here:<user>, gone:<user>, for each user in turn. ARGV: origin, expiry (ms), the here
# key's life (ms). This process has these users: note it until the expiry, and they are not gone.
_REFRESH = """
for i = 1, #KEYS, 2 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
  redis.call('DEL', KEYS[i + 1])
end
return #KEYS / 2
"""
#: Users refreshed by one script call (a call runs alone in Redis: ~1,500 commands at most).
REFRESH_BATCH = 500


class RedisAttendance:
    """Sockets per user shared by every process on one Redis (see the module)."""

    def __init__(self, url: str, *, prefix: str = PREFIX, clock: Callable[[], float] = time.time,
                 heartbeat: float = HEARTBEAT, expire: float = EXPIRE) -> None:
        import redis.asyncio as redis

        self._clock = clock
        self._sockets = SocketCounts(self._first, self._last)
        self._redis: Any = redis.from_url(url, decode_responses=True)
        self._prefix = prefix
        self._heartbeat = heartbeat
        self._expire = expire
        self.origin = secrets.token_hex(6)
        self._leave_script = self._redis.register_script(_LEAVE)
        self._refresh_script = self._redis.register_script(_REFRESH)
        self._task: asyncio.Task[None] | None = None
        self._chores = Chores("attendance update")

    def _keys(self, user_id: int) -> list[str]:
        return [f"{self._prefix}{user_id}", f"{self._prefix}gone:{user_id}"]

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="kva-attendance")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for user_id in self._sockets.users():  # a clean stop: these users left this process
            self._sockets.drop(user_id)
        await self._chores.finish()
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    def enter(self, user_id: int | None) -> None:
        """A socket of ``user_id`` opened (None: a visitor without a user, not counted)."""
        self._sockets.enter(user_id)

    def leave(self, user_id: int | None) -> None:
        """A socket counted by :meth:`enter` closed."""
        self._sockets.leave(user_id)

    def remember_departures_for(self, seconds: float) -> None:
        """Nothing to forget here: Redis keeps a departure :data:`GONE_KEEP` seconds."""

    def here(self, user_id: int) -> bool:
        """Whether ``user_id`` has a socket on this process."""
        return self._sockets.here(user_id)

    def _first(self, user_id: int) -> None:
        self._chores.start(self._refresh([user_id]))

    def _last(self, user_id: int) -> None:
        here, gone = self._keys(user_id)
        self._chores.start(self._leave_script(keys=[here, gone], args=[
            self.origin, int(self._clock() * 1000), GONE_KEEP * 1000]))

    async def _refresh(self, user_ids: list[int]) -> None:
        """Note in Redis that this process has ``user_ids``: one script call per
        :data:`REFRESH_BATCH` users. (Three commands a user in a pipeline cost the process
        ~3 % of its CPU at 400 live matches, every user's commands packed and every reply
        parsed one by one in Python, for 800 users every :data:`HEARTBEAT` seconds.)"""
        expiry = int((self._clock() + self._expire) * 1000)
        life = int(self._expire * 1000) + 1000
        for start in range(0, len(user_ids), REFRESH_BATCH):
            keys = [key for uid in user_ids[start:start + REFRESH_BATCH]
                    for key in self._keys(uid)]
            await self._refresh_script(keys=keys, args=[self.origin, expiry, life])

    async def _run(self) -> None:
        await repeat(self._heartbeat, self._refresh_all, log, "refreshing attendance failed")

    async def _refresh_all(self) -> None:
        await self._refresh(self._sockets.users())

    async def absent_since(self, user_ids: Iterable[int]) -> dict[int, float | None]:
        ids = list(user_ids)
        now_ms = int(self._clock() * 1000)
        async with self._redis.pipeline(transaction=False) as pipe:
            for uid in ids:
                here, gone = self._keys(uid)
                pipe.zrevrange(here, 0, 0, withscores=True)
                pipe.get(gone)
            replies = await pipe.execute()
        out: dict[int, float | None] = {}
        for i, uid in enumerate(ids):
            latest, gone_ms = replies[2 * i], replies[2 * i + 1]
            if self.here(uid) or (latest and latest[0][1] >= now_ms):
                out[uid] = None
            elif latest:  # only expired entries: a process died; gone since its last refresh
                out[uid] = (latest[0][1] / 1000) - self._expire
            else:
                out[uid] = float(gone_ms) / 1000 if gone_ms else 0.0
        return out

    async def lock(self, ms: int) -> bool:
        return bool(await self._redis.set(self._prefix + "sweep-lock", self.origin, nx=True,
                                          px=ms))
