"""An outage never decides a game (docs/rules.md, "Time control").

A clock's deadline is an absolute time, so without this the time a server was down would be
charged to the player on turn. Each process writes when it is alive (``process_alive``) every
:data:`INTERVAL_S` seconds, and once more, marked stopped, when it stops; a running deadline
carries the id of the process that set it (the clock's ``by``). When a process takes up a
match (a start, a takeover, a copy read again) whose deadline another process set, the time
since that process was last known alive is the time no process served the match, and the
deadline moves forward by it (:func:`outage_ms`). The process that takes the match up records
the deadline it moved and itself (``match_takeovers``), so that the same outage is never
given twice and the time it serves the match is not taken for another outage later.

Write cost: one row per process per interval, and one per match taken up with its clock
running; nothing per move (the process id rides in the journal row the move writes anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.play.live import LiveMatch
from kva.service.timekeeping import SYSTEM_CLOCK, Clock
from kva.status import MatchStatus
from kva.storage import liveness

log = logging.getLogger(__name__)

#: Seconds between a process's liveness writes (the most an outage can cost a player).
INTERVAL_S = 2.0
#: A process row not written for this long (ms) is dropped when a process starts.
FORGET_AFTER_MS = 30 * 24 * 3600 * 1000


def outage_ms(alive_at: int, stopped: bool, now: int, interval_ms: int) -> int:
    """How long no process has served a match whose last server was last alive at
    ``alive_at``: since then if it stopped then; if it died, since up to ``interval_ms`` later
    (its next write, which never came): the lower bound, so nobody gets time they did not
    lose, and a server still alive (its last write is at most an interval old) costs none."""
    return max(0, now - alive_at - (0 if stopped else interval_ms))


class Liveness:
    """This process's liveness writes, and the give-back of an outage on taking a match up."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], process_id: str,
                 now_ms: Callable[[], int], interval_s: float = INTERVAL_S,
                 time: Clock = SYSTEM_CLOCK) -> None:
        """``process_id``: this process, new at every start; ``now_ms``: the wall clock of
        the match clocks; ``time``: what the writes sleep on between them (tests: a fake)."""
        self._sessions = sessions
        self.me = process_id
        self._now_ms = now_ms
        self.interval_s = interval_s
        self._time = time
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Say this process is alive (before it resumes any match), and go on saying it."""
        async with self._sessions() as session, session.begin():
            await liveness.forget_alive(session, self._now_ms() - FORGET_AFTER_MS)
            await liveness.set_alive(session, self.me, self._now_ms())
        self._task = asyncio.create_task(self._beat(), name="kva-liveness")

    async def stop(self) -> None:
        """Say this process stops now: the time until a process takes its matches up is
        given back in full."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        try:
            await self.alive(stopped=True)
        except Exception:  # it is taken for dead an interval after its last write instead
            log.exception("writing that this process stops failed")

    async def alive(self, *, stopped: bool = False) -> None:
        async with self._sessions() as session, session.begin():
            await liveness.set_alive(session, self.me, self._now_ms(), stopped=stopped)

    async def _beat(self) -> None:
        while True:
            await self._time.sleep(self.interval_s)
            try:
                await self.alive()
            except Exception:
                log.exception("writing this process's liveness failed")

    async def restore(self, session: AsyncSession, live: LiveMatch, *, serving: bool) -> None:
        """``live`` was just read from the database in ``session``: if its deadline was set
        (or last moved) by another process, move it forward by the time no process served
        the match; if this process serves it, record the takeover (committed here)."""
        clock = live.clock
        if clock is None or clock.deadline is None or live.status != MatchStatus.ACTIVE:
            return
        taken = await liveness.get_takeover(session, live.id)
        if taken is not None and taken.version == live.version:
            clock.deadline, clock.by = taken.deadline, taken.process_id
        by = clock.by
        if by is None or by == self.me:
            return
        last = await liveness.get_alive(session, by)
        if last is not None:
            clock.give_back(outage_ms(last.alive_at, last.stopped, self._now_ms(),
                                      round(self.interval_s * 1000)))
        if serving:
            clock.by = self.me
            await liveness.set_takeover(session, live.id, liveness.Takeover(
                self.me, live.version, clock.deadline))
            await session.commit()
