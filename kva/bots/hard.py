"""The ``hard`` bot: determinization search with inference weighting, reply-aware playouts and
exact endgames.

For a real choice (most turns have one legal action, answered at once) ``hard``:

1. reads what the view proves about the hidden tiles (:class:`~kva.bots.knowledge.Knowledge`):
   the numbers the opponent lacked at each draw or pass, the tiles it drew and kept, the first
   hand's highest double, the protected bazaar tail;
2. samples many consistent guesses (*determinizations*) and weights each by how well it explains
   the opponent's earlier choices under a soft greedy model, then resamples by weight;
3. once nothing can be drawn any more (the drawable bazaar is empty, or the table plays "pass
   only") and both hands hold at most ``exact_tiles`` tiles, it solves each distinct guessed
   opponent hand exactly (alpha-beta with a transposition table, :mod:`kva.bots.endgame`) and
   plays the move with the best weighted mean; past ``exact_nodes`` nodes it falls back to 4.;
4. otherwise, for each kept guess and each legal move, plays the hand out on a ``HandState``
   copy with the reply-aware playout policy (:func:`~kva.bots.playout.playout`: noisy greedy
   that, for its first ``lookahead`` choices, subtracts ``threat`` times the opponent's best
   immediate reply); all moves of one guess share the playout seed (common random numbers);
5. values the hand's outcome by the chance of winning the match from the resulting score when
   either player is near the target (:func:`~kva.bots.value.match_win_chance`), by the hand's
   point difference otherwise, and plays the move with the best mean.

Every tunable named above is a field of the bot's :class:`~kva.bots.hard_config.HardConfig`.
The budget is counted in playouts and search nodes, so a decision is a pure function of (view,
seed, config) and tournaments replay exactly; ``max_seconds`` is only a safety cap for slow
machines. The measurements that chose this design, and the directions that did not pay, are in
docs/bots.md. ``hard-v1`` (in the repository's ``tools/training``) is this search with the
previous settings, frozen.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar, Self

from kva.bots.endgame import Exhausted, solve_moves
from kva.bots.hard_config import HARD, HardConfig
from kva.bots.knowledge import Knowledge
from kva.bots.playout import playout
from kva.bots.value import match_win_chance
from kva.rules import PlayerView
from kva.rules.engine import DRAWABLE, HandState

Guess = tuple[int, list[int]]


class HardBot:
    """Determinized Monte Carlo search over the view, weighted by inference."""

    name = "hard"
    #: The tunables this bot plays with when it is given none.
    preset: ClassVar[HardConfig] = HARD

    def __init__(self, config: HardConfig | None = None) -> None:
        #: The tunables of this bot's search.
        self.config = self.preset if config is None else config
        #: The view of the decision in progress (set by :meth:`choose`), for the model.
        self._view: PlayerView | None = None

    @classmethod
    def with_settings(cls, **settings: float) -> Self:
        """This bot with ``settings`` over its preset (``kva tournament``'s
        ``hard:playouts=300``); an unknown setting is a TypeError that names it."""
        overrides: dict[str, Any] = dict(settings)  # ints and floats alike
        return cls(replace(cls.preset, **overrides))

    def choose(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        config = self.config
        deadline = time.process_time() + config.max_seconds
        knowledge = Knowledge(view, config.beta, config.uniform_share)
        self._view = view
        if config.exact_nodes and self._endgame(view, knowledge):
            code = self._exact(view, knowledge, rng, deadline)
            if code is not None:
                return code
        guesses = self._guesses(knowledge, rng, self._guess_count(len(legal)))
        return self._search(view, knowledge, guesses, rng, deadline)

    def _endgame(self, view: PlayerView, knowledge: Knowledge) -> bool:
        """Nothing can be drawn any more and the hands are small: exact search may finish."""
        if view.bazaar != "pass-only" and view.drawn_count < DRAWABLE:
            return False
        return len(view.hand) + knowledge.opp_count <= self.config.exact_tiles

    def _exact(
        self, view: PlayerView, knowledge: Knowledge, rng: random.Random, deadline: float = 1e300
    ) -> int | None:
        """The best move by exact minimax averaged over weighted guesses of the opponent's hand;
        None when the node budget runs out (the caller falls back to playouts)."""
        solved = self._exact_sums(view, knowledge, rng, deadline)
        return None if solved is None else view.legal[_argmax(solved[0])]

    def _exact_sums(
        self, view: PlayerView, knowledge: Knowledge, rng: random.Random, deadline: float = 1e300
    ) -> tuple[list[float], int] | None:
        """Each legal move's exact minimax value summed over weighted guesses of the opponent's
        hand, and how many guesses the sums hold; None when the node budget runs out. Past the
        safety ``deadline`` it stops once the hand in progress is solved, without it."""
        legal = view.legal
        guesses = self._guesses(knowledge, rng, self.config.exact_guesses)
        counts: dict[int, int] = {}
        rests: dict[int, list[int]] = {}
        for opp_hand, rest in guesses:
            counts[opp_hand] = counts.get(opp_hand, 0) + 1
            rests.setdefault(opp_hand, rest)
        value = self._valuer(view, knowledge.me)
        additive = self._additive(view)
        sums = [0.0] * len(legal)
        summed = 0
        left = self.config.exact_nodes
        for opp_hand, count in counts.items():
            state = knowledge.state(view, opp_hand, rests[opp_hand])
            try:
                values, used = solve_moves(
                    state, list(legal), knowledge.me, value, additive, 100.0, left
                )
            except Exhausted:
                return None
            left -= used
            if time.process_time() > deadline:
                break
            for i, v in enumerate(values):
                sums[i] += count * v
            summed += count
        return sums, summed

    def _additive(self, view: PlayerView) -> bool:
        """Whether :meth:`_valuer` values by points (additive) rather than by match chance."""
        return max(view.scores) + self.config.near < view.target

    def _guess_count(self, moves: int) -> int:
        return max(1, self.config.playouts // moves)

    def _pool(
        self, knowledge: Knowledge, rng: random.Random, size: int
    ) -> tuple[list[Guess], list[float]]:
        """``size`` sampled guesses and their log-weights under the soft greedy likelihood."""
        pool: list[Guess] = []
        logs: list[float] = []
        for _ in range(size):
            opp_hand, rest, items = knowledge.sample(rng)
            pool.append((opp_hand, rest))
            logs.append(knowledge.log_weight(items))
        return pool, logs

    def _guesses(self, knowledge: Knowledge, rng: random.Random, count: int) -> list[Guess]:
        """``count`` guesses, resampled by the likelihood of the opponent's past choices (and,
        with ``opp_model``, tilted towards the learned model's chance of each tile)."""
        scale = self.config.opp_model
        view = self._view if scale > 0.0 else None
        many = knowledge.choices or view is not None
        pool, logs = self._pool(knowledge, rng, count * self.config.candidates if many else count)
        if view is not None:
            from kva.bots.opponent_model import default_model, guess_shares

            shares = guess_shares(pool, logs)
            tilt = default_model().tilt(view, knowledge, shares)
            for k, (opp_hand, _rest) in enumerate(pool):
                m = opp_hand
                extra = 0.0
                while m:
                    low = m & -m
                    extra += tilt[low.bit_length() - 1]
                    m ^= low
                logs[k] += scale * extra
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
        self,
        view: PlayerView,
        knowledge: Knowledge,
        guesses: list[Guess],
        rng: random.Random,
        deadline: float,
    ) -> int:
        """The legal move with the best sum over the guesses (:meth:`_move_sums`)."""
        return view.legal[_argmax(self._move_sums(view, knowledge, guesses, rng, deadline))]

    def _move_sums(
        self,
        view: PlayerView,
        knowledge: Knowledge,
        guesses: list[Guess],
        rng: random.Random,
        deadline: float,
    ) -> list[float]:
        """Each legal move's value summed over the guesses: the hand played out from the move
        (:meth:`_playout_runner`), or with ``value_net``/``value_net_near`` blended with the
        network's value (:class:`_NetLeaves`). All moves of one guess share its playout seed
        (common random numbers). Past the safety ``deadline`` it stops after the guess in
        progress (the one way a decision can depend on the machine)."""
        legal = view.legal
        me = knowledge.me
        value = self._valuer(view, me)
        sums = [0.0] * len(legal)
        weight = self.config.value_net if self._additive(view) else self.config.value_net_near
        net = _NetLeaves(self, view, me, sums, weight) if weight > 0.0 else None
        if net is None:
            run = self._playout_runner()

            def visit(i: int, after: HandState, seed: int) -> None:
                run(after, seed)
                sums[i] += value(after)

        else:
            visit = net.visit
        for opp_hand, rest in guesses:
            state = knowledge.state(view, opp_hand, rest)
            seed = rng.getrandbits(32)
            for i, code in enumerate(legal):
                after = state.copy()
                after.apply_unchecked(code)
                visit(i, after, seed)
            if time.process_time() > deadline:
                break
        if net is not None:
            net.finish()
        return sums

    def _leaf_valuer(self, view: PlayerView, me: int) -> Callable[[float, float], float]:
        """What expected hand points (mine, theirs) are worth, on :meth:`_valuer`'s scale."""
        have, other = view.scores[me], view.scores[1 - me]
        target = view.target
        if self._additive(view):
            return lambda mine, theirs: (mine - theirs) / 100.0
        return lambda mine, theirs: match_win_chance(
            have + round(mine), other + round(theirs), target
        )

    def _playout_runner(self) -> Callable[[HandState, int], None]:
        """Plays a state copy to the end of the hand with this bot's policy, from a seed: the
        reply-aware policy, or with neither ``threat`` nor ``block`` the plain noisy greedy."""
        config = self.config
        noise, threat, lookahead = config.noise, config.threat, config.lookahead
        block = config.block

        def run(state: HandState, seed: int) -> None:
            playout(state, random.Random(seed), noise, threat, lookahead, block)

        return run

    def _valuer(self, view: PlayerView, me: int) -> Callable[[HandState], float]:
        """How a finished hand is worth to ``me``: match-win chance near the target, else the
        point difference (scaled to a comparable range)."""
        opp = 1 - me
        have, other = view.scores[me], view.scores[opp]
        target = view.target
        if self._additive(view):

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


