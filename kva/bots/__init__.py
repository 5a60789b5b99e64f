"""Bots that play from a per-player view only. ``make_bot(name)`` builds one by name.

Every bot is a pure policy ``choose(view, rng) -> code`` over :class:`~kva.rules.PlayerView`
and its own seeded RNG; none is ever handed the match. The package ships the bots players meet
and the baselines (:data:`BOTS`); the frozen yardsticks they are measured against (``hard-v1``,
``hard-v2``, and ``seer``, which is shown the opponent's hand through
:class:`~kva.bots.base.SeesOpponentHand`) live in the repository's ``tools/training`` and join
``kva tournament``'s bots there (``python -m tools.training tournament``).
Server code should call bots through :func:`kva.bots.runner.choose_in_executor`.
"""

from __future__ import annotations

from collections.abc import Callable

from kva.bots.base import Bot, RandomBot, SeesOpponentHand
from kva.bots.hard import HardBot
from kva.bots.hard_config import HARD, HardConfig
from kva.bots.normal import NormalBot
from kva.bots.simple import EasyBot, GreedyBot

#: A bot's maker: no arguments for its defaults; a bot other than ``hard`` may take settings as
#: keyword arguments (``kva tournament``'s ``name:key=value``).
BotFactory = Callable[..., Bot]

#: Bots by name, every one blind (it decides from its view and its RNG alone).
BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}
#: The levels a player may choose on the site.
PLAYER_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


def make_bot(name: str) -> Bot:
    """A fresh bot by name; ValueError names the known ones."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None
    bot: Bot = factory()
    return bot


__all__ = [
    "BOTS", "HARD", "PLAYER_LEVELS", "Bot", "BotFactory", "EasyBot", "GreedyBot", "HardBot",
    "HardConfig", "NormalBot", "RandomBot", "SeesOpponentHand", "make_bot",
]
