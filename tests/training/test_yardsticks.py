"""The yardsticks of tools/training (``hard-v1``, ``hard-v2``, ``seer``): never offered to
players nor known to ``kva``, blind but for ``seer``'s one channel, legal in every position, and
playable in a tournament through ``python -m tools.training tournament``."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from kva.bots import BOTS, PLAYER_LEVELS, Bot
from kva.cli import main as kva_main
from tests.bots.botshelp import assert_blind, assert_pure, positions, recorded_moves
from tools.training.cli import main
from tools.training.hard_v1 import HARD_V1, HardV1Bot, SeerBot
from tools.training.hard_v2 import HardV2Bot
from tools.training.yardsticks import ALL_BOTS, YARDSTICKS

#: ``seer`` with a small search budget, to keep the suite fast.
TEST_SEER: dict[str, float] = {"playouts": 12, "candidates": 2}


def _blind_yardsticks() -> list[Bot]:
    return [HardV2Bot.with_settings(playouts=24, exact_nodes=3000, exact_guesses=8),
            HardV1Bot.with_settings(playouts=24)]


def test_the_yardsticks_are_not_shipped_bots_and_never_offered_to_players() -> None:
    assert set(YARDSTICKS) == {"seer", "hard-v1", "hard-v2"}
    assert not set(YARDSTICKS) & (set(BOTS) | set(PLAYER_LEVELS))
    assert {name: ALL_BOTS[name]().name for name in YARDSTICKS} == {
        name: name for name in YARDSTICKS}


def test_the_blind_yardsticks_decide_from_the_view_alone() -> None:
    assert_blind(_blind_yardsticks())
    assert_pure(_blind_yardsticks())


def test_seer_plays_a_legal_action_once_shown_the_hand() -> None:
    seer = SeerBot.with_settings(**TEST_SEER)
    rng = random.Random(99)
    for match, view in positions(seed=2024, choices=500):
        assert view.player is not None
        seer.reveal(match.hand.hands[1 - view.player])
        assert seer.choose(view, rng) in view.legal


def test_seer_refuses_to_play_without_being_shown_the_hand() -> None:
    seer = SeerBot.with_settings(**TEST_SEER)
    view = next(view for _match, view in positions(seed=8, choices=1) if len(view.legal) > 1)
    with pytest.raises(RuntimeError):
        seer.choose(view, random.Random(0))


def test_hard_v1_makes_the_recorded_moves() -> None:
    assert recorded_moves(HardV1Bot(config=replace(HARD_V1, playouts=60)), 26, 30) == [
        68, 25, 32, 4, 16, 26, 92, 100, 44, 55, 32, 60, 162, 80, 48, 24, 20, 80, 104, 41, 89, 94,
        13, 17, 148, 12, 85, 109, 4, 20,
    ]


def test_seer_makes_the_recorded_moves() -> None:
    assert recorded_moves(SeerBot.with_settings(playouts=60), 27, 30) == [
        105, 97, 41, 17, 41, 34, 61, 21, 9, 13, 30, 9, 158, 104, 25, 76, 25, 5, 5, 89, 5, 138, 97,
        61, 93, 21, 92, 68, 108, 26,
    ]


def test_the_training_tournament_plays_the_yardsticks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--a", "seer:playouts=12", "--b", "hard-v1:playouts=12",
                 "--matches", "2", "--target", "75", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(
        "tournament: seer:playouts=12 vs hard-v1:playouts=12: ")


def test_kva_tournament_knows_no_yardstick_and_says_where_they_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert kva_main(["tournament", "--a", "hard-v2", "--b", "easy", "--matches", "2"]) == 2
    assert "python -m tools.training tournament" in capsys.readouterr().err