def _argmax(values: list[float]) -> int:
    """The index of the largest value (the first one on ties)."""
    best = 0
    for i in range(1, len(values)):
        if values[i] > values[best]:
            best = i
    return best


class _NetLeaves:
    """The valuation of (guess, move) pairs with the hand-value network
    (:mod:`kva.bots.value_net`), blended with ``1 - weight`` of the playout's result: at the
    state the move leaves, or with ``value_cut`` at the state a playout from there reaches at
    its ``value_cut``-th real choice (a playout that ends the hand sooner counts in full).
    :meth:`visit` adds the playouts' share to ``sums`` and keeps the leaves; :meth:`finish`
    values every leaf in one matrix product and adds the network's share."""

    def __init__(
        self, bot: HardBot, view: PlayerView, me: int, sums: list[float], weight: float
    ) -> None:
        config = bot.config
        self._bot, self._view, self._me = bot, view, me
        self._sums, self._weight = sums, weight
        self._value = bot._valuer(view, me)
        self._cut = config.value_cut
        self._run = bot._playout_runner() if weight < 1.0 and self._cut <= 0 else None
        self._rows: list[list[float]] = []
        self._leaves: list[tuple[int, int, int]] = []  # move index, my points, their points

    def _leaf(self, i: int, state: HandState) -> None:
        from kva.bots.value_net import state_features

        self._rows.append(state_features(state, self._me))
        self._leaves.append((i, state.points[self._me], state.points[1 - self._me]))

    def visit(self, i: int, after: HandState, seed: int) -> None:
        if after.over:
            self._sums[i] += self._value(after)
        elif self._cut > 0:
            config = self._bot.config
            reached = len(self._rows)
            playout(
                after, random.Random(seed), config.noise, config.threat, config.lookahead,
                config.block, self._cut, functools.partial(self._leaf, i),
            )
            share = 1.0 - self._weight if len(self._rows) > reached else 1.0
            self._sums[i] += share * self._value(after)
        else:
            self._leaf(i, after)
            if self._run is not None:
                self._run(after, seed)
                self._sums[i] += (1.0 - self._weight) * self._value(after)

    def finish(self) -> None:
        if not self._rows:
            return
        import numpy as np

        from kva.bots.value_net import default_model

        predicted = default_model().predict(np.array(self._rows)).tolist()
        leaf_value = self._bot._leaf_valuer(self._view, self._me)
        for (i, mine, theirs), (more, more_theirs) in zip(self._leaves, predicted, strict=True):
            # A hand's points only grow: a slightly negative estimate means none.
            mine_final = mine + max(0.0, more)
            self._sums[i] += self._weight * leaf_value(mine_final, theirs + max(0.0, more_theirs))
