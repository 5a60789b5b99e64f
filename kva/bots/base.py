"""What a bot is: a policy from a per-player view (and its own seeded RNG) to a legal action.

A bot is never handed the match: only :class:`~kva.rules.PlayerView`, which holds nothing the
player could not see. ``choose`` must return one of ``view.legal``.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from kva.rules import PlayerView


class Bot(Protocol):
    """A player policy. ``name`` is what tables and tournaments call it."""

    name: str

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        """Pick a legal action code for ``view`` (it is the bot's turn)."""
        ...


@runtime_checkable
class SeesOpponentHand(Protocol):
    """A measurement bot that ``kva tournament`` shows the opponent's hand (a tile mask)
    before each of its decisions: the one channel through which a bot sees more than its view.
    No bot players meet is one; the yardsticks of tools/training (``seer``) are."""

    def reveal(self, opponent_hand: int) -> None:
        """Show the opponent's hand for the next decision only."""
        ...


class RandomBot:
    """Uniformly random legal action: the floor every other bot is measured against."""

    name = "random"

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        return legal[int(rng.random() * len(legal))]
