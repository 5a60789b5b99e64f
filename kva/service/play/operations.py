"""The work of the matches this process serves, as the match router asks for it: each command
made by the part whose job it is, and the automatic work (turns, seed waits, clock timers: the
match's timers, :mod:`kva.service.play.scheduler`) resumed when this process takes a match up
or changes it, and cancelled when the match ends or this process gives it away."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from kva.service.play.acting import Acting
from kva.service.play.clock_timers import MatchClocks
from kva.service.play.commands import (
    Abort,
    Act,
    Cancel,
    Command,
    Flag,
    Forfeit,
    LeaveSeat,
    Resign,
    ResultT,
    SeatBot,
    SeatPlayer,
    Seed,
)
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.scheduler import MatchSchedulers
from kva.service.play.seeds import Seeds
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns


class PlayOperations:
    """The :class:`~kva.service.play.routing.LocalOperations` of the play service."""

    def __init__(
        self, store: LiveStore, acting: Acting, seeds: Seeds, tables: Tables, turns: Turns,
        clocks: MatchClocks, schedulers: MatchSchedulers,
    ) -> None:
        self._store = store
        self._acting = acting
        self._seeds = seeds
        self._tables = tables
        self._turns = turns
        self._clocks = clocks
        self._schedulers = schedulers
        self._makers = self._dispatch()

    def run(self, command: Command[ResultT]) -> Coroutine[Any, Any, ResultT]:
        """Make ``command``'s change here, by the part whose job it is; its result (awaited).
        An action's is :meth:`Acting.act`'s own coroutine: no frame of this module stays in
        the chain it suspends through."""
        make = self._makers.get(type(command))
        if make is None:
            raise TypeError(f"{type(command).__name__} is not a command of a live match")
        return make(command)

    def _dispatch(self) -> dict[type[Command[Any]], Callable[[Any], Coroutine[Any, Any, Any]]]:
        """Each command's maker, by its exact class: a dictionary, since a command passes
        here on every action and a chain of type tests would cost each later kind more."""
        acting, seeds, tables = self._acting, self._seeds, self._tables

        def act(c: Act) -> Coroutine[Any, Any, None]:
            return acting.act(c.match_id, c.user_id, c.version, c.action, c.player_session)

        async def resign(c: Resign) -> None:
            await acting.resign(c.match_id, c.user_id)

        async def abort(c: Abort) -> None:
            await acting.abort(c.match_id, c.user_id)

        async def forfeit(c: Forfeit) -> None:
            await acting.forfeit(c.match_id, c.seat, c.reason, c.expected_version)

        async def flag(c: Flag) -> bool:
            return c.result(await acting.flag(c.match_id, c.expected_version))

        async def seed(c: Seed) -> None:
            await seeds.seed(c.match_id, c.user_id, c.value)

        async def cancel(c: Cancel) -> bool:
            return c.result(await tables.cancel_waiting(c.match_id, c.user_id))

        async def seat_player(c: SeatPlayer) -> object:
            return c.result(await tables.seat_player(c.match_id, c.user_id, c.nickname))

        async def seat_bot(c: SeatBot) -> object:
            return c.result(await tables.seat_bot(c.match_id, c.user_id, c.level))

        async def leave_seat(c: LeaveSeat) -> object:
            return c.result(await tables.leave_seat(c.match_id, c.user_id))

        return {Act: act, Resign: resign, Abort: abort, Forfeit: forfeit, Flag: flag,
                Seed: seed, Cancel: cancel, SeatPlayer: seat_player, SeatBot: seat_bot,
                LeaveSeat: leave_seat}

    async def activate(self, match_id: str) -> None:
        await self._tables.activate(match_id)

    def resume(self, live: LiveMatch) -> None:
        self._turns.schedule(live)
        self._seeds.schedule(live)
        self._clocks.arm(live)
        if live.status.over:  # nothing is due in it any more
            self._schedulers.cancel_all(live.id)

    def halt(self, match_id: str) -> None:
        self._seeds.cancel(match_id)
        self._schedulers.cancel_all(match_id)
        self._store.forget(match_id)
