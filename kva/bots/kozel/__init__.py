"""Bots for Kozel (kozel.md): policies from one seat's view only, by name.

Every bot is ``choose(view, rng) -> code`` over :class:`~kva.kozel.view.SeatView` and its own
seeded RNG; none is ever handed the match. ``make_kozel_bot(name)`` builds one.
"""

from __future__ import annotations

from collections.abc import Callable

from kva.bots.kozel.base import KozelBot
from kva.bots.kozel.hard import HardBot, HardSettings
from kva.bots.kozel.normal import NormalBot
from kva.bots.kozel.simple import EasyBot

#: Kozel bots by name, every one blind.
KOZEL_BOTS: dict[str, Callable[[], KozelBot]] = {
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}


def make_kozel_bot(name: str) -> KozelBot:
    """A fresh Kozel bot by name; ValueError names the known ones."""
    try:
        factory = KOZEL_BOTS[name]
    except KeyError:
        known = ", ".join(sorted(KOZEL_BOTS))
        raise ValueError(f"unknown Kozel bot {name!r}; known: {known}") from None
    return factory()


__all__ = ["KOZEL_BOTS", "EasyBot", "HardBot", "HardSettings", "KozelBot", "NormalBot",
           "make_kozel_bot"]
