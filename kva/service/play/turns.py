"""Automatic turns: after each commit, a bot that is to act thinks (off the event loop) and
plays; a player with only a forced action (the game's :meth:`~kva.games.Game.forced_action`:
a Georgian draw or pass) gets it applied for them, one event each, after ``forced_delay``
seconds. The wait is the match's :attr:`~.scheduler.TimerKind.TURN` timer
(:mod:`kva.service.play.scheduler`)."""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Callable
from concurrent.futures import Executor
from functools import partial
from typing import Any

from kva.games import IllegalAction
from kva.service.errors import PlayError
from kva.service.play import bot_moves as bots
from kva.service.play.commit import Committer
from kva.service.play.events import action_source
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.scheduler import MatchSchedulers, TimerKind
from kva.status import MatchStatus

log = logging.getLogger(__name__)


class Turns:
    """The bot move or forced action due in each match: its :attr:`TimerKind.TURN` timer."""

    def __init__(
        self,
        store: LiveStore,
        committer: Committer,
        rng_factory: Callable[[], random.Random],
        bot_executor: Executor | None,
        schedulers: MatchSchedulers,
        *,
        forced_delay: float,
        bot_delay: float,
    ) -> None:
        self._store = store
        self._committer = committer
        self._rng_factory = rng_factory
        self._bot_executor = bot_executor
        self._schedulers = schedulers
        self.forced_delay = forced_delay
        self.bot_delay = bot_delay

    def busy(self, match_id: str) -> bool:
        """Whether a turn is scheduled for ``match_id`` (its copy must stay in memory)."""
        return self._schedulers.has(match_id, TimerKind.TURN)

    def schedule(self, live: LiveMatch) -> None:
        """Schedule the bot move or forced action that is due, if any. A turn already
        scheduled for this copy at this version goes on; one for a copy that was replaced
        (reloaded from the database) or an older version is replaced, since it would find its
        copy gone or moved on and not play: the new one plays instead."""
        match = live.match
        if match is None or live.status != MatchStatus.ACTIVE or live.over:
            return
        seat, forced = live.due()
        if seat is None:
            return
        bot = live.seats[seat].bot
        if bot is None and not forced:
            return
        delay = self.forced_delay if forced else self.bot_delay
        # Keyed by the copy and its version: a copy read again is a new object, whose turn is
        # set anew (the action reads the store's copy when it comes due, whichever it is).
        self._schedulers.of(live.id).set_in(
            TimerKind.TURN, delay, partial(self._auto_turn, live.id, live.version, bot, forced),
            key=(id(live), live.version))

    async def _auto_turn(self, match_id: str, version: int, bot: str | None,
                         forced: bool) -> None:
        """Play the forced action or the bot's choice, if the match is still at ``version``."""
        live = await self._store.get(match_id)
        match = live.match
        if match is None or live.version != version or live.over:
            return
        game = live.game
        seat = game.to_act(match)[0]
        action: Any
        if forced:
            action = game.forced_action(match, seat)
        else:
            assert bot is not None
            seed = self._rng_factory().getrandbits(63)
            try:
                action = await bots.choose(bot, live.play.bot_view(match, seat), seed,
                                           self._bot_executor, game=game.name)
            except Exception:  # a broken worker must not leave the match waiting forever
                log.exception("bot %s failed in match %s; it plays a random legal move", bot,
                              match_id)
                action = random.Random(seed).choice(game.legal_actions(match, seat))
        async with live.lock:
            current = await self._store.get(match_id)
            if current is not live or live.version != version or live.over:
                return
            mark = live.play.mark(match)
            try:
                game.apply(match, seat, action)
            except IllegalAction:  # as a broken worker: the match must not wait forever
                log.error("bot %s chose an illegal action %r in %s; it plays a random legal "
                          "move", bot, action, match_id)
                action = random.Random(version).choice(game.legal_actions(match, seat))
                game.apply(match, seat, action)
            live.logged(seat, action)
            with contextlib.suppress(PlayError):
                await self._committer.commit(
                    live, action_source(live.play, match, mark, seat, action), moved=True,
                    mark=mark)
