"""Who is here, on any process: what the lobby's cleanup of tables their creator has left reads.

An open table waits in the lobby for as long as its creator waits for it: on the table's game
page or in the lobby (any socket of theirs counts). Once the creator has had no connection on
any process for the disconnection grace period (``KVA_DISCONNECT_GRACE``), the table is
cancelled and leaves the lobby (:class:`kva.service.lobby.sweeper.TableSweeper`). A creator who
never connected (opened the table and closed the page at once) is counted from the table's
creation.

One small interface, :class:`Attendance`, two implementations: :class:`MemoryAttendance` counts
sockets per user in this process (one ``kva serve``), and
:class:`kva.service.cluster.attendance.RedisAttendance` shares them between the processes on one
Redis. The composition root (:mod:`kva.platform`) picks one. Both count this process's sockets
with a :class:`SocketCounts`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Protocol

#: Seconds a "gone since" time is kept.
GONE_KEEP = 86400


class Attendance(Protocol):
    """What the lobby, its sweeper and the sockets need of attendance."""

    def enter(self, user_id: int | None) -> None:
        """A socket of ``user_id`` opened (None: a visitor without a user, not counted)."""
        ...

    def leave(self, user_id: int | None) -> None:
        """A socket counted by :meth:`enter` closed."""
        ...

    def remember_departures_for(self, seconds: float) -> None:
        """The sweeper's grace period: a departure older than that may be forgotten."""
        ...

    def here(self, user_id: int) -> bool:
        """Whether ``user_id`` has a socket on this process."""
        ...

    async def absent_since(self, user_ids: Iterable[int]) -> dict[int, float | None]:
        """For each user: None while connected somewhere, else since when (epoch seconds)
        they have had no connection, 0.0 if that is not known (never seen)."""
        ...

    async def lock(self, ms: int) -> bool:
        """Whether this process may sweep now (for ``ms`` milliseconds)."""
        ...

    async def start(self) -> None: ...
    async def stop(self) -> None: ...


class SocketCounts:
    """Sockets per user in this process, telling ``first`` and ``last`` when a user's first
    socket here opens and their last one closes: the part both implementations share."""

    def __init__(self, first: Callable[[int], None], last: Callable[[int], None]) -> None:
        self._first = first
        self._last = last
        self._count: dict[int, int] = defaultdict(int)

    def enter(self, user_id: int | None) -> None:
        """A socket of ``user_id`` opened (None: a visitor without a user, not counted)."""
        if user_id is None:
            return
        self._count[user_id] += 1
        if self._count[user_id] == 1:
            self._first(user_id)

    def leave(self, user_id: int | None) -> None:
        """A socket counted by :meth:`enter` closed."""
        if user_id is None or self._count.get(user_id, 0) <= 0:
            return
        self._count[user_id] -= 1
        if self._count[user_id] == 0:
            del self._count[user_id]
            self._last(user_id)

    def here(self, user_id: int) -> bool:
        """Whether ``user_id`` has a socket on this process."""
        return self._count.get(user_id, 0) > 0

    def users(self) -> list[int]:
        """The users with a socket on this process."""
        return [uid for uid, n in self._count.items() if n > 0]

    def drop(self, user_id: int) -> None:
        """Forget ``user_id``'s sockets at once (a clean stop: they left this process)."""
        if self._count.pop(user_id, None) is not None:
            self._last(user_id)


class MemoryAttendance:
    """Sockets per user in this process; since when a user has had none."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._sockets = SocketCounts(self._arrived, self._departed)
        #: Since when each user who left has had no socket, oldest first (an entry is
        #: removed when the user comes back and appended when they leave again).
        self._gone: dict[int, float] = {}
        #: How long a departure is remembered here (see :meth:`remember_departures_for`).
        self._gone_keep = float(GONE_KEEP)

    def enter(self, user_id: int | None) -> None:
        """A socket of ``user_id`` opened (None: a visitor without a user, not counted)."""
        self._sockets.enter(user_id)

    def leave(self, user_id: int | None) -> None:
        """A socket counted by :meth:`enter` closed."""
        self._sockets.leave(user_id)

    def remember_departures_for(self, seconds: float) -> None:
        """Forget a departure once it is ``seconds`` old. The sweeper, the one reader, sets
        its grace period here: for a departure older than the grace, "gone since then" and
        "never seen" (0.0) lead it to the same decision, so forgetting it changes nothing and
        keeps this process's memory from growing with every player who ever left."""
        self._gone_keep = seconds

    def here(self, user_id: int) -> bool:
        """Whether ``user_id`` has a socket on this process."""
        return self._sockets.here(user_id)

    async def absent_since(self, user_ids: Iterable[int]) -> dict[int, float | None]:
        """For each user: None while connected here, else since when (epoch seconds) they
        have had no connection, 0.0 if that is not known (never seen)."""
        return {uid: None if self.here(uid) else self._gone.get(uid, 0.0) for uid in user_ids}

    async def lock(self, ms: int) -> bool:
        """Whether this process may sweep now (always, in one process)."""
        return True

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    def _arrived(self, user_id: int) -> None:
        self._gone.pop(user_id, None)

    def _departed(self, user_id: int) -> None:
        now = self._clock()
        self._gone[user_id] = now
        horizon = now - self._gone_keep
        while True:  # the oldest departures first (insertion order), amortised O(1)
            oldest = next(iter(self._gone.items()))
            if oldest[1] > horizon or oldest[0] == user_id:
                break
            del self._gone[oldest[0]]
