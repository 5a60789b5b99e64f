"""Time control (docs/rules.md, "Time control"): each player has a per-move time and a reserve.

On their turn a player first spends the per-move time; once it is gone the reserve drains, and
it never refills. A player whose reserve reaches 0 on their turn loses the match on time. The
clock runs only while a person has a real choice: a bot's turn, and a draw or pass the server
applies because nothing else is legal, cost nobody anything; the first turn of a new hand
starts :data:`HAND_PAUSE_MS` later (the hand's result is on show meanwhile).

The state is kept with the match: ``meta.clock`` of the record (written with every checkpoint)
and the ``c`` key of every journal row (:mod:`kva.storage.journal`), in the same write as the
move, so a restarted server, or another process taking the match over, resumes the clock with
the same deadline, an absolute wall-clock time in epoch milliseconds. With the deadline goes
the id of the process that set it (``by``): a process that takes the match up after that one
stopped or died moves the deadline forward by the time no process served the match
(:mod:`kva.service.play.liveness`), so an outage costs nobody time.

A match with no clock (preset ``none``) keeps one rule of it: a player who has not yet made a
move of their own in the match has ``KVA_FIRST_MOVE_TIMEOUT`` seconds on their turn (no
reserve) and loses on time (``timeout``) after them; once they have moved, their time never
runs again. It is kept, shown and enforced exactly like a clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from kva.settings.clocks import PRESETS

#: The preset of a table with no clock (casual tables only: against a bot, or a friend).
NO_CLOCK: Final = "none"
#: Every preset a table may be created with, the default first.
CLOCK_CHOICES: Final[tuple[str, ...]] = ("standard", "blitz", "relaxed", NO_CLOCK)
#: A quick game's, and any person-against-person table's, clock unless another is chosen.
DEFAULT_CLOCK: Final = "standard"
#: Extra time before the first turn of each new hand starts running (the result is shown).
HAND_PAUSE_MS: Final = 10_000


def clock_preset(record: Any) -> str:
    """The clock preset a stored record's ``meta.clock`` names (``none`` if it has none)."""
    meta = record.get("meta") if isinstance(record, dict) else None
    clock = meta.get("clock") if isinstance(meta, dict) else None
    preset = clock.get("preset") if isinstance(clock, dict) else None
    return preset if isinstance(preset, str) and preset in PRESETS else NO_CLOCK


