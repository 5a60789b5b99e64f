"""The timers of the match clocks this process runs (:mod:`kva.service.play.clock` is the
clock itself): each match whose time runs has a :attr:`~.scheduler.TimerKind.CLOCK` timer
(:mod:`kva.service.play.scheduler`), due at the clock's stored deadline, so that a restart or
a takeover keeps it. When it fires, the player whose time ran out is flagged (a change made on
the match's owner); a timer that fired early, since the scheduler's monotonic clock and the
wall clock of the deadlines drift apart, is set again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from kva.service.errors import PlayError
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.scheduler import MatchSchedulers, TimerKind
from kva.status import MatchStatus

log = logging.getLogger(__name__)


class MatchClocks:
    """Sets the clock timer of each match this process serves, and flags when it fires."""

    def __init__(
        self,
        store: LiveStore,
        schedulers: MatchSchedulers,
        flag: Callable[[str, int], Awaitable[bool]],
        serves: Callable[[str], bool],
    ) -> None:
        """``schedulers``: where the timers are set (its clock turns the wall-clock deadlines
        into its own time); ``flag``: flags the running player of a match still at that
        version, on its owner, and says whether it did; ``serves``: whether this process
        times a match (with owners, only its owner does)."""
        self._store = store
        self._schedulers = schedulers
        self._flag = flag
        self._serves = serves

    def arm(self, live: LiveMatch) -> None:
        """(Re)arm the timer of the clock running in ``live``, at its stored deadline, or
        disarm it when no time runs."""
        clock = live.clock
        if clock is None or clock.deadline is None or live.status != MatchStatus.ACTIVE:
            self._schedulers.cancel(live.id, TimerKind.CLOCK)
            return
        at = self._schedulers.at_wall_ms(clock.deadline)
        version = live.version
        self._schedulers.of(live.id).set(
            TimerKind.CLOCK, at, lambda: self._flag_or_rearm(live.id, version))

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
