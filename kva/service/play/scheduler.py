"""Every timer of a live match, in one place, on one injected clock.

Each live match with a timer here has one :class:`MatchScheduler`, which holds at most one timer
of each :class:`TimerKind`: the automatic turn (a bot's move or a forced draw or pass), the
wait for the players' client seeds, the flag of the running clock, and the first-move timeout
of a match stored before clocks. Setting a timer of a kind replaces the one of that kind; when
the match ends or another process takes it over, :meth:`MatchScheduler.cancel_all` drops them
all. :class:`MatchSchedulers` is the registry of the schedulers of the matches that have a
timer here (a scheduler left with none is dropped, so the registry follows the live matches).

Time convention: every deadline here is a time of the clock's
:meth:`~kva.service.timekeeping.Clock.monotonic` seconds. The deadline of a match clock is
stored as wall-clock epoch milliseconds (it must survive a restart and mean the same on every
process); :meth:`MatchSchedulers.at_wall_ms` is the one place that turns it into a monotonic
deadline. A timer's action runs as a task of its own once its deadline comes; until it is
done it still holds its kind: setting a timer of that kind meanwhile, or cancelling it,
cancels the action too, unless the action is the task asking (it then runs to its end, and
its own checks of the match's version see that the match moved on).

The clock is the play service's (:class:`~kva.service.timekeeping.Clock`): tests hand it a
fake one and move time by hand, so nothing waits in real time for a timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kva.service.timekeeping import Clock, Timer

log = logging.getLogger(__name__)


class TimerKind(StrEnum):
    """The timers a match may have, at most one of each at a time."""

    #: The automatic turn due: a bot's move, or a draw or pass the player is forced to make
    #: (only one seat is on turn, so only one of them is ever due).
    TURN = "turn"
    #: The end of the wait for a seated player's client seed (:mod:`.seeds`).
    SEED = "seed"
    #: The running player's time runs out (:mod:`.clock_timers`).
    CLOCK = "clock"
    #: A match stored before clocks: the first-move timeout (:mod:`kva.service.play.presence`).
    FIRST_MOVE = "first_move"


#: What a timer does when it comes due (it runs as a task of its own).
Action = Callable[[], Coroutine[Any, Any, None]]


@dataclass(slots=True, eq=False)
class _Entry:
    """One timer: its deadline and action, the clock's timer until it comes due, then the
    task that runs the action."""

    kind: TimerKind
    at: float
    action: Action
    key: Hashable | None
    timer: Timer | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def cancel(self) -> None:
        """Cancel the timer, or the action under way unless it is the task asking."""
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()


class MatchScheduler:
    """The timers of one match, one per :class:`TimerKind`."""

    def __init__(self, match_id: str, clock: Clock,
                 changed: Callable[[MatchScheduler], None] | None = None) -> None:
        """``changed``: called when a timer is set or the last one is gone (the registry
        holds the scheduler while it has a timer)."""
        self.match_id = match_id
        self._clock = clock
        self._changed = changed
        self._entries: dict[TimerKind, _Entry] = {}
        #: Set no timer any more (the service stops).
        self.closed = False

    def __bool__(self) -> bool:
        """Whether a timer is set or an action under way."""
        return bool(self._entries)

    def set(self, kind: TimerKind, at: float, action: Action, *,
            key: Hashable | None = None) -> bool:
        """Run ``action`` at ``at`` (the clock's monotonic seconds; at once if that is past),
        replacing the timer of ``kind``. With ``key``, a timer of ``kind`` set with an equal
        key and not done yet is kept instead (it is already the one due). Whether it was set
        (never once :attr:`closed`)."""
        if self.closed:
            return False
        current = self._entries.get(kind)
        if current is not None:
            if key is not None and current.key == key:
                return False
            current.cancel()
        entry = _Entry(kind, at, action, key)
        self._entries[kind] = entry
        entry.timer = self._clock.call_at(at, lambda: self._fire(entry))
        if current is None:  # the registry only cares when the first timer is set
            self._notify()
        return True

    def set_in(self, kind: TimerKind, seconds: float, action: Action, *,
               key: Hashable | None = None) -> bool:
        """:meth:`set`, ``seconds`` from now."""
        return self.set(kind, self._clock.monotonic() + max(0.0, seconds), action, key=key)

    def has(self, kind: TimerKind) -> bool:
        """Whether a timer of ``kind`` is set or its action is under way."""
        return kind in self._entries

    def when(self, kind: TimerKind) -> float | None:
        """The deadline of the timer of ``kind`` (monotonic seconds), None if there is none."""
        entry = self._entries.get(kind)
        return entry.at if entry is not None else None

    def cancel(self, kind: TimerKind) -> None:
        """Cancel the timer of ``kind``, or its action under way (unless it is the task
        asking: it runs to its end, and its own checks see that the match moved on)."""
        entry = self._entries.pop(kind, None)
        if entry is not None:
            entry.cancel()
            if not self._entries:  # the registry only cares when the last one is gone
                self._notify()

    def cancel_all(self) -> None:
        """Cancel every timer of the match (it ended, or another process serves it now)."""
        entries = list(self._entries.values())
        self._entries.clear()
        for entry in entries:
            entry.cancel()
        self._notify()

    def tasks(self) -> list[asyncio.Task[None]]:
        """The actions under way."""
        return [e.task for e in self._entries.values() if e.task is not None]

    def _fire(self, entry: _Entry) -> None:
        entry.timer = None
        if self._entries.get(entry.kind) is not entry:
            return  # replaced or cancelled as it came due
        entry.task = asyncio.create_task(entry.action(),
                                         name=f"kva-{entry.kind}-{self.match_id}")
        entry.task.add_done_callback(lambda task: self._done(entry, task))

    def _done(self, entry: _Entry, task: asyncio.Task[None]) -> None:
        if self._entries.get(entry.kind) is entry:
            del self._entries[entry.kind]
            self._notify()
        if not task.cancelled() and task.exception() is not None:
            log.error("the %s timer of match %s failed", entry.kind, self.match_id,
                      exc_info=task.exception())

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed(self)


class MatchSchedulers:
    """The :class:`MatchScheduler` of each match with a timer here, all on one clock."""

    def __init__(self, clock: Clock, wall_ms: Callable[[], int]) -> None:
        """``wall_ms``: the wall clock (epoch ms) the match clocks' deadlines are stored in."""
        self.clock = clock
        self.wall_ms = wall_ms
        #: The schedulers with a timer set or an action under way.
        self._schedulers: dict[str, MatchScheduler] = {}
        self._stopping = False

    def of(self, match_id: str) -> MatchScheduler:
        """The scheduler of ``match_id`` (a new one if it has no timer; once the service
        stops, a :attr:`~MatchScheduler.closed` one, which sets none)."""
        scheduler = self._schedulers.get(match_id)
        if scheduler is None:
            scheduler = MatchScheduler(match_id, self.clock, self._changed)
            scheduler.closed = self._stopping
        return scheduler

    def get(self, match_id: str) -> MatchScheduler | None:
        """The scheduler of ``match_id`` if it has a timer."""
        return self._schedulers.get(match_id)

    @property
    def stopping(self) -> bool:
        """Whether the service stops: no timer is set any more."""
        return self._stopping

    def has(self, match_id: str, kind: TimerKind) -> bool:
        """Whether ``match_id`` has a timer of ``kind`` set, or its action under way."""
        scheduler = self._schedulers.get(match_id)
        return scheduler is not None and scheduler.has(kind)

    def cancel(self, match_id: str, kind: TimerKind) -> None:
        """Cancel the timer of ``kind`` of ``match_id`` (:meth:`MatchScheduler.cancel`)."""
        scheduler = self._schedulers.get(match_id)
        if scheduler is not None:
            scheduler.cancel(kind)

    def cancel_all(self, match_id: str) -> None:
        """Cancel every timer of ``match_id`` (over, or served by another process now)."""
        scheduler = self._schedulers.get(match_id)
        if scheduler is not None:
            scheduler.cancel_all()

    def cancel_everywhere(self, kind: TimerKind) -> None:
        """Cancel the timer of ``kind`` of every match (the feature that sets it stops)."""
        for scheduler in list(self._schedulers.values()):
            scheduler.cancel(kind)

    def at_wall_ms(self, deadline_ms: int) -> float:
        """The monotonic time (seconds) of a wall-clock deadline in epoch milliseconds: the
        one place the stored deadlines of the match clocks become times of this clock."""
        return self.clock.monotonic() + max(0, deadline_ms - self.wall_ms()) / 1000

    def __len__(self) -> int:
        return len(self._schedulers)

    async def stop(self) -> None:
        """Cancel every timer and the actions under way, and set no more (they are set again
        from the stored matches on the next start)."""
        self._stopping = True
        schedulers = list(self._schedulers.values())
        tasks = [task for s in schedulers for task in s.tasks()]
        for scheduler in schedulers:
            scheduler.closed = True
            scheduler.cancel_all()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _changed(self, scheduler: MatchScheduler) -> None:
        """Hold ``scheduler`` while it has a timer; drop it once it has none."""
        held = self._schedulers.get(scheduler.match_id)
        if scheduler:
            if held is None:
                self._schedulers[scheduler.match_id] = scheduler
        elif held is scheduler:
            del self._schedulers[scheduler.match_id]
