"""Bots that play from a per-player view only. ``make_bot(name)`` builds one by name."""

from __future__ import annotations

from collections.abc import Callable

from kva.bots.base import Bot, RandomBot

#: Bots by name. ``seer`` (if present) is for measurement only and never offered to players.
BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
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


__all__ = ["BOTS", "PLAYER_LEVELS", "Bot", "RandomBot", "make_bot"]
