"""Bots that play from a per-player view only. ``make_bot(name)`` builds one by name.

Every bot is a pure policy ``choose(view, rng) -> code`` over :class:`~kva.rules.PlayerView`
and its own seeded RNG; none is ever handed the match. ``seer`` is the one exception, for
measurement only: the tournament runner shows it the opponent's hand through
:meth:`~kva.bots.hard_v1.SeerBot.reveal`, and it is kept out of :data:`PLAYER_LEVELS`; so is
``hard-v1``, the flat search without reply-aware playouts or exact endgames, frozen as a
yardstick, and ``hard-v2``, today's ``hard`` frozen as the yardstick of the learned models.
Server code should call bots through :func:`kva.bots.runner.choose_in_executor`.
"""

from __future__ import annotations

from collections.abc import Callable

from kva.bots.base import Bot, RandomBot
from kva.bots.hard import HardBot
from kva.bots.hard_config import HARD, HardConfig
from kva.bots.hard_v1 import HardV1Bot, SeerBot
from kva.bots.hard_v2 import HardV2Bot
from kva.bots.normal import NormalBot
from kva.bots.simple import EasyBot, GreedyBot

#: Bots by name, every one blind (it decides from its view and its RNG alone).
BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}
#: Bots for measurement only (``kva tournament``): never offered to players, never in ``BOTS``.
MEASUREMENT_BOTS: dict[str, Callable[[], Bot]] = {
    "seer": SeerBot,
    "hard-v1": HardV1Bot,
    "hard-v2": HardV2Bot,
}
#: The levels a player may choose on the site.
PLAYER_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


def make_bot(name: str) -> Bot:
    """A fresh bot by name; ValueError names the known ones."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None
    return factory()


__all__ = [
    "BOTS", "HARD", "MEASUREMENT_BOTS", "PLAYER_LEVELS", "Bot", "EasyBot", "GreedyBot", "HardBot",
    "HardConfig", "HardV1Bot", "HardV2Bot", "NormalBot", "RandomBot", "SeerBot", "make_bot",
]
