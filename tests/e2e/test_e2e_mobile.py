"""The site on a 375 px phone: nothing scrolls sideways, and the hand and board stay on screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, shot, start_match

pytestmark = pytest.mark.browser

WIDTH = 375


def _assert_fits(page: Any, where: str) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    body_width = page.evaluate("document.body.scrollWidth")
    assert scroll_width <= WIDTH, f"{where}: page is {scroll_width} px wide (> {WIDTH})"
    assert body_width <= WIDTH, f"{where}: body is {body_width} px wide (> {WIDTH})"


#: Pairs of visible text boxes that overlap, outside the board drawing, transient notices and
#: the result panels, which cover the board on purpose (a hand may end within the moves played).
_OVERLAPS_JS = """() => {
  const leaves = [...document.querySelectorAll('body *')].filter(e =>
    !e.closest('svg, [aria-live], [hidden], script, style, option, select, ' +
               '[data-testid="hand-result"], [data-testid="match-result"]') &&
    [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) &&
    e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden');
  const boxes = leaves.map(e => {
    const range = document.createRange(); range.selectNodeContents(e);
    return {e, r: range.getBoundingClientRect()};
  }).filter(b => b.r.width > 0 && b.r.height > 0 &&
    // above or left of the document (a skip link until it has the focus): never drawn
    b.r.bottom + window.scrollY > 0 && b.r.right + window.scrollX > 0);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
    const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
    const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
    const text = x => x.e.textContent.trim().slice(0, 30);
    if (w > 2 && h > 2) out.push([text(a), text(b)]);
  }
  return out;
}"""


def _assert_no_text_overlaps(page: Any, where: str) -> None:
    overlaps = page.evaluate(_OVERLAPS_JS)
    assert not overlaps, f"{where}: texts drawn over each other: {overlaps}"


def _assert_on_screen(game: Game, name: str) -> None:
    el = game.loc(name).first
    assert el.is_visible(), f"{name} is not visible"
    box = el.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0, (name, box)
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= WIDTH + 0.5, (name, box)


@pytest.mark.parametrize("lang", ["en", "ka", "ru", "tr"])  # longer words must wrap too
def test_the_game_works_at_375_px(new_context: Callable[..., Any], server: Any, lang: str) -> None:
    ctx = new_context(
        viewport={"width": WIDTH, "height": 740},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page = ctx.new_page()
    page.goto("/")
    _assert_fits(page, "home")
    shot(page, f"mobile-{lang}-01-home", full_page=True)

    _assert_no_text_overlaps(page, "home")
    game = start_match(page, "bot:easy", target=75)
    _assert_fits(page, "game")
    page.wait_for_timeout(300)
    _assert_no_text_overlaps(page, "game")
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
    shot(page, f"mobile-{lang}-02-game-start")

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
    _assert_no_text_overlaps(page, "game after moves")
    shot(page, f"mobile-{lang}-03-game-later")
    shot(page, f"mobile-{lang}-04-game-full", full_page=True)
    # An opponent who has drawn a lot: the face-down hand wraps; the bazaar pill keeps its text
    # on one line (squeezed, it once broke "+2" from its lock, drawn across the label).
    for extra, drawable in ((4, "4"), (10, "12"), (16, "4")):
        lines = page.evaluate("""([extra, drawable]) => {
          const hand = document.getElementById('opp-hand'), back = hand.querySelector('.tile');
          for (let i = 0; i < extra && back; i++) hand.insertBefore(back.cloneNode(true), back);
          document.getElementById('bazaar-drawable').textContent = drawable;
          const parts = ['.bazaar-label', '#bazaar-drawable', '#bazaar-protected-text', '.lock']
            .flatMap(sel => [...document.querySelector('#bazaar ' + sel).getClientRects()]);
          const middles = parts.map(r => (r.top + r.bottom) / 2);
          const lineHeight = Math.max(...parts.map(r => r.height));
          return 1 + Math.round((Math.max(...middles) - Math.min(...middles)) / lineHeight);
        }""", [extra, drawable])
        assert lines == 1, f"bazaar text on {lines} lines beside {extra} more face-down tiles"
        _assert_fits(page, "opponent with many tiles")
        _assert_no_text_overlaps(page, "opponent with many tiles")
    _assert_on_screen(game, "hand")
    _assert_on_screen(game, "board")
