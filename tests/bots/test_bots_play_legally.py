"""Every bot returns a legal action and never crashes, over 3,000 random positions."""

from __future__ import annotations

import random

from kva.bots import BOTS, PLAYER_LEVELS, Bot, make_bot
from kva.bots.hard import HardBot
from tests.bots.botshelp import positions

#: The production code with a small search budget (and a small exact-endgame budget: the
#: production one is 30,000 nodes), to keep the suite fast.
TEST_HARD: dict[str, float] = {"playouts": 12, "candidates": 2, "exact_nodes": 2000,
                               "exact_guesses": 8}


def test_every_bot_plays_a_legal_action_in_3000_random_positions() -> None:
    bots: list[Bot] = [make_bot(name) for name in BOTS if name != "hard"]
    bots.append(HardBot.with_settings(**TEST_HARD))
    rng = random.Random(99)
    choices = 0
    for _match, view in positions(seed=2024, choices=3_000):
        choices += len(view.legal) > 1
        for bot in bots:
            code = bot.choose(view, rng)
            assert code in view.legal, (bot.name, code, view.legal)
    assert choices == 3_000


def test_forced_positions_are_answered_without_search() -> None:
    hard = HardBot.with_settings(playouts=10**9, max_seconds=5.0)
    for _match, view in positions(seed=5, choices=50):
        if len(view.legal) == 1:
            assert hard.choose(view, random.Random(0)) == view.legal[0]


def test_player_levels_are_blind_bots_that_kva_ships() -> None:
    assert set(PLAYER_LEVELS) == {"easy", "normal", "hard"}
    assert all(level in BOTS for level in PLAYER_LEVELS)