def _seconds(ms: int) -> int | float:
    """Milliseconds as seconds in a record (whole seconds as an integer)."""
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def _ms(seconds: object) -> int | None:
    """Seconds from a record as milliseconds (None: not a number of seconds)."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
        return None
    return round(seconds * 1000)


def now_ms() -> int:
    """The wall-clock time in epoch milliseconds (every server process agrees on it)."""
    return int(time.time() * 1000)


def check_clock(preset: str | None, *, casual: bool, default: str = DEFAULT_CLOCK) -> str:
    """The preset a new table gets: ``preset`` checked (None or empty: ``default``).
    ValueError names a bad choice; ``none`` only for a ``casual`` table (not rated, no coin
    stake, not a quick game)."""
    if preset is None or preset == "":
        preset = default
    if preset not in CLOCK_CHOICES:
        raise ValueError(f"clock must be one of {', '.join(CLOCK_CHOICES)}")
    if preset == NO_CLOCK and not casual:
        raise ValueError("rated, coin and quick-game matches always have a clock")
    return preset


@dataclass(slots=True)
class Clock:
    """One match's clock: the preset, each seat's reserve left (ms), and the seat whose time
    runs with its deadline (epoch ms), or none. ``flagged``: the seat that lost on time."""

    preset: str
    left: list[int]
    #: The preset's times when the match started (a preset changed later changes nothing).
    per_move_ms: int = 0
    reserve_ms: int = 0
    seat: int | None = None
    deadline: int | None = None
    flagged: int | None = None
    #: Whether each seat has made a move of its own (a ``none`` clock runs only until then).
    moved: list[bool] = field(default_factory=lambda: [False, False])
    #: The process serving the match when the running deadline was set (None: none runs,
    #: or it is not known).
    by: str | None = None
    #: The wall clock it is read with (the play service's: tests inject a fake one).
    wall: Callable[[], int] = field(default=now_ms, compare=False, repr=False)

    @classmethod
    def new(cls, preset: str, wall: Callable[[], int] = now_ms,
            presets: dict[str, tuple[int, int]] = PRESETS, seats: int = 2) -> Clock | None:
        """A fresh clock of ``seats`` seats for ``preset`` with the times ``presets`` give it
        (None for ``none``: see :meth:`first_move`)."""
        if preset not in presets:
            return None
        move, reserve = presets[preset]
        return cls(preset, [reserve * 1000] * seats, move * 1000, reserve * 1000,
                   moved=[False] * seats, wall=wall)

    @classmethod
    def first_move(cls, seconds: float, wall: Callable[[], int] = now_ms,
                   seats: int = 2) -> Clock:
        """The ``none`` clock of ``seats`` seats: ``seconds`` for each player's turns until
        their first move."""
        return cls(NO_CLOCK, [0] * seats, round(seconds * 1000), 0, moved=[False] * seats,
                   wall=wall)

    @property
    def first_move_only(self) -> bool:
        """Whether this is the ``none`` clock (only a player's first move is timed)."""
        return self.preset == NO_CLOCK

    @classmethod
    def from_meta(cls, meta: Any, wall: Callable[[], int] = now_ms) -> Clock | None:
        """The clock ``meta.clock`` of a record describes (None: none, or not readable)."""
        if not isinstance(meta, dict) or meta.get("preset") not in (*PRESETS, NO_CLOCK):
            return None
        preset = str(meta["preset"])
        move, reserve = _ms(meta.get("per_move")), _ms(meta.get("reserve"))
        if move is None or reserve is None:
            if preset == NO_CLOCK:
                return None
            move, reserve = (1000 * v for v in PRESETS[preset])
        left = meta.get("left")
        # as many seats as the stored times name (a record of two seats: two)
        seats = len(left) if isinstance(left, list) and len(left) >= 2 else 2
        clock = cls(preset, [reserve] * seats, move, reserve, moved=[False] * seats, wall=wall)
        moved = meta.get("moved")
        if isinstance(moved, list) and len(moved) == seats:
            clock.moved = [v is True for v in moved]
        if isinstance(left, list) and len(left) == seats and all(
                isinstance(v, int) for v in left):
            clock.left = [int(v) for v in left]
        seat, deadline = meta.get("seat"), meta.get("deadline")
        if isinstance(seat, int) and 0 <= seat < seats and isinstance(deadline, int):
            clock.seat, clock.deadline = int(seat), int(deadline)
            by = meta.get("by")
            clock.by = by if isinstance(by, str) else None
        flagged = meta.get("flagged")
        clock.flagged = (int(flagged) if isinstance(flagged, int) and 0 <= flagged < seats
                         else None)
        return clock

    def state(self) -> dict[str, Any]:
        """What changes as the match goes on: a journal row's ``c``."""
        state: dict[str, Any] = {"left": list(self.left), "seat": self.seat,
                                 "deadline": self.deadline, "by": self.by}
        if self.flagged is not None:
            state["flagged"] = self.flagged
        if self.first_move_only:
            state["moved"] = list(self.moved)
        return state

    def meta(self) -> dict[str, Any]:
        """``meta.clock`` of the record (``per_move`` and ``reserve`` in seconds)."""
        return {"preset": self.preset, "per_move": _seconds(self.per_move_ms),
                "reserve": _seconds(self.reserve_ms), **self.state()}

    def remaining(self, now: int) -> int:
        """Milliseconds left to the running seat (its per-move time and reserve), 0 if none."""
        if self.deadline is None:
            return 0
        return max(0, self.deadline - now)

    def expired(self, now: int) -> bool:
        """Whether the running seat's time is up."""
        return self.deadline is not None and now >= self.deadline

    def stop(self, now: int) -> None:
        """The running seat's turn ends now (it moved: only a player whose time runs has a
        choice to make): what it overran the per-move time by comes off its reserve (which
        never grows), and no time runs."""
        if self.seat is not None and self.deadline is not None:
            self.left[self.seat] = min(self.left[self.seat], max(0, self.deadline - now))
            self.moved[self.seat] = True
        self.seat = self.deadline = self.by = None

    def advance(self, seat: int | None, human: Sequence[bool], forced: bool, now: int, *,
                new_hand: bool = False, by: str | None = None) -> None:
        """A change was just made: stop the time that ran, and start the turn of ``seat`` (the
        seat now to act in an active match; None: nobody) if its player is a person
        (``human[seat]``) with a real choice (not ``forced``: the server plays a forced
        action at once, and it costs nothing), the hand's first turn after
        :data:`HAND_PAUSE_MS` when ``new_hand``, timed by the process ``by``."""
        self.stop(now)
        if seat is None or not human[seat]:
            return
        if self.first_move_only and self.moved[seat]:
            return  # no clock: only a player's first move is timed
        if forced:
            return  # forced: the server plays it at once, and it costs nothing
        pause = HAND_PAUSE_MS if new_hand else 0
        self.seat = seat
        self.deadline = now + pause + self.per_move_ms + self.left[seat]
        self.by = by

    def give_back(self, ms: int) -> None:
        """No process served the match for ``ms`` while this time ran: its deadline moves
        that much later (the player on turn keeps the time they had)."""
        if self.deadline is not None:
            self.deadline += max(0, ms)

    def flag(self, now: int) -> int:
        """The running seat has lost on time: its reserve is 0 and it is ``flagged``."""
        seat = self.seat
        assert seat is not None, "no time runs"
        self.left[seat] = 0
        self.seat = self.deadline = self.by = None
        self.flagged = seat
        return seat

    def public(self, now: int) -> dict[str, Any]:
        """The ``clock`` of a ``state`` message: the milliseconds left to the running seat
        *at send time* (``running_ms``: never an absolute time, so a viewer's wrong clock does
        not matter), of which the first ``move_ms`` are its per-move time."""
        running = self.remaining(now)
        move_ms = 0
        if self.seat is not None:
            move_ms = max(0, running - self.left[self.seat])
        return {"preset": self.preset, "per_move": _seconds(self.per_move_ms),
                "reserve_s": _seconds(self.reserve_ms),
                "left": list(self.left), "seat": self.seat, "running_ms": running,
                "move_ms": move_ms, "flagged": self.flagged}


__all__ = ["CLOCK_CHOICES", "DEFAULT_CLOCK", "HAND_PAUSE_MS", "NO_CLOCK", "Clock", "check_clock",
           "clock_preset", "now_ms"]
