"""The move list: the hand's moves as the viewer's own state has them, newest last; another
player's draws only as a count, never a tile; open beside the board on a wide screen and
folded on a phone."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, play_until_over, shot, start_match, tid

pytestmark = pytest.mark.browser

TILE = re.compile(r"\d\D\d")  # "3-5" (its hyphen may be a non-breaking one)

#: Matches played at most until the bot has drawn in one of them.
MATCHES_FOR_A_BOT_DRAW = 4

_LINES = """() => [...document.querySelectorAll('#move-list-items li')].map(li => ({
  p: Number(li.dataset.p), kind: li.dataset.kind, count: Number(li.dataset.count),
  tiles: li.dataset.tiles ?? null, text: li.textContent }))"""


def expected_lines(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hand's moves as lines: a run of draws by one player is one line with its count."""
    lines: list[dict[str, Any]] = []
    for m in moves:
        last = lines[-1] if lines else None
        if m["kind"] == "draw" and last and last["kind"] == "draw" and last["p"] == m["p"]:
            last["count"] += 1
            last["tiles"] += [m["tile"]] if m["tile"] else []
            continue
        lines.append({"p": m["p"], "kind": m["kind"], "count": 1,
                      "tiles": [m["tile"]] if m["tile"] else []})
    return lines


def _check(game: Game, seen: dict[str, int]) -> None:
    """The list matches the page's latest state (retried while a new state lands)."""
    deadline = time.monotonic() + 3
    while True:
        view = game.view
        want = expected_lines(view["moves"])
        got = game.page.evaluate(_LINES)
        simple = [{"p": g["p"], "kind": g["kind"], "count": g["count"],
                   "tiles": g["tiles"].split() if g["tiles"] else []} for g in got]
        if simple == want or time.monotonic() > deadline:
            break
        game.page.wait_for_timeout(50)
    assert simple == want, (simple, want)
    for line in got:
        if line["kind"] == "draw" and line["p"] != view["player"]:
            seen["hidden_draws"] += line["count"]
            assert line["tiles"] is None and not TILE.search(line["text"]), line
        elif line["kind"] == "draw":
            seen["own_draws"] += line["count"]


def test_the_list_matches_the_hand_and_never_shows_the_opponents_draws(
    new_context: Callable[..., Any]
) -> None:
    """Whole matches to 75 against the easy bot, the list checked after every placement, until
    the bot's draws have been on the list (most deals make it draw; a match in which it never
    did is followed by another, up to four)."""
    page = new_context().new_page()
    seen = {"hidden_draws": 0, "own_draws": 0}
    for match in range(1, MATCHES_FOR_A_BOT_DRAW + 1):
        game = start_match(page, "bot:easy", target=75)
        panel = page.locator(tid("move-list"))
        assert panel.evaluate("d => d.open") is True  # beside the board on a wide screen

        def step(n: int, game: Game = game, match: int = match) -> None:
            _check(game, seen)
            if n == 3 and match == 1:
                shot(page, "move-list-01-desktop")

        play_until_over([game], on_step=step)
        if seen["hidden_draws"]:
            break
    # each of the bot's draws on the list was checked: a count, never a tile
    assert seen["hidden_draws"] > 0, seen


def test_on_a_phone_the_list_is_folded_until_opened(new_context: Callable[..., Any]) -> None:
    page = new_context(viewport={"width": 375, "height": 667}).new_page()
    game = start_match(page, "bot:easy")
    while game.play_one() is None:
        page.wait_for_timeout(100)
    panel = page.locator(tid("move-list"))
    assert panel.evaluate("d => d.open") is False
    assert page.locator("#move-list-items").is_hidden()
    panel.locator("summary").click()
    page.locator("#move-list-items li").first.wait_for()
    assert panel.evaluate("d => d.open") is True
    _check(game, {"hidden_draws": 0, "own_draws": 0})
    shot(page, "move-list-02-phone-open")
