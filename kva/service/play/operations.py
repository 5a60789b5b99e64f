"""The work of the matches this process serves, as the match router asks for it: each change
made by the part whose job it is, and the automatic work (turns, seed waits, clock timers)
resumed when this process takes a match up and halted when it gives one away."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, assert_never

from kva.service.play.acting import Acting
from kva.service.play.clock_timers import MatchClocks
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.routing import Change
from kva.service.play.seeds import Seeds
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns


class PlayOperations:
    """The :class:`~kva.service.play.routing.LocalOperations` of the play service."""

    def __init__(
        self, store: LiveStore, acting: Acting, seeds: Seeds, tables: Tables, turns: Turns,
        clocks: MatchClocks,
    ) -> None:
        self._store = store
        self._acting = acting
        self._seeds = seeds
        self._tables = tables
        self._turns = turns
        self._clocks = clocks

    async def run(self, change: Change, match_id: str, args: Sequence[Any]) -> Any:
        """Make ``change`` here (``args``: those of the play service's method after the
        match id, as a forwarded request carries them)."""
        match change:
            case Change.ACT:
                return await self._acting.act(match_id, *args)
            case Change.RESIGN:
                return await self._acting.resign(match_id, *args)
            case Change.FORFEIT:
                return await self._acting.forfeit(match_id, *args)
            case Change.FLAG:
                return await self._acting.flag(match_id, *args)
            case Change.SEED:
                return await self._seeds.seed(match_id, *args)
            case Change.CANCEL:
                return await self._tables.cancel_waiting(match_id, *args)
            case Change.SEAT:
                return await self._tables.seat_player(match_id, *args)
            case _:
                assert_never(change)

    async def activate(self, match_id: str) -> None:
        await self._tables.activate(match_id)

    def resume(self, live: LiveMatch) -> None:
        self._turns.schedule(live)
        self._seeds.schedule(live)
        self._clocks.arm(live)

    def halt(self, match_id: str) -> None:
        self._turns.cancel(match_id)
        self._seeds.cancel(match_id)
        self._clocks.disarm(match_id)
        self._store.forget(match_id)
