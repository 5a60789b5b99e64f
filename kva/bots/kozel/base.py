"""What a Kozel bot is: a policy from one seat's view (and its own seeded RNG) to a legal action.

A bot is never handed the match: only :class:`~kva.kozel.view.SeatView`, which holds the seat's
own tiles and what every player saw. ``choose`` returns one of ``view.legal``.
"""

from __future__ import annotations

import random
from typing import Protocol

from kva.kozel import SeatView


class KozelBot(Protocol):
    """A Kozel player policy. ``name`` is what tables and tournaments call it."""

    name: str

    def choose(self, view: SeatView, rng: random.Random) -> int:
        """Pick a legal action code for ``view`` (it is the bot's turn)."""
        ...
