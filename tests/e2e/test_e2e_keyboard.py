"""A whole match by keyboard alone, and what a screen reader or keyboard player needs: the
tiles come before Resign, a skip link leads to them, ends are named by side and number, the
board has a description, and the hand-end and match-end dialogs take the focus."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, shot, tid

pytestmark = pytest.mark.browser


def _tab_to(page: Any, selector: str, limit: int = 40) -> int:
    """Press Tab until ``selector`` has the focus; how many presses it took."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return n
    raise AssertionError(f"{selector} never took the focus in {limit} Tab presses")


def _actions(game: Game) -> int:
    """How many actions the page has sent over its socket."""
    return sum('"type":"action"' in frame for frame in game.sent)


def _start_by_keyboard(page: Any) -> Game:
    game = Game(page)
    page.goto("/")
    _tab_to(page, 'select[name="opponent"]')
    # The first option is the easy bot; Home picks it without opening the list.
    page.keyboard.press("Home")
    _tab_to(page, 'select[name="target"]')
    page.keyboard.press("Home")  # 75 points: the shortest match
    _tab_to(page, tid("start"))
    page.keyboard.press("Enter")
    game.wait_ready()
    return game


def test_a_whole_match_by_keyboard_only(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    game = _start_by_keyboard(page)
    assert game.view["over"] is False
    deadline = time.monotonic() + 240
    moves = 0
    while not game.match_over():
        assert time.monotonic() < deadline, f"not over after {moves} moves: {game.view}"
        if page.locator(tid("hand-result")).is_visible():
            # The hand-end dialog has the focus: Enter on "Next hand" closes it.
            focused = page.evaluate("document.activeElement.id")
            assert focused == "hr-close", f"the hand-end dialog is open, the focus on {focused!r}"
            page.keyboard.press("Enter")
            page.wait_for_timeout(30)
            continue
        if not game.my_turn() or game.legal_tiles().count() == 0:
            page.wait_for_timeout(40)
            continue
        before = len(game.states)
        tiles = page.locator("#hand .tile[data-tile]")
        names = [tiles.nth(i).get_attribute("data-tile") for i in range(tiles.count())]
        legal = game.legal_tiles().first.get_attribute("data-tile")
        page.keyboard.press(str(names.index(legal) + 1))
        targets = page.locator(tid("end-target"))
        waited = time.monotonic() + 3
        while len(game.states) == before and not targets.count() and time.monotonic() < waited:
            page.wait_for_timeout(20)
        if len(game.states) == before and targets.count():
            # Several ends: the first has the focus; an arrow moves on, Enter plays.
            label = page.evaluate("document.activeElement.getAttribute('aria-label')")
            assert label and "+" not in label, label
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        if len(game.states) == before:
            game.wait_states(before)
        moves += 1
    shot(page, "keyboard-match-over")
    assert moves > 3
    # The match-end dialog takes the focus.
    page.wait_for_function("() => document.activeElement.id === 'mr-title'", timeout=5000)


def test_tiles_come_before_resign_and_the_board_is_described(
    new_context: Callable[..., Any]
) -> None:
    page = new_context().new_page()
    game = _start_by_keyboard(page)
    page.locator("#hand .tile").first.wait_for()
    # From the top of the page: the skip links first (content, then tiles), then the tiles.
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "skip-to-content"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "skip-to-hand"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") == "tile"
    order = page.evaluate("""() => {
      const all = [...document.querySelectorAll('#hand .tile, #resign')];
      return all.map(e => e.id || 'tile');
    }""")
    assert order[-1] == "resign" and order.count("tile") >= 1
    description = page.locator(tid("board")).get_attribute("aria-label") or ""
    if game.view["board"]["ends"]:
        assert any(ch.isdigit() for ch in description), description
        assert "end" in description
    else:
        assert description


def test_the_tab_title_says_your_turn(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    game = _start_by_keyboard(page)
    deadline = time.monotonic() + 20
    while not (game.my_turn() and game.legal_tiles().count()) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert game.my_turn()
    assert page.title().startswith("● Your turn")


def test_move_confirmation_asks_a_second_tap_before_a_move_is_sent(
    new_context: Callable[..., Any]
) -> None:
    ctx = new_context()
    ctx.add_init_script("localStorage.setItem('kva:prefs', JSON.stringify({confirm: 'on'}))")
    page = ctx.new_page()
    game = _start_by_keyboard(page)
    deadline = time.monotonic() + 20
    while not (game.my_turn() and game.legal_tiles().count()) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    sent = _actions(game)
    tile = game.legal_tiles().first
    name = tile.get_attribute("data-tile")
    tile.click()
    page.wait_for_timeout(300)
    assert _actions(game) == sent, "the move was sent on the first tap"
    before = len(game.states)
    target = page.locator(tid("end-target"))
    if target.count():
        target.first.click()
    else:  # an opening: no end to tap, the tile itself is tapped again
        assert "again" in page.locator(tid("status")).inner_text()
        page.locator(f'#hand .tile[data-tile="{name}"]').click()
    game.wait_states(before)
    assert _actions(game) == sent + 1
