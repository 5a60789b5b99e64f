"""The ``hard`` Kozel bot: a search over guesses of the hidden hands.

1. Forced actions (a draw, a knock, the first hand's forced opening, one fitting placement) are
   returned at once.
2. Guesses: every other hand and the bazaar are drawn at random among the deals consistent with
   everything this seat saw (:class:`~kva.bots.kozel.knowledge.Knowledge`: each draw and knock
   proves the seat lacked both end numbers then; the first opening tells which doubles nobody
   held).
3. Each candidate placement is applied to each guess and the hand is played out to its end on
   the engine's own hand state by the fast policy of :mod:`kva.bots.kozel.playout`, every
   candidate of one guess with the same playout seed (common random numbers).
4. A finished hand is scored by the engine's scoring (remembered points, fish rules, the
   carry) and valued by the side's chance of becoming the козёл from the resulting table
   (:func:`~kva.bots.kozel.value.goat_chance`), so penalty points weigh by how near the limit
   each side is. The candidate with the lowest mean chance is played.

The budget is ``playouts`` hand endings per decision, split over the candidates (at least
``min_guesses`` guesses each), so a seed gives the same decision on any machine;
``max_seconds`` is a safety stop for a slow machine (the guesses played so far decide). It
counts the process's CPU seconds, so other load on the machine cannot change a decision.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from kva.bots.kozel.knowledge import Knowledge
from kva.bots.kozel.playout import play_out
from kva.bots.kozel.value import goat_chance
from kva.kozel import SeatView, score_hand, side_counts
from kva.kozel.engine import HandState


@dataclass(frozen=True, slots=True)
class HardSettings:
    """The search budget: hand endings per decision, the fewest guesses per candidate, the
    playout policy's noise (pips) and a safety stop in CPU seconds."""

    playouts: int = 640
    min_guesses: int = 24
    noise: float = 3.0
    max_seconds: float = 0.25


class HardBot:
    """Determinized Monte Carlo search, valued by the chance of becoming the козёл."""

    name = "hard"

    def __init__(self, settings: HardSettings | None = None) -> None:
        self.settings = settings or HardSettings()

    @classmethod
    def with_settings(cls, **overrides: float) -> HardBot:
        """A hard bot with some settings of :class:`HardSettings` replaced (TypeError names an
        unknown one): ``HardBot.with_settings(playouts=600)``."""
        known = HardSettings.__slots__
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise TypeError(f"unknown hard setting(s): {', '.join(unknown)}")
        base = HardSettings()
        values = {k: type(getattr(base, k))(overrides.get(k, getattr(base, k))) for k in known}
        return cls(HardSettings(**values))

    def choose(self, view: SeatView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        settings = self.settings
        know = Knowledge(view)
        guesses = max(settings.min_guesses, settings.playouts // len(legal))
        totals = [0.0] * len(legal)
        deadline = time.process_time() + settings.max_seconds
        side = next(i for i, s in enumerate(view.sides) if know.me in s)
        for done in range(guesses):
            hands, bazaar = know.sample(rng)
            seed = rng.getrandbits(32)
            for i, code in enumerate(legal):
                state = start_state(view, hands, bazaar)
                state.apply_unchecked(code)
                play_out(state, random.Random(seed), settings.noise)
                totals[i] += hand_goat_chance(view, state, side)
            if done + 1 >= settings.min_guesses and time.process_time() > deadline:
                break
        best = min(range(len(legal)), key=lambda i: (totals[i], i))
        return legal[best]


def start_state(view: SeatView, hands: list[int], bazaar: list[int]) -> HandState:
    """The engine's hand state for a guess: the guessed hands and bazaar, and the line, the
    turn and the run of knocks as the view shows them."""
    turn = view.turn
    assert turn is not None
    state = HandState(list(hands), tuple(bazaar), turn)
    if view.ends is not None:
        state.left, state.right = view.ends
    played = 0
    knocks = 0
    placer = view.opener
    for move in view.moves:
        if move.tile is not None:
            played |= 1 << move.tile
            knocks = 0
            placer = move.p
        elif move.kind == "knock":
            knocks += 1
    state.played = played
    state.knocks = knocks
    state.placer = placer
    return state


def hand_goat_chance(view: SeatView, state: HandState, side: int) -> float:
    """``side``'s chance of becoming the козёл after the finished hand ``state`` is scored."""
    assert state.end is not None
    out = state.by if state.end == "out" else None
    out_side = None if out is None else next(i for i, s in enumerate(view.sides) if out in s)
    counts = side_counts(view.sides, state.counts(), out)
    scored = score_hand(counts, end=state.end, out_side=out_side, fish=view.fish,
                        score=view.score, remembered=view.remembered, carry=view.carry)
    return goat_chance(side, scored.score, scored.remembered, view.limit)
