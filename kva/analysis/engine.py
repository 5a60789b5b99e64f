"""The value of every legal action of a decision, from a :class:`~kva.rules.PlayerView` only.

This is ``hard``'s search (:class:`kva.bots.hard.HardBot`: the same inference-weighted guesses,
reply-aware playouts, exact endgames and valuation) with a larger budget, run through the bot's
own methods without changing it, keeping every action's mean instead of only the best. It is
blind by construction: it is handed the view, never the match, and samples the hidden tiles
from what the view proves. A value is a pure function of (view, seed, budget): the wall-clock
cap of the live bot is lifted, so the same decision always gets the same values.

Units: far from the target, the expected point difference of the hand from now on (points
for the player minus points for the opponent, the hand's end included); within ``near`` points
of the target, the chance of winning the match, in percent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Literal

from kva.bots.endgame import Exhausted, solve_moves
from kva.bots.fast import playout
from kva.bots.hard import HardBot
from kva.bots.hard_config import HARD
from kva.bots.knowledge import Knowledge
from kva.bots.playout import playout as smart_playout
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
    value = bot._valuer(view, me)
    unit: Unit = "points" if additive else "win%"
    scale = 100.0
    offset = (view.hand_points[me] - view.hand_points[1 - me]) / 100.0 if additive else 0.0
    sums: list[float] | None = None
    exact = False
    weight = 0
    if len(legal) > 1 and config.exact_nodes and bot._endgame(view, knowledge):
        sums, weight = _exact(bot, view, knowledge, rng, legal, value, additive)
        exact = sums is not None
    if sums is None:
        sums = [0.0] * len(legal)
        guesses = bot._guesses(knowledge, rng, bot._guess_count(len(legal)))
        smart = config.threat > 0.0 or config.block > 0.0
        for opp_hand, rest in guesses:
            state = knowledge.state(view, opp_hand, rest)
            seed_i = rng.getrandbits(32)
            for i, code in enumerate(legal):
                after = state.copy()
                after.apply_unchecked(code)
                if smart:
                    smart_playout(after, random.Random(seed_i), config.noise, config.threat,
                                  config.lookahead, config.block)
                else:
                    playout(after, random.Random(seed_i), config.noise)
                sums[i] += value(after)
        weight = len(guesses)
    values = tuple(round((s / weight - offset) * scale, 2) for s in sums)
    return Evaluation(tuple(legal), values, unit, exact)


def _exact(
    bot: HardBot, view: PlayerView, knowledge: Knowledge, rng: random.Random, legal: list[int],
    value: object, additive: bool,
) -> tuple[list[float] | None, int]:
    """Exact minimax values averaged over weighted guesses (as ``hard``'s exact endgame);
    None when the node budget runs out."""
    guesses = bot._guesses(knowledge, rng, bot.config.exact_guesses)
    counts: dict[int, int] = {}
    rests: dict[int, list[int]] = {}
    for opp_hand, rest in guesses:
        counts[opp_hand] = counts.get(opp_hand, 0) + 1
        rests.setdefault(opp_hand, rest)
    sums = [0.0] * len(legal)
    left = bot.config.exact_nodes
    for opp_hand, count in counts.items():
        state = knowledge.state(view, opp_hand, rests[opp_hand])
        try:
            values, used = solve_moves(state, list(legal), knowledge.me, value,  # type: ignore[arg-type]
                                       additive, 100.0, left)
        except Exhausted:
            return None, 0
        left -= used
        for i, v in enumerate(values):
            sums[i] += count * v
    return sums, len(guesses)
