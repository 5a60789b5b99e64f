"""Automatic turns: after each commit, a bot that is to act thinks (off the event loop) and
plays; a player with only a forced draw or pass gets it applied for them, one event each, after
``forced_delay`` seconds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from concurrent.futures import Executor
from functools import partial

from kva.rules import DRAW, PASS, IllegalAction, player_view
from kva.service import bots
from kva.service.errors import PlayError
from kva.service.events import action_event
from kva.service.play.commit import Committer
from kva.service.play.live import LiveMatch, LiveStore

log = logging.getLogger(__name__)


class Turns:
    """The bot move or forced action due in each match, one scheduled task per match."""

    def __init__(
        self,
        store: LiveStore,
        committer: Committer,
        rng_factory: Callable[[], random.Random],
        bot_executor: Executor | None,
        *,
        forced_delay: float,
        bot_delay: float,
    ) -> None:
        self._store = store
        self._committer = committer
        self._rng_factory = rng_factory
        self._bot_executor = bot_executor
        self.forced_delay = forced_delay
        self.bot_delay = bot_delay
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._stopping = False

    def busy(self, match_id: str) -> bool:
        """Whether a turn is scheduled for ``match_id`` (its copy must stay in memory)."""
        return match_id in self.tasks

    def schedule(self, live: LiveMatch) -> None:
        """Schedule the bot move or forced action that is due, if any."""
        match = live.match
        if self._stopping or match is None or live.status != "active" or match.over:
            return
        seat = match.turn
        assert seat is not None
        forced = match.legal_codes() in ([DRAW], [PASS])
        bot = live.seats[seat].bot
        if bot is None and not forced:
            return
        delay = self.forced_delay if forced else self.bot_delay
        previous = self.tasks.get(live.id)
        if previous is not None and not previous.done() and previous is not asyncio.current_task():
            previous.cancel()
        task = asyncio.create_task(self._auto_turn(live.id, live.version, bot, forced, delay),
                                   name=f"kva-turn-{live.id}-v{live.version}")
        self.tasks[live.id] = task
        task.add_done_callback(partial(self._task_done, live.id))

    def cancel(self, match_id: str) -> None:
        """Cancel the turn scheduled for ``match_id`` (another process serves it now)."""
        task = self.tasks.pop(match_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def stop(self) -> None:
        """Cancel scheduled turns (they resume on the next start)."""
        self._stopping = True
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.tasks.clear()

    def _task_done(self, match_id: str, task: asyncio.Task[None]) -> None:
        if self.tasks.get(match_id) is task:
            del self.tasks[match_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("automatic turn in match %s failed", match_id, exc_info=task.exception())

    async def _auto_turn(
        self, match_id: str, version: int, bot: str | None, forced: bool, delay: float
    ) -> None:
        """Play the forced action or the bot's choice, if the match is still at ``version``."""
        await asyncio.sleep(max(delay, 0))
        live = await self._store.get(match_id)
        match = live.match
        if match is None or live.version != version or match.over:
            return
        seat = match.turn
        assert seat is not None
        legal = match.legal_codes()
        if forced:
            code = legal[0]
        else:
            assert bot is not None
            seed = self._rng_factory().getrandbits(63)
            try:
                code = await bots.choose(bot, player_view(match, seat), seed, self._bot_executor)
            except Exception:  # a broken worker must not leave the match waiting forever
                log.exception("bot %s failed in match %s; it plays a random legal move", bot,
                              match_id)
                code = random.Random(seed).choice(legal)
        async with live.lock:
            current = await self._store.get(match_id)
            if current is not live or live.version != version or match.over:
                return
            hand_index = len(match.hands) - 1
            try:
                match.apply(code, player=seat)
            except IllegalAction:
                log.error("bot %s chose an illegal action %d in %s", bot, code, match_id)
                return
            with contextlib.suppress(PlayError):
                await self._committer.commit(
                    live, partial(action_event, match, hand_index), move_hand=hand_index)
