"""Calling bots from a server without blocking its event loop.

A bot decision is CPU-bound Python (``hard`` searches for tens of milliseconds), so an
``async`` server must not call ``choose`` on its event loop. :func:`choose_in_executor` runs the
decision in a process pool (true parallelism, no GIL contention with the server) and awaits
it::

    from kva.bots.runner import choose_in_executor

    code = await choose_in_executor("hard", player_view(match, seat), seed=game_seed + ply)
    match.apply(code, player=seat)

Only the bot's name, the (picklable, frozen) view and an int seed cross the process boundary:
the worker never sees the match, so the bot stays blind. A decision is a pure function of
(name, view, seed), which makes bot games replayable from their record and their seeds.
Pass ``executor=`` to use your own pool (a ``ThreadPoolExecutor`` suits tests and tiny
deployments); call :func:`shutdown` when the server stops.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor, ProcessPoolExecutor

from kva.bots import BOTS, Bot, make_bot
from kva.rules import PlayerView

_pool: ProcessPoolExecutor | None = None
_bots: dict[str, Bot] = {}


def decide(bot_name: str, view: PlayerView, seed: int) -> int:
    """One decision, synchronously: the function executors run. Bots are reused per process."""
    bot = _bots.get(bot_name)
    if bot is None:
        bot = make_bot(bot_name)
        _bots[bot_name] = bot
    return bot.choose(view, random.Random(seed))


def _default_pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=2)
    return _pool


async def choose_in_executor(
    bot_name: str, view: PlayerView, seed: int, executor: Executor | None = None
) -> int:
    """The action code bot ``bot_name`` picks for ``view``, computed off the event loop.

    ``executor`` defaults to a shared two-process pool created on first use. Raises ValueError
    for an unknown bot (checked here, before anything is sent to a worker) or for a view where
    it is not the viewer's turn.
    """
    if bot_name not in BOTS:
        raise ValueError(f"unknown bot {bot_name!r}; known: {', '.join(sorted(BOTS))}")
    if not view.legal:
        raise ValueError("the view offers no legal action: it is not this player's turn")
    if len(view.legal) == 1:
        return view.legal[0]  # forced: no need to bother a worker
    loop = asyncio.get_running_loop()
    pool = executor if executor is not None else _default_pool()
    return await loop.run_in_executor(pool, decide, bot_name, view, seed)


def shutdown() -> None:
    """Stop the shared pool (idempotent); a later call creates a fresh one."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
        _pool = None
