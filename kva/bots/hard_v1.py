"""``hard-v1``: the flat search, frozen as a yardstick for measurement, and ``seer``.

Both are measurement bots (``kva tournament`` only, never offered to players). ``hard-v1`` is the
flat determinized Monte Carlo search with inference weighting, without ``hard``'s reply-aware
playouts and exact endgames: 1000 playouts per decision of the noisy-greedy playout policy, kept
here byte for byte (its playout policy is copied below so that changes to :mod:`kva.bots.fast`
cannot move it; a test pins its decisions for fixed seeds). ``seer`` is that same search shown
the opponent's hand (never the bazaar order): the bound of perfect inference that ``hard`` is
measured against.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from kva.bots.fast import DOUBLE_FIVE, sum_after
from kva.bots.knowledge import BETA, UNIFORM_SHARE, Knowledge
from kva.bots.value import match_win_chance
from kva.rules import PlayerView
from kva.rules.engine import OPEN_BASE, SCORE_OF_SUM, TILE_PIPS, HandState, tiles_of

Guess = tuple[int, list[int]]


def _playout(state: HandState, rng: random.Random, noise: float = 0.35) -> None:
    """The v1 playout policy (a frozen copy of ``kva.bots.fast.playout``'s noisy greedy)."""
    random_ = rng.random
    while not state.over:
        codes = state.legal_codes()
        if len(codes) == 1:
            state.apply_unchecked(codes[0])
            continue
        ask = state.ask
        value = state.value
        free = state.opening_double_free
        stavka = state.stavka
        hand_size = state.hands[state.turn].bit_count()
        best = codes[0]
        best_key = -1e9
        for code in codes:
            key: float
            if code < OPEN_BASE:
                key = SCORE_OF_SUM[sum_after(ask, value, free, stavka, code)]
                if hand_size == 1:
                    key += 40
                key += TILE_PIPS[code >> 2] * 0.15
            else:
                tile = (code - OPEN_BASE) >> 1
                key = (10 if tile == DOUBLE_FIVE else 0) + TILE_PIPS[tile] * 0.15
            key += random_() * noise * 5
            if key > best_key:
                best_key = key
                best = code
        state.apply_unchecked(best)


class HardV1Bot:
    """The yardstick, frozen: flat determinized Monte Carlo search."""

    name = "hard-v1"

    def __init__(
        self,
        playouts: int = 1000,
        candidates: int = 2,
        max_seconds: float = 0.9,
        near: int = 90,
        noise: float = 0.35,
        beta: float = BETA,
        uniform_share: float = UNIFORM_SHARE,
    ) -> None:
        #: Playouts per decision, shared among the legal moves.
        self.playouts = playouts
        #: Guesses sampled per guess kept (the surplus feeds the inference weighting).
        self.candidates = candidates
        #: Safety cap, in CPU seconds of this process: wall-clock seconds could be cut short by
        #: other load and so make a decision depend on it; on an idle machine the two agree.
        self.max_seconds = max_seconds
        #: Within this many points of the target, outcomes are valued by match-win chance.
        self.near = near
        #: Randomness of the playout policy (see :func:`~kva.bots.fast.playout`).
        self.noise = noise
        #: Opponent model of the inference weighting (see :mod:`kva.bots.knowledge`).
        self.beta = beta
        self.uniform_share = uniform_share

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        knowledge = Knowledge(view, self.beta, self.uniform_share)
        guesses = self._guesses(knowledge, rng, self._guess_count(len(legal)))
        return self._search(view, knowledge, guesses, rng)

    def _guess_count(self, moves: int) -> int:
        return max(1, self.playouts // moves)

    def _guesses(self, knowledge: Knowledge, rng: random.Random, count: int) -> list[Guess]:
        """``count`` guesses, resampled by the likelihood of the opponent's past choices."""
        pool: list[Guess] = []
        logs: list[float] = []
        for _ in range(count * self.candidates if knowledge.choices else count):
            opp_hand, rest, items = knowledge.sample(rng)
            pool.append((opp_hand, rest))
            logs.append(knowledge.log_weight(items))
        if len(pool) == count:
            return pool
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        total = sum(weights)
        # Systematic resampling: low variance, one random number.
        step = total / count
        pos = rng.random() * step
        out: list[Guess] = []
        acc = 0.0
        k = 0
        for guess, w in zip(pool, weights, strict=True):
            acc += w
            while pos < acc and k < count:
                out.append(guess)
                pos += step
                k += 1
        while len(out) < count:
            out.append(pool[-1])
        return out

    def _search(
        self, view: PlayerView, knowledge: Knowledge, guesses: list[Guess], rng: random.Random
    ) -> int:
        legal = view.legal
        value = self._valuer(view, knowledge.me)
        sums = [0.0] * len(legal)
        deadline = time.process_time() + self.max_seconds
        noise = self.noise
        for opp_hand, rest in guesses:
            state = knowledge.state(view, opp_hand, rest)
            seed = rng.getrandbits(32)
            for i, code in enumerate(legal):
                after = state.copy()
                after.apply_unchecked(code)
                _playout(after, random.Random(seed), noise)
                sums[i] += value(after)
            if time.process_time() > deadline:
                break
        best = 0
        for i in range(1, len(legal)):
            if sums[i] > sums[best]:
                best = i
        return legal[best]

    def _valuer(self, view: PlayerView, me: int) -> Callable[[HandState], float]:
        """How a finished hand is worth to ``me``: match-win chance near the target, else the
        point difference (scaled to a comparable range)."""
        opp = 1 - me
        have, other = view.scores[me], view.scores[opp]
        target = view.target
        if max(have, other) + self.near < target:

            def by_points(state: HandState) -> float:
                points = state.points
                delta = points[me] - points[opp]
                if state.winner is not None:
                    delta += state.end_points if state.winner == me else -state.end_points
                return delta / 100.0

            return by_points

        def by_match(state: HandState) -> float:
            points = state.points
            a = have + points[me]
            b = other + points[opp]
            if state.winner == me:
                a += state.end_points
            elif state.winner == opp:
                b += state.end_points
            return match_win_chance(a, b, target)

        return by_match


class SeerBot(HardV1Bot):
    """``hard`` told the opponent's hand (never the bazaar order): a bound for perfect inference.

    Measurement only. It is never offered to players and cannot play without being shown the
    hand: the tournament runner calls :meth:`reveal` before each of its decisions, the one
    channel through which it sees more than its view.
    """

    name = "seer"

    def __init__(self, **kwargs: float) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
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
        return self._search(view, knowledge, guesses, rng)
