"""The time a service reads, behind one small interface.

Services that wait (a grace period, a timeout, a match's timers) ask a :class:`Clock` for the
time, for their sleeps and for their timers instead of calling :func:`time.time`,
:func:`time.monotonic`, :func:`asyncio.sleep` and ``loop.call_later`` themselves, so a test can
hand them a clock it moves by hand rather than wait in real time. Production code uses
:data:`SYSTEM_CLOCK`, the real time.

Two times are read: the wall time (:meth:`Clock.now`, epoch seconds), which every process
agrees on and which is stored, and the monotonic time (:meth:`Clock.monotonic`, seconds from
an arbitrary start), which never jumps and which timers are set on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final, Protocol


class Timer(Protocol):
    """A callback set to run later (:meth:`Clock.call_at`)."""

    def cancel(self) -> None:
        """Do not run it (nothing happens if it ran already)."""
        ...


class Clock(Protocol):
    """Where a service gets the time from."""

    def now(self) -> float:
        """The wall time, in epoch seconds."""
        ...

    def monotonic(self) -> float:
        """The monotonic time, in seconds: what :meth:`call_at` counts in."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed on this clock."""
        ...

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` (on the running event loop) once :meth:`monotonic` reaches
        ``when`` (at once, on the loop's next turn, if it has already)."""
        ...


class SystemClock:
    """The real time: :func:`time.time`, :func:`time.monotonic`, :func:`asyncio.sleep` and
    the event loop's timers."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        # The loop's own time need not be time.monotonic (another loop may count from
        # elsewhere): the delay left is what both agree on.
        delay = max(0.0, when - time.monotonic())
        return asyncio.get_running_loop().call_later(delay, callback)


def epoch_ms(clock: Clock) -> Callable[[], int]:
    """The wall time of ``clock`` in epoch milliseconds, as a function (the unit the match
    clocks store their deadlines in)."""
    if type(clock) is SystemClock:  # read on every action: one call, not three
        return _system_epoch_ms
    return lambda: int(clock.now() * 1000)


def _system_epoch_ms() -> int:
    """:func:`epoch_ms` of the system clock."""
    return int(time.time() * 1000)


#: The clock every service uses unless it is given another.
SYSTEM_CLOCK: Final[Clock] = SystemClock()
