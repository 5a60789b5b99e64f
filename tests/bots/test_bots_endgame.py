"""Exact endgames: alpha-beta with a transposition table equals plain minimax, and ``hard``'s
exact path is taken once nothing can be drawn."""

from __future__ import annotations

import random

from kva.bots.endgame import Exhausted, solve_moves
from kva.bots.hard import HardBot
from kva.bots.knowledge import Knowledge
from kva.rules.engine import HandState
from tests.bots.botshelp import positions


def _minimax(state: HandState, me: int) -> float:
    if state.over:
        return _delta(state, me)
    values = []
    for code in state.legal_codes():
        child = state.copy()
        child.apply_unchecked(code)
        values.append(_minimax(child, me))
    return max(values) if state.turn == me else min(values)


def _delta(state: HandState, me: int) -> float:
    points = state.points
    d = points[me] - points[1 - me]
    if state.winner is not None:
        d += state.end_points if state.winner == me else -state.end_points
    return d / 100.0


def test_alpha_beta_with_a_table_equals_plain_minimax_on_small_endgames() -> None:
    rng = random.Random(3)
    checked = 0
    for _match, view in positions(seed=61, choices=1500):
        if len(view.legal) < 2 or view.bazaar != "pass-only" or len(view.hand) > 3:
            continue
        knowledge = Knowledge(view)
        if knowledge.opp_count > 3:
            continue
        opp_hand, rest, _items = knowledge.sample(rng)
        state = knowledge.state(view, opp_hand, rest)
        me = knowledge.me
        def value(s: HandState, me: int = me) -> float:
            return _delta(s, me)

        for additive in (True, False):
            values, _nodes = solve_moves(
                state, list(view.legal), me, value, additive, 100.0, 10**6
            )
            for code, v in zip(view.legal, values, strict=True):
                child = state.copy()
                child.apply_unchecked(code)
                assert abs(v - _minimax(child, me)) < 1e-9
        checked += 1
    assert checked >= 20


def test_the_node_budget_stops_the_search() -> None:
    for _match, view in positions(seed=62, choices=400):
        if len(view.legal) < 2 or view.bazaar != "pass-only" or len(view.hand) < 6:
            continue
        knowledge = Knowledge(view)
        opp_hand, rest, _items = knowledge.sample(random.Random(0))
        state = knowledge.state(view, opp_hand, rest)
        try:
            solve_moves(state, list(view.legal), knowledge.me, lambda s: 0.0, True, 100.0, 5)
        except Exhausted:
            return
    raise AssertionError("no search ran out of a 5-node budget")


def test_hard_solves_endgames_exactly_once_nothing_can_be_drawn() -> None:
    bot = HardBot.with_settings(playouts=24, exact_nodes=5000, exact_guesses=8, exact_tiles=8)
    solved = 0
    for _match, view in positions(seed=63, choices=1500):
        if len(view.legal) < 2:
            continue
        knowledge = Knowledge(view)
        if not bot._endgame(view, knowledge):
            continue
        code = bot._exact(view, knowledge, random.Random(1))
        if code is not None:
            assert code in view.legal
            solved += 1
    assert solved >= 10
