"""``hard-v1``: the flat search, frozen as a yardstick for measurement, and ``seer``.

Both are measurement bots (``python -m tools.training tournament`` only, never offered to
players). ``hard-v1`` is the flat determinized Monte Carlo search with inference weighting,
without ``hard``'s reply-aware playouts and exact endgames: 1000 playouts per decision of the
plain noisy-greedy playout policy (:func:`kva.bots.playout.playout` with ``threat = 0``).
Rather than a copy of the code it is a fixed configuration of :class:`~kva.bots.hard.HardBot`
(``threat=0`` and ``exact_nodes=0`` give back that search), every setting spelled out; a test
pins its decisions for fixed seeds to those of the old ``hard``, so a change to the shared
search or playout code that would move it is caught.
``seer`` is that same search shown the opponent's hand (never the bazaar order): the bound of
perfect inference that ``hard`` is measured against.
"""

from __future__ import annotations

import random
import time
from typing import ClassVar

from kva.bots.hard import Guess, HardBot
from kva.bots.hard_config import HardConfig
from kva.bots.knowledge import BETA, UNIFORM_SHARE, Knowledge
from kva.rules import PlayerView
from kva.rules.engine import tiles_of

#: Every decision-shaping setting of the flat search as it was frozen.
HARD_V1 = HardConfig(
    playouts=1000,
    candidates=2,
    max_seconds=0.9,
    near=90,
    noise=0.35,
    beta=BETA,
    uniform_share=UNIFORM_SHARE,
    exact_nodes=0,  # no exact endgames: the next two are unused
    exact_guesses=48,
    exact_tiles=10,
    threat=0.0,  # the plain policy: lookahead is unused
    lookahead=4,
    block=0.0,
    opp_model=0.0,
)


class HardV1Bot(HardBot):
    """The yardstick, frozen: flat determinized Monte Carlo search (:data:`HARD_V1`)."""

    name = "hard-v1"
    preset: ClassVar[HardConfig] = HARD_V1


class SeerBot(HardBot):
    """``hard-v1`` told the opponent's hand (never the bazaar order): a bound for perfect
    inference.

    Measurement only. It is never offered to players and cannot play without being shown the
    hand: the tournament runner calls :meth:`reveal` before each of its decisions, the one
    channel through which it sees more than its view.
    """

    name = "seer"
    preset: ClassVar[HardConfig] = HARD_V1

    def __init__(self, config: HardConfig | None = None) -> None:
        super().__init__(config)
        self._revealed: int | None = None

    def reveal(self, opponent_hand: int) -> None:
        """Show the opponent's hand (a tile mask) for the next decision only."""
        self._revealed = opponent_hand

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        revealed, self._revealed = self._revealed, None
        if revealed is None:
            raise RuntimeError("seer plays only when the tournament reveals the opponent's hand")
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        knowledge = Knowledge(view)
        rest_pool = tiles_of(knowledge.unseen & ~revealed)
        guesses: list[Guess] = []
        for _ in range(self._guess_count(len(legal))):
            rest = rest_pool[:]
            rng.shuffle(rest)
            guesses.append((revealed, rest))
        deadline = time.process_time() + self.config.max_seconds
        return self._search(view, knowledge, guesses, rng, deadline)
