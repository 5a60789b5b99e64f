"""The timers of the match clocks this process runs (:mod:`kva.service.play.clock` is the
clock itself): one event-loop timer per match whose time runs, due at the clock's stored
deadline, so that a restart or a takeover keeps it. When it fires, the player whose time ran
out is flagged (a change made on the match's owner); a timer that fired early, since the event
loop's clock and the wall clock drift apart, is armed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from kva.service.errors import PlayError
from kva.service.play.live import LiveMatch, LiveStore

log = logging.getLogger(__name__)


class MatchClocks:
    """The running clock timer of each match this process serves, and the flags they start."""

    def __init__(
        self,
        store: LiveStore,
        now_ms: Callable[[], int],
        flag: Callable[[str, int], Awaitable[bool]],
        serves: Callable[[str], bool],
    ) -> None:
        """``now_ms``: the wall clock of the deadlines; ``flag``: flags the running player of
        a match still at that version, on its owner, and says whether it did; ``serves``:
        whether this process times a match (with owners, only its owner does)."""
        self._store = store
        self._now_ms = now_ms
        self._flag = flag
        self._serves = serves
        #: The timer of each match whose clock runs here.
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self._flagging: set[asyncio.Task[None]] = set()
        self._stopping = False

    def arm(self, live: LiveMatch) -> None:
        """(Re)arm the timer of the clock running in ``live``, at its stored deadline, or
        disarm it when no time runs."""
        self.disarm(live.id)
        clock = live.clock
        if (self._stopping or clock is None or clock.deadline is None
                or live.status != "active"):
            return
        delay = max(0, clock.deadline - self._now_ms()) / 1000
        loop = asyncio.get_running_loop()
        self.timers[live.id] = loop.call_later(delay, self._ran_out, live.id, live.version)

    def arm_loaded(self, live: LiveMatch) -> None:
        """A match was loaded here (one stored by another service, or dropped from memory and
        read again): its clock runs on, from the stored deadline, if this process serves it
        (with owners, a match newly taken is armed once it is taken up)."""
        if self._serves(live.id):
            self.arm(live)

    def disarm(self, match_id: str) -> None:
        timer = self.timers.pop(match_id, None)
        if timer is not None:
            timer.cancel()

    async def stop(self) -> None:
        """Disarm every timer and cancel the flags under way (the clocks resume from their
        stored deadlines on the next start)."""
        self._stopping = True
        for match_id in list(self.timers):
            self.disarm(match_id)
        tasks = list(self._flagging)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _ran_out(self, match_id: str, version: int) -> None:
        self.timers.pop(match_id, None)
        task = asyncio.create_task(self._flag_or_rearm(match_id, version),
                                   name=f"kva-clock-{match_id}-v{version}")
        self._flagging.add(task)
        task.add_done_callback(self._flagging.discard)

    async def _flag_or_rearm(self, match_id: str, version: int) -> None:
        """A clock's timer fired: flag its player, or, if the timer was early, arm it again."""
        try:
            if await self._flag(match_id, version):
                return
            live = self._store.live.get(match_id)
            if live is not None and live.version == version and self._serves(match_id):
                self.arm(live)
        except PlayError:  # the match moved on or ended meanwhile
            pass
        except Exception:
            log.exception("the clock of match %s could not be checked", match_id)
