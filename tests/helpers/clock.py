"""A clock that tests move by hand, for the services that take a
:class:`~kva.service.timekeeping.Clock`: a test says ``await clock.advance(60)`` where it
would otherwise wait a minute (or shrink the service's periods and still wait)."""

from __future__ import annotations

import asyncio
import heapq
import itertools


async def let_tasks_run(rounds: int = 5) -> None:
    """Yield to the loop a few times, so tasks that were just woken get to their next wait."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class FakeClock:
    """Time stands still until :meth:`advance` moves it; sleepers wake when their deadline is
    passed, in deadline order."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = start
        # (deadline, order of the call, the future its sleeper awaits): a heap by deadline,
        # ties broken by who slept first.
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:  # like asyncio.sleep(0): only a yield
            await asyncio.sleep(0)
            return
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), wake))
        await wake  # a cancelled sleeper leaves its future cancelled: advance skips it

    @property
    def sleeping(self) -> int:
        """How many sleepers wait for a later time."""
        return sum(1 for _d, _o, wake in self._sleepers if not wake.done())

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, waking each sleeper whose deadline comes by then (time
        reads its deadline while it runs) and letting the woken tasks run."""
        if seconds < 0:
            raise ValueError("time does not go back")
        await let_tasks_run()  # tasks started just now reach their sleep at the present time
        until = self._now + seconds
        while self._sleepers and self._sleepers[0][0] <= until:
            deadline, _order, wake = heapq.heappop(self._sleepers)
            self._now = max(self._now, deadline)
            if not wake.done():
                wake.set_result(None)
                await let_tasks_run()
        self._now = until
        await let_tasks_run()
