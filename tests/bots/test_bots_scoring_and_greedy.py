"""The bots' own scoring arithmetic agrees with the engine, and greedy takes the most points."""

from __future__ import annotations

import random

from kva.bots.fast import code_pips, points_of
from kva.bots.simple import EasyBot, GreedyBot
from tests.bots.botshelp import positions


def _engine_points(match_state: object, code: int) -> int:
    from kva.rules.engine import HandState

    assert isinstance(match_state, HandState)
    after = match_state.copy()
    after.apply_unchecked(code)
    return after.log[-1][3]


def test_points_of_matches_the_engine_for_every_legal_placement() -> None:
    checked = 0
    for match, view in positions(seed=31, choices=3000):
        board = view.board
        for code in view.legal:
            expected = _engine_points(match.hand, code)
            got = points_of(board.ask, board.value, board.opening_double_free, board.stavka, code)
            assert got == expected, (code, got, expected)
            checked += 1
    assert checked > 6000


def test_greedy_scores_the_most_now_and_breaks_ties_by_the_heaviest_tile() -> None:
    bot = GreedyBot()
    for match, view in positions(seed=32, choices=1500):
        if len(view.legal) < 2:
            continue
        pick = bot.choose(view, random.Random(0))
        scores = {code: _engine_points(match.hand, code) for code in view.legal}
        top = max(scores.values())
        assert scores[pick] == top
        heaviest = max(code_pips(c) for c in view.legal if scores[c] == top)
        assert code_pips(pick) == heaviest


def test_easy_is_mostly_greedy_and_never_gives_away_fifteen_points() -> None:
    easy, greedy = EasyBot(), GreedyBot()
    rng = random.Random(4)
    same = total = 0
    for match, view in positions(seed=33, choices=1500):
        if len(view.legal) < 2:
            continue
        pick = easy.choose(view, rng)
        best = greedy.choose(view, rng)
        total += 1
        same += pick == best
        if _engine_points(match.hand, best) >= 15:
            assert pick == best
    assert 0.6 < same / total < 0.95
