"""Bot turns for the play service: the levels offered on the site, decided off the event loop.

Decisions go through :func:`kva.bots.runner.choose_in_executor`; the bot sees only its
player's view. :func:`make_executor` builds the server's worker pool: *spawned* processes (a
forked worker would inherit the server's sockets and, after a ``kill -9``, keep its port and its
clients' connections open) that exit by themselves when the server is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor

from kva.bots import BOTS, PLAYER_LEVELS
from kva.bots.runner import choose_in_executor
from kva.rules import PlayerView

#: Bot levels a player may choose when starting a match.
LEVELS: tuple[str, ...] = PLAYER_LEVELS


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


async def choose(level: str, view: PlayerView, seed: int, executor: Executor | None = None) -> int:
    """The action code the bot of ``level`` picks for ``view`` (its decision is a pure function
    of the view and ``seed``)."""
    if level not in LEVELS or level not in BOTS:
        raise ValueError(f"unknown bot level {level!r}")
    return await choose_in_executor(level, view, seed, executor=executor)
