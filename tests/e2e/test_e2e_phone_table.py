"""The table on a phone with the clock's sound button on show: at 375 x 667 in Georgian and
Russian (the longest words) the whole hand stays in view while an end is offered; at 667 x 375
in Georgian the button covers neither "Your turn" nor the friend's link, which is in view, and
the match dialog's buttons are in view without scrolling it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.board_help import phone_context, stored_matches
from tests.e2e.e2e_helpers import Game, norm_tile, share_link, shot, start_match, tid

pytestmark = pytest.mark.browser

_IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5
    && r.right <= innerWidth + 0.5; }"""
_COVERS = """([a, b]) => { const x = document.querySelector(a).getBoundingClientRect();
  const range = document.createRange(); range.selectNodeContents(document.querySelector(b));
  const y = range.getBoundingClientRect();
  return x.width > 0 && y.width > 0 && x.left < y.right && y.left < x.right
    && x.top < y.bottom && y.top < x.bottom; }"""
_INSIDE_DIALOG = """sel => { const e = document.querySelector(sel).getBoundingClientRect();
  const d = document.getElementById('match-result').getBoundingClientRect();
  return e.top >= d.top - 0.5 && e.bottom <= d.bottom + 0.5; }"""


def _clocked_table(new_context: Callable[..., Any], server: Any, size: str,
                   lang: str) -> list[Game]:
    """A friend's table with the standard clock, both seats taken, both pages at ``size``."""
    host = start_match(phone_context(new_context, server, size, lang).new_page(), "friend",
                       clock="standard")
    guest = Game(phone_context(new_context, server, size, lang).new_page())
    guest.page.goto(share_link(host, server.base_url))
    join = guest.loc("join")
    if join.count() and join.first.is_visible():
        join.first.click()
    guest.wait_ready()
    host.wait_states(len(host.states) - 1)
    return [host, guest]


def _offer_an_end(games: list[Game], budget_s: float = 90) -> Game | None:
    """Play on (both seats) until a tile of the hand of the player to move fits two ends,
    and pick it: that page offers the ends. None when the match ends first."""
    deadline = time.monotonic() + budget_s
    while time.monotonic() < deadline:
        for game in games:
            game.dismiss_hand_result()
            if game.match_over():
                return None
            if not game.my_turn() or not game.legal_tiles().count():
                continue
            ends: dict[str, set[str]] = {}
            for action in game.view["legal"]:
                if action["type"] == "play" and action.get("end"):
                    ends.setdefault(norm_tile(action["tile"]), set()).add(action["end"])
            choice = next((tile for tile, where in ends.items() if len(where) > 1), None)
            if choice is not None:
                tile = next(t for t in game.hand_tiles() if norm_tile(t) == choice)
                game.page.locator(f'#hand [data-tile="{tile}"]').click()
                game.loc("end-target").first.wait_for()
                return game
            game.play_one()
        games[0].page.wait_for_timeout(30)
    raise AssertionError(f"no tile fitting two ends in {budget_s} s")


@pytest.mark.parametrize("lang", ["ka", "ru"])
def test_the_whole_hand_is_in_view_while_an_end_is_offered(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    game = _offer_an_end(_clocked_table(new_context, server, "phone", lang))
    if game is None:
        pytest.skip("the match ended before a tile fitted two ends")
    page = game.page
    page.wait_for_timeout(100)
    shot(page, f"phone-table-{lang}-choose-end")
    assert page.locator(tid("clock-sound")).is_visible()
    assert page.evaluate(_IN_VIEW, "#hand"), f"{lang}: the hand is pushed off the screen"
    assert page.evaluate("window.scrollY") == 0


def test_on_a_phones_side_the_sound_button_leaves_your_turn_readable(
    new_context: Callable[..., Any], server: Any
) -> None:
    games = _clocked_table(new_context, server, "landscape", "ka")
    deadline = time.monotonic() + 10
    while not any(g.my_turn() for g in games) and time.monotonic() < deadline:
        games[0].page.wait_for_timeout(40)
    game = next(g for g in games if g.my_turn())
    page = game.page
    page.locator("#turn.mine").wait_for()
    page.wait_for_timeout(100)
    shot(page, "landscape-ka-your-turn")
    assert page.locator(tid("clock-sound")).is_visible()
    assert not page.evaluate(_COVERS, ["#clock-sound", "#turn"]), "the button covers the turn"
    assert page.evaluate(_IN_VIEW, "#turn")


def test_on_a_phones_side_the_friends_link_is_in_view_and_uncovered(
    new_context: Callable[..., Any], server: Any
) -> None:
    host = start_match(phone_context(new_context, server, "landscape", "ka").new_page(),
                       "friend", clock="standard")
    page = host.page
    page.locator(tid("share-link")).wait_for()
    page.wait_for_timeout(100)
    shot(page, "landscape-ka-waiting")
    assert page.evaluate(_IN_VIEW, '[data-testid="share-link"]'), "the link is below the fold"
    assert page.evaluate(_IN_VIEW, "#copy-link")
    sound = page.locator(tid("clock-sound"))
    if sound.is_visible():
        assert not page.evaluate(_COVERS, ["#clock-sound", "#share-box"])


def test_on_a_phones_side_the_match_dialogs_buttons_are_in_view(
    new_context: Callable[..., Any], server: Any
) -> None:
    [match_id] = stored_matches(server, [7])
    page = phone_context(new_context, server, "landscape", "ka").new_page()
    page.goto(f"/m/{match_id}")
    page.locator(tid("match-result")).wait_for(state="visible")
    page.wait_for_timeout(100)
    shot(page, "landscape-ka-match-result")
    for sel in ("#mr-close", '[data-testid="replay-link"]'):
        assert page.evaluate(_IN_VIEW, sel), f"{sel} is out of view"
        assert page.evaluate(_INSIDE_DIALOG, sel), f"{sel} is below the dialog's own fold"
