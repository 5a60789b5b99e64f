"""Abort on a phone (375×667): the player clicks Abort before anyone has moved, confirms, and
both players see the match aborted; the history lists it as aborted. The Abort button and its
words are shot at the three sizes in Georgian and Russian (the longest words)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, shot, tid
from tests.e2e.players_help import make_players, open_game, signed_in

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
SIZES = {"phone": PHONE, "landscape": {"width": 667, "height": 375},
         "desktop": {"width": 1280, "height": 800}}


def _errors(page: Any) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


def _aborted(game: Game) -> None:
    game.page.wait_for_function(
        "() => document.querySelector('[data-testid=status]').textContent.includes('aborted')")


def test_a_player_aborts_on_a_phone_and_both_see_it_aborted(
        new_context: Callable[..., Any], server: Any) -> None:
    a, b, match_id = make_players(server, rated=True)
    game_a = open_game(signed_in(new_context, server, a, viewport=PHONE, is_mobile=True,
                                 has_touch=True), match_id)
    game_b = open_game(signed_in(new_context, server, b), match_id)
    errors = _errors(game_a.page)
    button = game_a.loc("abort")
    button.wait_for(state="visible")
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert game_a.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    game_a.page.once("dialog", lambda d: d.accept())
    button.click()
    _aborted(game_a)
    _aborted(game_b)
    assert not button.is_visible() and not game_b.loc("abort").is_visible()
    assert game_a.loc("resign").is_disabled()
    shot(game_a.page, "abort-en-phone-aborted")
    game_a.page.reload()  # the stored match says the same
    game_a.wait_ready()
    _aborted(game_a)
    page = game_a.page
    page.goto(f"/u/{a.nickname}/matches")
    row = page.locator(f'{tid("history-row")}[data-match-id="{match_id}"]')
    assert row.get_attribute("data-result") == "aborted"
    assert "Aborted" in row.inner_text()
    assert row.locator(tid("history-replay")).get_attribute("href") == f"/m/{match_id}"
    shot(page, "abort-en-phone-history")
    assert errors == []


def test_a_declined_confirm_aborts_nothing(new_context: Callable[..., Any], server: Any) -> None:
    a, _b, match_id = make_players(server, rated=False)
    game = open_game(signed_in(new_context, server, a, viewport=PHONE), match_id)
    game.loc("abort").wait_for(state="visible")
    game.page.once("dialog", lambda d: d.dismiss())
    game.loc("abort").click()
    game.page.wait_for_timeout(300)
    assert "aborted" not in game.loc("status").inner_text()
    assert game.loc("abort").is_visible() and game.loc("resign").is_enabled()


@pytest.mark.parametrize("lang", ["ka", "ru"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_abort_button_fits(new_context: Callable[..., Any], server: Any, lang: str,
                               size: str) -> None:
    a, _b, match_id = make_players(server, rated=False)
    ctx = signed_in(new_context, server, a, viewport=SIZES[size])
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    game = open_game(ctx, match_id)
    button = game.loc("abort")
    button.wait_for(state="visible")
    width = SIZES[size]["width"]
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert game.page.evaluate("document.documentElement.scrollWidth") <= width
    shot(game.page, f"abort-{lang}-{size}")

