"""Bot turns for the play service: the bots of each game and the levels offered on the site,
decided off the event loop.

:data:`BOTS_BY_GAME` names, for each game (by its :mod:`kva.games` name), the levels a seat
may be given and how such a bot decides; a game with no entry has no bots. A bot sees only its
player's view (the game's :meth:`~kva.games.LivePlay.bot_view`). The Georgian bots decide
through :func:`kva.bots.runner.choose_in_executor`. :func:`make_executor` builds the server's
worker pool: *spawned* processes (a forked worker would inherit the server's sockets and, after
a ``kill -9``, keep its port and its clients' connections open) that exit by themselves when
the server is gone.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from kva.bots import BOTS, PLAYER_LEVELS
from kva.bots.kozel import KOZEL_BOTS, KozelBot, make_kozel_bot
from kva.bots.runner import choose_in_executor


@dataclass(frozen=True, slots=True)
class GameBots:
    """The bots of one game: the levels offered, and how the bot of a level picks an action
    from its view and a seed (in ``executor``, off the event loop)."""

    levels: tuple[str, ...]
    decide: Callable[[str, Any, int, Executor | None], Awaitable[Any]]


async def _georgian(level: str, view: Any, seed: int, executor: Executor | None) -> Any:
    if level not in BOTS:
        raise ValueError(f"unknown bot level {level!r}")
    return await choose_in_executor(level, view, seed, executor=executor)


#: The Kozel bots of this process, made once per level (a worker reuses its bots).
_kozel_bots: dict[str, KozelBot] = {}


def decide_kozel(level: str, view: Any, seed: int) -> int:
    """One Kozel bot's decision, synchronously: the function a worker runs."""
    bot = _kozel_bots.get(level)
    if bot is None:
        bot = _kozel_bots[level] = make_kozel_bot(level)
    return bot.choose(view, random.Random(seed))


async def _kozel(level: str, view: Any, seed: int, executor: Executor | None) -> Any:
    if executor is None:
        return decide_kozel(level, view, seed)
    return await asyncio.get_running_loop().run_in_executor(
        executor, decide_kozel, level, view, seed)


#: The bots of each game, by the game's name.
BOTS_BY_GAME: dict[str, GameBots] = {
    "georgian": GameBots(PLAYER_LEVELS, _georgian),
    "kozel": GameBots(tuple(KOZEL_BOTS), _kozel),
}

#: Bot levels a player may choose when starting a Georgian match (the site's bot menu).
LEVELS: tuple[str, ...] = BOTS_BY_GAME["georgian"].levels


def levels_of(game: str) -> tuple[str, ...]:
    """The bot levels a seat of ``game`` may be given (none: the game has no bots)."""
    bots = BOTS_BY_GAME.get(game)
    return bots.levels if bots is not None else ()


def exit_with_parent(parent: int) -> None:
    """Worker initializer: leave as soon as the server process that started us is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="kva-parent-watch", daemon=True).start()


def make_executor(workers: int = 2) -> ProcessPoolExecutor:
    """The pool bots think in: spawned workers that die with the server."""
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=exit_with_parent,
        initargs=(os.getpid(),),
    )
    pool.submit(int)  # start the workers now rather than on the first bot move
    return pool


async def choose(level: str, view: Any, seed: int, executor: Executor | None = None, *,
                 game: str = "georgian") -> Any:
    """The action the bot of ``game`` at ``level`` picks for ``view`` (its decision is a pure
    function of the view and ``seed``); ValueError for a level the game does not offer."""
    bots = BOTS_BY_GAME.get(game)
    if bots is None or level not in bots.levels:
        raise ValueError(f"unknown bot level {level!r}")
    return await bots.decide(level, view, seed, executor)
