"""A clock that tests move by hand, for the services that take a
:class:`~kva.service.timekeeping.Clock`: a test says ``await clock.advance(60)`` where it
would otherwise wait a minute (or shrink the service's periods and still wait)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable


async def let_tasks_run(rounds: int = 5) -> None:
    """Yield to the loop a few times, so tasks that were just woken get to their next wait."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class FakeTimer:
    """A callback :class:`FakeClock` runs when time reaches its deadline, unless cancelled."""

    __slots__ = ("callback", "done")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        #: Ran or cancelled: it will not run (again).
        self.done = False

    def cancel(self) -> None:
        self.done = True


class FakeClock:
    """Time stands still until :meth:`advance` moves it; timers run and sleepers wake when
    their deadline is passed, in deadline order (ties: the one set first)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._start = start
        self._now = start
        # (deadline in wall time, order of the call, its timer): a heap by deadline.
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        """Seconds since the clock was made (a monotonic clock starts anywhere)."""
        return self._now - self._start

    def call_at(self, when: float, callback: Callable[[], None]) -> FakeTimer | asyncio.Handle:
        """Run ``callback`` once :meth:`advance` reaches ``when``; one due already runs on
        the loop's next turn, as a real clock's would (a forced move with no pause, say)."""
        if when <= self.monotonic():
            return asyncio.get_running_loop().call_soon(callback)
        timer = FakeTimer(callback)
        heapq.heappush(self._timers, (self._start + when, next(self._order), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:  # like asyncio.sleep(0): only a yield
            await asyncio.sleep(0)
            return
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = FakeTimer(lambda: None if wake.done() else wake.set_result(None))
        heapq.heappush(self._timers, (self._now + seconds, next(self._order), timer))
        try:
            await wake
        finally:  # a cancelled sleeper leaves nothing due
            timer.cancel()

    @property
    def sleeping(self) -> int:
        """How many timers and sleepers wait for a later time."""
        return sum(1 for _d, _o, timer in self._timers if not timer.done)

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, running each timer (and waking each sleeper) whose
        deadline comes by then, in deadline order (time reads its deadline while it runs), and
        letting the tasks they start or wake run."""
        if seconds < 0:
            raise ValueError("time does not go back")
        await let_tasks_run()  # tasks started just now reach their sleep at the present time
        until = self._now + seconds
        while self._timers and self._timers[0][0] <= until:
            deadline, _order, timer = heapq.heappop(self._timers)
            self._now = max(self._now, deadline)
            if not timer.done:
                timer.done = True
                timer.callback()
                await let_tasks_run()
        self._now = until
        await let_tasks_run()
