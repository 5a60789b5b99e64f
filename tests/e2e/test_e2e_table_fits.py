"""The table fits every screen, in every language: at 375 x 667, 667 x 375 and 1280 x 800 the
board and the hand are on one screen without scrolling, nothing scrolls sideways, a toast never
covers an end offered to the player, and at a hand's end its result is a dialog whose "Next
hand" is in view while the board shows how the hand ended, in tiles of at least 24 px that
"See the board" uncovers whole."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.board_help import COVERED_JS
from tests.e2e.e2e_helpers import Game, set_field, shot, tid

pytestmark = pytest.mark.browser

SIZES = {"phone": (375, 667), "landscape": (667, 375), "desktop": (1280, 800)}
LANGS = ["en", "ka", "ru", "tr"]

_IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5
    && r.right <= innerWidth + 0.5; }"""
_OVERLAPS = """() => {
  const toast = document.getElementById('toast');
  if (!toast.classList.contains('show')) return [];
  const a = toast.getBoundingClientRect();
  return [...document.querySelectorAll('.end-target')].map(t => t.getBoundingClientRect())
    .filter(b => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
    .map(b => [b.left, b.top]);
}"""

_SMALLEST_TILE = """() => Math.min(...[...document.querySelectorAll('#board .tile-body')]
  .map(e => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); }))"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", list(SIZES))
def test_the_table_fits_the_screen(
    new_context: Callable[..., Any], server: Any, size: str, lang: str
) -> None:
    width, height = SIZES[size]
    phone = size != "desktop"
    ctx = new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                      has_touch=phone)
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page = ctx.new_page()
    game = Game(page)
    page.goto("/")
    set_field(page, "opponent", "bot:easy")
    set_field(page, "target", "75")
    page.locator(tid("start")).click()
    page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    game.wait_ready()
    page.locator("#hand .tile").first.wait_for()
    page.wait_for_timeout(200)

    # The player's own clock is on the screen and counts down (a bot table times each
    # player's first move).
    deadline = time.monotonic() + 10
    while not game.my_turn() and time.monotonic() < deadline:
        page.wait_for_timeout(40)
    mine = page.locator(f'{tid("my-clock")}.running')
    mine.wait_for()
    assert page.evaluate(_IN_VIEW, '[data-testid="my-clock"]'), f"{size}/{lang}: clock hidden"
    before = int(mine.get_attribute("data-ms") or 0)
    page.wait_for_timeout(1300)
    after = int(mine.get_attribute("data-ms") or 0)
    assert 0 < after <= before - 1000, (before, after)

    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate(_IN_VIEW, "#board"), f"{size}/{lang}: the board is not all in view"
    assert page.evaluate(_IN_VIEW, "#hand"), f"{size}/{lang}: the hand is not all in view"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"fit-{size}-{lang}-start")

    deadline = time.monotonic() + 90
    while not page.locator(tid("hand-result")).is_visible() and not game.match_over():
        assert time.monotonic() < deadline, "no hand ended in 90 s"
        if not game.my_turn() or not game.legal_tiles().count():
            page.wait_for_timeout(40)
            continue
        before = len(game.states)
        try:
            game.legal_tiles().first.click(timeout=2000)
        except Exception:
            continue
        targets = page.locator(tid("end-target"))
        page.wait_for_timeout(60)
        if len(game.states) == before and targets.count():
            assert not page.evaluate(_OVERLAPS), f"{size}/{lang}: a toast covers an end"
            for i in range(targets.count()):
                box = targets.nth(i).bounding_box()
                assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (
                    f"{size}/{lang}: an offered end is off screen: {box}")
            targets.first.click()
        with_new = time.monotonic() + 10
        while len(game.states) == before and time.monotonic() < with_new:
            page.wait_for_timeout(20)

    if game.match_over():
        pytest.skip("the match ended with its first hand")  # a 75-point domino: very rare
    page.wait_for_timeout(150)
    shot(page, f"fit-{size}-{lang}-hand-end")
    assert page.evaluate(_IN_VIEW, "#hr-close"), f"{size}/{lang}: Next hand is out of view"
    assert page.locator("#board").get_attribute("data-showing") == "final"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # The finished hand's tiles are readable, never a thin strip at the felt's edge.
    smallest = page.evaluate(_SMALLEST_TILE)
    print(f"{size}/{lang}: smallest tile of the final board {smallest:.1f} px")
    assert smallest >= 24, f"{size}/{lang}: final board tiles of {smallest:.1f} px"
    # The board can be seen whole: "See the board" puts the dialog aside, and "Show the
    # result" brings it back.
    page.locator(tid("hand-result-fold")).click()
    assert page.evaluate(COVERED_JS, "#board") == [], f"{size}/{lang}: the board is covered"
    assert page.locator("#board").get_attribute("data-showing") == "final"
    page.locator(tid("result-reopen")).click()
    assert page.evaluate(_IN_VIEW, "#hr-close")
    page.locator(tid("next-hand")).click()
    assert page.locator("#board").get_attribute("data-showing") == "current"


#: Tiles added to the page's hand by the test's relay, to show a hand after many draws.
EXTRA = ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-1", "1-2", "1-3", "1-4", "1-5",
         "1-6", "2-2", "2-3"]


@pytest.mark.parametrize("tiles", [11, 16])
@pytest.mark.parametrize("size", list(SIZES))
def test_a_hand_after_many_draws_stays_on_the_screen(
    new_context: Callable[..., Any], server: Any, size: str, tiles: int
) -> None:
    width, height = SIZES[size]
    phone = size != "desktop"
    page = new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                       has_touch=phone).new_page()

    def relay(ws: Any) -> None:
        server_ws = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and msg.get("you") is not None:
                hand = msg["view"]["hand"]
                hand += [t for t in EXTRA if t not in hand][: max(0, tiles - len(hand))]
                message = json.dumps(msg)
            ws.send(message)

        server_ws.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/m/"), relay)
    page.goto("/")
    set_field(page, "opponent", "bot:easy")
    page.locator(tid("start")).click()
    page.wait_for_url(re.compile(r"/m/[^/?#]+$"))
    page.wait_for_function(f"() => document.querySelectorAll('#hand .tile').length >= {tiles}")
    page.wait_for_timeout(150)
    shot(page, f"fit-{size}-{tiles}-tiles")
    assert page.evaluate(_IN_VIEW, "#hand"), f"{size}: a hand of {tiles} runs off the screen"
    assert page.evaluate(_IN_VIEW, "#board"), f"{size}: the board runs off the screen"
