"""``hard-v1`` is the ``hard`` of before issue 13, frozen: it still makes exactly the same
decisions for the same views and seeds (digests recorded from that version)."""

from __future__ import annotations

import hashlib
import random

from kva.bots import BOTS, PLAYER_LEVELS
from tests.bots.botshelp import positions
from tools.training.hard_v1 import HardV1Bot
from tools.training.yardsticks import YARDSTICKS


def _digest(bot: HardV1Bot, seed: int, choices: int) -> str:
    codes: list[int] = []
    for _match, view in positions(seed=seed, choices=choices):
        if len(view.legal) > 1:
            codes.append(bot.choose(view, random.Random(len(codes))))
    assert len(codes) == choices
    return hashlib.sha256(",".join(map(str, codes)).encode()).hexdigest()


def test_hard_v1_plays_exactly_as_the_old_hard_for_fixed_seeds() -> None:
    # Small budget over many positions, and the production budget over a few.
    small = _digest(HardV1Bot.with_settings(playouts=60), seed=13, choices=120)
    assert small == "468cee5510681b6de20629b96d617a86664759119cae5a3be606b740770407b4"
    production = _digest(HardV1Bot(), seed=14, choices=25)
    assert production == "bac0a9dfab474fede566507c0629752f11cfafa810c9617bc85dcfef620ac5ba"


def test_hard_v1_is_a_measurement_bot_never_offered_to_players() -> None:
    assert "hard-v1" in YARDSTICKS
    assert "hard-v1" not in BOTS and "hard-v1" not in PLAYER_LEVELS
