"""Bot turns for the play service: pick the bot by level and think off the event loop.

The levels offered on the site are ``kva.bots.PLAYER_LEVELS``. While a level has no bot of its
own in ``kva.bots.BOTS`` it falls back to ``random``, so the platform keeps working as the bots
are developed.
"""

from __future__ import annotations

import asyncio
import random

from kva.bots import BOTS, PLAYER_LEVELS, Bot, make_bot
from kva.rules import PlayerView

#: Bot levels a player may choose when starting a match.
LEVELS: tuple[str, ...] = PLAYER_LEVELS


def resolve_bot(level: str) -> Bot:
    """The bot that plays ``level`` now (``random`` until that level exists)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    return make_bot(level if level in BOTS else "random")


async def choose(level: str, view: PlayerView, rng: random.Random) -> int:
    """The bot's action for ``view``, computed in a worker thread so the server stays live."""
    bot = resolve_bot(level)
    return await asyncio.to_thread(bot.choose, view, rng)
