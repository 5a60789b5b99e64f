"""Helpers of the board's browser tests: finished matches written straight into the server's
database (a long match replays hundreds of positions in seconds), and where the board's tiles
lie on the screen."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kva.storage.db import create_engine, session_factory
from tests.helpers.community_help import finished_match

SIZES = {"phone": (375, 667), "landscape": (667, 375), "desktop": (1280, 800)}


def stored_matches(server: Any, seeds: list[int]) -> list[str]:
    """Finished bot-against-bot matches of random legal play from ``seeds``, in the server's
    database; their ids."""

    async def run() -> list[str]:
        engine = create_engine(str(server.database_url))
        try:
            sessions = session_factory(engine)
            return [(await finished_match(sessions, None, None, seed=seed, rated=False,
                                          bots=("easy", "normal"))).id for seed in seeds]
        finally:
            await engine.dispose()

    # Playwright's sync API keeps an event loop running in this thread: use another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()


def phone_context(new_context: Any, server: Any, size: str, lang: str = "en") -> Any:
    """A browser context of ``size`` (a key of ``SIZES``) in ``lang``, touch on phones."""
    width, height = SIZES[size]
    phone = size != "desktop"
    ctx = new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                      has_touch=phone)
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    return ctx


#: Points of the board's box (a grid) where something other than the board is on top; of the
#: part in the felt's view when a long line has grown taller than the felt and scrolls in it.
COVERED_JS = """sel => {
  const board = document.querySelector(sel);
  const b = board.getBoundingClientRect();
  const w = board.parentElement.getBoundingClientRect();
  const top = Math.max(b.top, w.top), bottom = Math.min(b.bottom, w.bottom);
  const r = { left: b.left, width: b.width, top, height: bottom - top };
  const hits = [];
  for (let i = 1; i < 12; i++) for (let j = 1; j < 12; j++) {
    const x = r.left + r.width * i / 12, y = r.top + r.height * j / 12;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
      hits.push([x, y, 'off']); continue; }
    const e = document.elementFromPoint(x, y);
    if (!e || !(e === board || board.contains(e))) {
      hits.push([x, y, e ? (e.id || e.className) : null]); }
  }
  return hits;
}"""


#: Step a replay page through every position (its own "kva:replay-go" event) and measure the
#: board at each: the smallest tile's short side, tiles overlapping, tiles outside the board's
#: box or the felt's width, the board scrolling sideways, and positions where it grows taller
#: than the felt.
REPLAY_SURVEY_JS = """() => {
  const root = document.getElementById('replay');
  const svg = document.getElementById('replay-board');
  const felt = svg.closest('.felt').getBoundingClientRect();
  const out = { positions: 0, smallest: Infinity, smallestAt: null, overlaps: [], outside: [],
    grows: 0 };
  for (let i = 0; ; i++) {
    document.dispatchEvent(new CustomEvent('kva:replay-go', { detail: i }));
    if (Number(root.dataset.position) !== i) break;
    out.positions += 1;
    if (svg.dataset.grows === '1') out.grows += 1;
    const box = svg.getBoundingClientRect();
    const wrap = svg.parentElement;
    if (wrap.scrollWidth > wrap.clientWidth + 1) out.outside.push([i, 'scrolls sideways']);
    const tiles = [...svg.querySelectorAll('[data-tile] .tile-body')].map(e => {
      const r = e.getBoundingClientRect();
      return { tile: e.parentNode.dataset.tile, l: r.left, t: r.top, r: r.right, b: r.bottom };
    });
    for (const a of tiles) {
      const side = Math.min(a.r - a.l, a.b - a.t);
      if (side < out.smallest) { out.smallest = side; out.smallestAt = i; }
      if (a.l < box.left - 0.5 || a.r > box.right + 0.5 || a.t < box.top - 0.5
          || a.b > box.bottom + 0.5 || a.l < felt.left || a.r > felt.right) {
        out.outside.push([i, a.tile]);
      }
    }
    for (let j = 0; j < tiles.length; j++) for (let k = j + 1; k < tiles.length; k++) {
      const a = tiles[j], b = tiles[k];
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
      const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > 1 && h > 1) out.overlaps.push([i, a.tile, b.tile]);
    }
  }
  return out;
}"""
