"""A four-seat Kozel table in play fits every screen, in every language: at 375 x 667,
667 x 375 and 1280 x 800 the line of tiles, the player's hand and every other player's tile
count, score and clock are on the screen without scrolling sideways, no part of the table
covers another's text, and the line's tiles are at least as readable as the Georgian board's
(24 px, tests/e2e/test_e2e_table_fits.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.e2e_helpers import set_field, tid

pytestmark = pytest.mark.browser

SIZES = {"phone": (375, 667), "landscape": (667, 375), "desktop": (1280, 800)}
LANGS = ["ka", "en", "ru", "tr"]
#: The shortest side of a tile on the line, in CSS pixels (the Georgian board's least).
SMALLEST_TILE = 24

#: What must be on the screen: the line, the hand, each other player's count, score and clock.
MUST_SHOW = ["#k-line", "#k-hand", "#k-me",
             '[data-testid="kozel-player"]', '[data-testid="kozel-player"] .k-name',
             '[data-testid="kozel-held"]', '[data-testid="kozel-player"] .k-score',
             '[data-testid="kozel-player"] .k-clock']

#: Everything the test checks, measured at one moment (no state lands in between): the
#: tiles on the line and the shortest side of the smallest, what of ``sels`` is off the screen,
#: the pairs of the table's texts and tiles whose boxes overlap (neither inside the other),
#: and how far the page scrolls.
_MEASURE = """sels => {
  const line = [...document.querySelectorAll('#k-line .k-placed svg')]
    .map(e => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); });
  const off = sels.flatMap(sel => [...document.querySelectorAll(sel)].map(e => {
    const r = e.getBoundingClientRect();
    const out = r.width === 0 || r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5
      || r.bottom > innerHeight + 0.5;
    return out ? [sel, Math.round(r.left), Math.round(r.top), Math.round(r.right),
                  Math.round(r.bottom)] : null;
  })).filter(Boolean);
  const parts = [...document.querySelectorAll(`#kozel .k-name, #kozel .k-backs, #kozel .k-score,
    #kozel .k-clock, #kozel .k-knock, #kozel .k-info > span:not([hidden]), #k-status,
    #kozel .k-tile, #kozel .k-placed, #kozel .k-actions > button:not([hidden])`)]
    .filter(e => e.getBoundingClientRect().width > 0);
  const overlaps = [];
  for (let i = 0; i < parts.length; i += 1) {
    for (let j = i + 1; j < parts.length; j += 1) {
      const a = parts[i], b = parts[j];
      if (a.contains(b) || b.contains(a)) continue;
      const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 1 && h > 1) overlaps.push([a.className || a.id, a.textContent.slice(0, 20),
                                         b.className || b.id, b.textContent.slice(0, 20)]);
    }
  }
  return { tiles: line.length, smallest: line.length ? Math.min(...line) : 0, off, overlaps,
           players: document.querySelectorAll('[data-testid="kozel-player"]').length,
           scrollWidth: document.documentElement.scrollWidth, scrollY: window.scrollY };
}"""


def seat_four_at_the_table(page: Any) -> None:
    """A four-seat Kozel match against three easy bots, on the blitz clock (every seat's
    clock shows), from the home form."""
    page.goto("/")
    set_field(page, "game", "kozel")
    set_field(page, "seats", "4")
    set_field(page, "opponent", "bot:easy")
    set_field(page, "clock", "blitz")
    page.locator(tid("start")).click()
    page.locator(tid("kozel-table")).wait_for()


def measure_with_a_tile_down(page: Any) -> dict[str, Any]:
    """The table measured once a tile lies on the line (the player opens when the deal says
    so; a hand that ended before the measure is waited past)."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "no tile was placed in 30 s"
        found: dict[str, Any] = page.evaluate(_MEASURE, MUST_SHOW)
        if found["tiles"] and found["players"] == 3:
            return found
        playable = page.locator('#k-hand button[data-playable="1"]')
        if playable.count() and not page.locator("#k-line .k-placed").count():
            with suppress(PlaywrightError):  # the state changed under the click: look again
                playable.first.click(timeout=1000)
        page.wait_for_timeout(50)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", list(SIZES))
def test_a_four_seat_kozel_table_fits_the_screen(
    new_context: Callable[..., Any], server: Any, size: str, lang: str, tmp_path: Path,
) -> None:
    width, height = SIZES[size]
    phone = size != "desktop"
    ctx = new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                      has_touch=phone)
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    seat_four_at_the_table(page)
    found = measure_with_a_tile_down(page)
    if lang == LANGS[0]:
        page.screenshot(path=str(tmp_path / f"kozel-fit-{size}.png"))
    where = f"{size}/{lang}"
    assert found["scrollWidth"] <= width and found["scrollY"] == 0, (where, found)
    assert found["off"] == [], f"{where}: off the screen: {found['off']}"
    assert found["overlaps"] == [], f"{where}: overlapping: {found['overlaps']}"
    assert found["smallest"] >= SMALLEST_TILE, f"{where}: line tiles of {found['smallest']} px"
    assert errors == [], errors
