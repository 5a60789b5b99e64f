"""The site on a 375 px phone: nothing scrolls sideways, and the hand and board stay on screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from e2e_helpers import Game, shot, start_match

pytestmark = pytest.mark.browser

WIDTH = 375


def _assert_fits(page: Any, where: str) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    body_width = page.evaluate("document.body.scrollWidth")
    assert scroll_width <= WIDTH, f"{where}: page is {scroll_width} px wide (> {WIDTH})"
    assert body_width <= WIDTH, f"{where}: body is {body_width} px wide (> {WIDTH})"


def _assert_on_screen(game: Game, name: str) -> None:
    el = game.loc(name).first
    assert el.is_visible(), f"{name} is not visible"
    box = el.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0, (name, box)
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= WIDTH + 0.5, (name, box)


def test_the_game_works_at_375_px(new_context: Callable[..., Any], server: Any) -> None:
    ctx = new_context(
        viewport={"width": WIDTH, "height": 740},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page = ctx.new_page()
    page.goto("/")
    _assert_fits(page, "home")
    shot(page, "mobile-01-home", full_page=True)

    game = start_match(page, "bot:easy", target=75)
    _assert_fits(page, "game")
    for name in ("hand", "board", "score", "turn"):
        _assert_on_screen(game, name)
    # Every tile in hand is fully on screen horizontally (the hand wraps, it does not overflow).
    for box in (
        game.loc("hand")
        .locator("[data-tile]")
        .evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return {x: r.x, w: r.width}; })"
        )
    ):
        assert box["x"] >= -0.5 and box["x"] + box["w"] <= WIDTH + 0.5, box
    shot(page, "mobile-02-game-start")

    played = 0
    for _ in range(60):
        if played >= 8 or game.match_over():
            break
        if game.play_one() is not None:
            played += 1
        else:
            page.wait_for_timeout(100)
    assert played >= 4
    page.wait_for_timeout(300)
    _assert_fits(page, "game after moves")
    _assert_on_screen(game, "hand")
    _assert_on_screen(game, "board")
    shot(page, "mobile-03-game-later")
    shot(page, "mobile-04-game-full", full_page=True)
