"""The value of every legal action of a decision, from a :class:`~kva.rules.PlayerView` only.

This is ``hard``'s search (:class:`kva.bots.hard.HardBot`: the same inference-weighted guesses,
reply-aware playouts, exact endgames and valuation) with a larger budget, run through the bot's
own methods (``_exact_sums``, ``_move_sums``), keeping every action's mean instead of only the
best. It is blind by construction: it is handed the view, never the match, and samples the
hidden tiles from what the view proves. A value is a pure function of (view, seed, budget): the
wall-clock cap of the live bot is lifted, so the same decision always gets the same values.

Units: far from the target, the expected point difference of the hand from now on (points
for the player minus points for the opponent, the hand's end included); within ``near`` points
of the target, the chance of winning the match, in percent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Literal

from kva.bots.hard import HardBot
from kva.bots.hard_config import HARD
from kva.bots.knowledge import Knowledge
from kva.rules import PlayerView

#: Playouts per decision for analysis (the live ``hard`` bot uses 1000).
ANALYSIS_PLAYOUTS = 4000

Unit = Literal["points", "win%"]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """``values[i]`` is the value of ``codes[i]`` (the view's legal actions) in ``unit``."""

    codes: tuple[int, ...]
    values: tuple[float, ...]
    unit: Unit
    exact: bool

    def best(self) -> int:
        """The index of the best action (the first on a tie, as ``hard`` plays)."""
        best = 0
        for i in range(1, len(self.values)):
            if self.values[i] > self.values[best]:
                best = i
        return best


def analysis_bot(playouts: int = ANALYSIS_PLAYOUTS) -> HardBot:
    """``hard`` with the analysis budget and no wall-clock cap (decisions stay reproducible)."""
    return HardBot(config=replace(HARD, playouts=playouts, max_seconds=1e9))


def evaluate(view: PlayerView, seed: int, playouts: int = ANALYSIS_PLAYOUTS) -> Evaluation:
    """Every legal action of ``view`` valued by ``hard``'s search from the view alone."""
    assert view.player is not None and view.turn == view.player and view.legal
    bot = analysis_bot(playouts)
    legal = list(view.legal)
    rng = random.Random(seed)
    config = bot.config
    knowledge = Knowledge(view, config.beta, config.uniform_share)
    me = knowledge.me
    additive = bot._additive(view)
    unit: Unit = "points" if additive else "win%"
    scale = 100.0
    offset = (view.hand_points[me] - view.hand_points[1 - me]) / 100.0 if additive else 0.0
    solved = None
    if len(legal) > 1 and config.exact_nodes and bot._endgame(view, knowledge):
        solved = bot._exact_sums(view, knowledge, rng)
    exact = solved is not None
    if solved is None:
        guesses = bot._guesses(knowledge, rng, bot._guess_count(len(legal)))
        solved = bot._move_sums(view, knowledge, guesses, rng, 1e300), len(guesses)
    sums, weight = solved
    values = tuple(round((s / weight - offset) * scale, 2) for s in sums)
    return Evaluation(tuple(legal), values, unit, exact)

