"""A reload in the middle of a hand restores the game exactly: the same tiles in hand, the
same board, the same scores, and it is still my move."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, norm_tile, shot, start_match

pytestmark = pytest.mark.browser


def _wait_my_turn(game: Game) -> None:
    game.page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"hand\"] .legal').length > 0"
    )


def test_reload_mid_hand_restores_the_game(new_context: Callable[..., Any], server: Any) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=175)
    for _ in range(4):
        _wait_my_turn(game)
        game.play_one()
    _wait_my_turn(game)
    page.wait_for_timeout(300)  # let the last render settle
    view = game.view
    assert not view["over"] and view["turn"] == view["player"]
    assert len(view["moves"]) >= 5, "expected a hand in progress"
    before = game.snapshot()
    assert before["board"], "the board shows no tile"
    assert before["legal"], "it is my move: some tile must be playable"
    assert sorted(map(norm_tile, before["hand"])) == sorted(map(norm_tile, view["hand"]))
    shot(page, "reload-01-before")

    states_before = len(game.states)
    page.reload()
    game.wait_states(states_before)
    _wait_my_turn(game)
    page.wait_for_timeout(300)
    after = game.snapshot()
    shot(page, "reload-02-after")
    assert after == before
    assert game.view["hand"] == view["hand"] and game.view["board"] == view["board"]
    assert game.view["scores"] == view["scores"]
    # And the game goes on from there.
    assert game.play_one() is not None
