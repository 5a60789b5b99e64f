"""Exact play of a hand whose hidden tiles are fixed: alpha-beta with a transposition table.

Once nothing more can be drawn (the drawable bazaar is empty, or the table plays "pass only"),
a guess of the opponent's hand fixes the rest of the hand: no chance is left, only the two
players' choices. :func:`solve_moves` values every legal move of the player to move by minimax
to the end of the hand, the player maximizing and the opponent minimizing the same valuation
(a finished hand's point difference, or the match-win chance near the target).

The ``hard`` bot averages these exact values over its weighted guesses of the opponent's hand
(few, since only the two protected tiles are unknown once the drawable bazaar is empty).
Search is bounded by a node budget, not by time, so a decision stays a pure function of the
view and the seed; :class:`Exhausted` tells the caller to fall back to playouts.
"""

from __future__ import annotations

from collections.abc import Callable

from kva.bots.fast import points_of
from kva.rules.engine import HandState

#: Transposition-table bound kinds.
_EXACT = 0
_LOWER = 1
_UPPER = 2


class Exhausted(Exception):
    """The node budget ran out before the search finished."""


class Solver:
    """Minimax with alpha-beta and a transposition table, for one guess of the hidden tiles.

    ``value(state)`` values a finished hand for ``me``; when ``additive`` it must be the points
    ``me`` gained minus the opponent's over ``scale`` (so the table can store values relative to
    the points already scored and share them between move orders that scored differently).
    """

    __slots__ = ("me", "value", "additive", "scale", "budget", "nodes", "table")

    def __init__(
        self,
        me: int,
        value: Callable[[HandState], float],
        additive: bool,
        scale: float,
        budget: int,
    ) -> None:
        self.me = me
        self.value = value
        self.additive = additive
        self.scale = scale
        self.budget = budget
        self.nodes = 0
        self.table: dict[tuple[int, ...], tuple[float, int]] = {}

    def _base(self, state: HandState) -> float:
        if not self.additive:
            return 0.0
        points = state.points
        return (points[self.me] - points[1 - self.me]) / self.scale

    def _key(self, state: HandState) -> tuple[int, ...]:
        ask = state.ask
        value = state.value
        key: tuple[int, ...] = (
            state.hands[0],
            state.hands[1],
            state.turn,
            state.passes,
            state.pending,
            ask[0],
            ask[1],
            ask[2],
            ask[3],
            value[0],
            value[1],
            value[2],
            value[3],
            state.opening_double_free,
            state.stavka_end,
            state.stavka,
            state.draw_pos,
        )
        if not self.additive:
            key += (state.points[0], state.points[1])
        return key

    def search(self, state: HandState, alpha: float, beta: float) -> float:
        """The minimax value of ``state`` for ``me``, exact when inside (alpha, beta)."""
        if state.over:
            return self.value(state)
        self.nodes += 1
        if self.nodes > self.budget:
            raise Exhausted
        key = self._key(state)
        base = self._base(state)
        hit = self.table.get(key)
        if hit is not None:
            rel, kind = hit
            v = rel + base
            if kind == _EXACT:
                return v
            if kind == _LOWER and v >= beta:
                return v
            if kind == _UPPER and v <= alpha:
                return v
        codes = state.legal_codes()
        maximize = state.turn == self.me
        if len(codes) > 1:
            ask, value = state.ask, state.value
            free, stavka = state.opening_double_free, state.stavka
            # Scoring moves first: they are usually the best, which makes the cut-offs early.
            codes.sort(key=lambda c: -points_of(ask, value, free, stavka, c))
        a0, b0 = alpha, beta
        best = -1e18 if maximize else 1e18
        for code in codes:
            child = state.copy()
            child.apply_unchecked(code)
            v = self.search(child, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if best <= a0:
            kind = _UPPER
        elif best >= b0:
            kind = _LOWER
        else:
            kind = _EXACT
        self.table[key] = (best - base, kind)
        return best


def solve_moves(
    state: HandState,
    codes: list[int],
    me: int,
    value: Callable[[HandState], float],
    additive: bool,
    scale: float,
    budget: int,
) -> tuple[list[float], int]:
    """Exact values of each of ``codes`` (legal for ``me`` to move in ``state``) and the nodes
    searched; raises :class:`Exhausted` past ``budget`` nodes."""
    solver = Solver(me, value, additive, scale, budget)
    out: list[float] = []
    for code in codes:
        child = state.copy()
        child.apply_unchecked(code)
        out.append(solver.search(child, -1e18, 1e18))
    return out, solver.nodes
