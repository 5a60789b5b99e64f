"""The time a service reads, behind one small interface.

Services that wait (a grace period, a timeout) ask a :class:`Clock` for the wall time and for
their sleeps instead of calling :func:`time.time` and :func:`asyncio.sleep` themselves, so a
test can hand them a clock it moves by hand rather than wait in real time. Production code
uses :data:`SYSTEM_CLOCK`, the real time.
"""

from __future__ import annotations

import asyncio
import time
from typing import Final, Protocol


class Clock(Protocol):
    """Where a service gets the time from."""

    def now(self) -> float:
        """The wall time, in epoch seconds."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed on this clock."""
        ...


class SystemClock:
    """The real time: :func:`time.time` and :func:`asyncio.sleep`."""

    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


#: The clock every service uses unless it is given another.
SYSTEM_CLOCK: Final[Clock] = SystemClock()
