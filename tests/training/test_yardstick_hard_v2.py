"""``hard-v2`` is today's ``hard`` frozen as a yardstick: a fixed configuration of the same code
whose decisions for fixed views and seeds are pinned (digests recorded from ``hard`` as it was
when it was frozen), so a later change to the production ``hard`` cannot move it unnoticed."""

from __future__ import annotations

import hashlib
import random

from kva.bots import BOTS, PLAYER_LEVELS, Bot
from tests.bots.botshelp import positions
from tools.training.hard_v2 import HardV2Bot
from tools.training.yardsticks import YARDSTICKS


def _digest(bot: Bot, seed: int, choices: int) -> str:
    codes: list[int] = []
    for _match, view in positions(seed=seed, choices=choices):
        if len(view.legal) > 1:
            codes.append(bot.choose(view, random.Random(len(codes))))
    assert len(codes) == choices
    return hashlib.sha256(",".join(map(str, codes)).encode()).hexdigest()


def test_hard_v2_plays_exactly_as_the_hard_it_froze_for_fixed_seeds() -> None:
    # Small budgets over many positions (the endgame solver too), the production budget over
    # a few.
    small_budget = HardV2Bot.with_settings(playouts=60, exact_nodes=3000, exact_guesses=8)
    small = _digest(small_budget, seed=13, choices=120)
    assert small == "6e9bba7ac6583dd642454883da78ec0950c7a32ddd843b8fa907eeed72f336d0"
    production = _digest(HardV2Bot(), seed=14, choices=20)
    assert production == "0dfb9ca332ebcdad8458acf1297d0244328dddac888078378ceadb2032215dee"


def test_hard_v2_is_a_measurement_bot_never_offered_to_players() -> None:
    assert YARDSTICKS["hard-v2"]().name == "hard-v2"
    assert "hard-v2" not in BOTS and "hard-v2" not in PLAYER_LEVELS
