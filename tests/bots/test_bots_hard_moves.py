"""``hard`` and its variants make exactly the moves recorded for fixed positions and seeds.

The moves were recorded from the code as it was before its tunables became a ``HardConfig`` and
the rejected trials were deleted: production ``hard`` (ordinary positions and exact endgames),
small budgets with the endgame solver, the learned opponent model, the ``block`` bonus, the
flat search with the plain playout policy (``hard-v1`` and ``seer``: tests/training). A refactor
of the search that moves any of them is caught here.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from kva.bots.hard import HardBot
from kva.bots.hard_config import HARD, HardConfig
from kva.bots.opponent_model import HARD_OPPONENT_MODEL
from kva.rules import PlayerView
from kva.rules.engine import DRAWABLE
from tests.bots.botshelp import positions, recorded_moves


def _hard(base: HardConfig = HARD, **settings: Any) -> HardBot:
    """``hard`` with ``settings`` over ``base`` (production by default)."""
    return HardBot(config=replace(base, **settings))


def _endgames(seed: int, count: int) -> list[PlayerView]:
    """``count`` real choices where nothing can be drawn any more and both hands hold at most
    ten tiles: where production ``hard`` solves the hand exactly."""
    found: list[PlayerView] = []
    for _match, view in positions(seed=seed, choices=100_000):
        drawn_out = view.bazaar == "pass-only" or view.drawn_count >= DRAWABLE
        if len(view.legal) > 1 and drawn_out and sum(view.hand_counts) <= 10:
            found.append(view)
            if len(found) == count:
                break
    return found


def test_production_hard_makes_the_recordedrecorded_moves() -> None:
    assert recorded_moves(_hard(), 21, 24) == [
        25, 105, 20, 16, 56, 51, 38, 40, 4, 40, 132, 33, 12, 53, 108, 68, 52, 49, 104, 59, 38,
        78, 41, 94,
    ]


def test_production_hard_makes_the_recorded_moves_in_exact_endgames() -> None:
    bot = _hard()
    moves = [bot.choose(view, random.Random(k)) for k, view in enumerate(_endgames(31, 10))]
    assert moves == [36, 64, 58, 77, 57, 25, 85, 69, 61, 46]


def test_small_budgets_with_the_endgame_solver_make_the_recordedrecorded_moves() -> None:
    bot = _hard(playouts=60, exact_nodes=3000, exact_guesses=8)
    assert recorded_moves(bot, 22, 60) == [
        105, 48, 28, 44, 29, 60, 52, 5, 37, 77, 126, 96, 40, 97, 77, 37, 28, 52, 166, 40, 44,
        109, 46, 109, 49, 33, 102, 22, 138, 32, 73, 85, 71, 48, 73, 85, 72, 26, 106, 36, 120,
        109, 12, 49, 16, 93, 77, 56, 42, 56, 60, 44, 116, 105, 25, 5, 88, 13, 23, 96,
    ]


def test_the_opponent_model_variant_makes_the_recordedrecorded_moves() -> None:
    bot = _hard(HARD_OPPONENT_MODEL, playouts=40, exact_nodes=3000, exact_guesses=8)
    assert recorded_moves(bot, 23, 30) == [
        105, 69, 80, 69, 98, 51, 56, 57, 39, 162, 84, 8, 8, 109, 84, 66, 134, 16, 40, 104, 100,
        61, 86, 70, 132, 69, 49, 76, 70, 5,
    ]


def test_the_block_bonus_makes_the_recordedrecorded_moves() -> None:
    bot = _hard(playouts=40, block=5.0, exact_nodes=0)
    assert recorded_moves(bot, 24, 30) == [
        96, 40, 88, 60, 51, 42, 46, 57, 73, 15, 128, 97, 104, 81, 52, 45, 5, 48, 33, 32, 118, 45,
        89, 77, 46, 65, 47, 61, 41, 6,
    ]


def test_the_flat_search_with_the_plain_policy_makes_the_recordedrecorded_moves() -> None:
    bot = _hard(playouts=40, threat=0.0, exact_nodes=0)
    assert recorded_moves(bot, 25, 30) == [
        105, 80, 53, 80, 57, 89, 65, 140, 64, 21, 65, 20, 45, 29, 109, 106, 111, 79, 2, 43, 89,
        17, 134, 36, 69, 105, 36, 38, 38, 128,
    ]

