"""Whole four-seat Kozel matches in Chromium, by clicks: two people and two easy bots in
English, and four people in Russian. Each person's page acts only on what it offers when it is
that player's turn (a playable tile and its end, the draw or knock button, the hand's
summary), all pages driven in one loop. A fifth visitor watches the whole match: its page
never shows a face of anyone's hand and its WebSocket never carries a tile any hand holds.
At the end every page names the козёл and ranks the others, and the record downloaded from
the page passes ``kva record verify``.

Fish for one, no pair game: the quickest match Kozel offers. The limit of 101 still takes a
few hands; one match plays out in about 10 to 30 seconds on two busy cores."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, norm_tile, tid
from tests.e2e.kozel_help import (
    TILE,
    check_only_ordinary_refusals,
    join_table,
    open_table,
    play_together,
    see_the_end,
    verify_downloaded_record,
    wait_dealt,
)

pytestmark = pytest.mark.browser

RUSSIAN = {"locale": "ru-RU", "extra_http_headers": {"Accept-Language": "ru"}}

#: Run in a spectator's page before its scripts: at every change of the table it checks that
#: no tile face shows outside the line (the others' hands are face-down counts only).
WATCH_FOR_FACES = """
window.kozelLeaks = [];
window.kozelChecks = 0;
const check = () => {
  if (!document.getElementById("kozel")) return;
  window.kozelChecks += 1;
  for (const el of document.querySelectorAll("[data-tile]")) {
    if (!el.closest("#k-line")) window.kozelLeaks.push(el.outerHTML);
  }
  const hand = document.getElementById("k-hand");
  if (hand && hand.children.length) window.kozelLeaks.push(`own hand: ${hand.innerHTML}`);
  for (const player of document.querySelectorAll("#k-others .k-player")) {
    if (!player.querySelector(".k-backs")) window.kozelLeaks.push(player.outerHTML);
  }
};
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(check).observe(document.body,
    { subtree: true, childList: true, attributes: true, characterData: true });
  check();
});
"""


def _watch(new_context: Callable[..., Any], match_id: str, **kwargs: Any) -> Game:
    page = new_context(**kwargs).new_page()
    page.add_init_script(WATCH_FOR_FACES)
    game = Game(page)
    page.goto(f"/m/{match_id}")
    page.locator(tid("kozel-table")).wait_for()
    return game


def _person(new_context: Callable[..., Any], **kwargs: Any) -> Game:
    page = new_context(**kwargs).new_page()
    game = Game(page)
    game.page_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: game.page_errors.append(str(exc)))  # type: ignore[attr-defined]
    return game


def _check_the_end(game: Game, goat_words: tuple[str, str]) -> None:
    """The page's match end, as the server decided it: the козёл named (the page's own player
    told so), the sides ranked by score, no script error and no refused move."""
    page = game.page
    see_the_end(page)
    view = game.view
    limit = view["options"]["limit"]
    assert view["over"] and max(view["score"]) >= limit, view
    assert list(view["losers"]) == [s for s, v in enumerate(view["score"]) if v >= limit]
    goat = page.locator(tid("kozel-goat")).inner_text()
    you = game.states[-1]["you"]
    if you in view["losers"]:
        assert goat == goat_words[0], goat
    else:
        assert goat.startswith(goat_words[1]), goat
        for loser in view["losers"]:
            name = page.locator(f'{tid("kozel-player")}[data-seat="{loser}"] .k-name')
            assert name.inner_text() in goat, (goat, loser)
    ranked = page.locator("#k-standings li").all_inner_texts()
    assert [int(r.rsplit(" · ", 1)[1]) for r in ranked] == sorted(view["score"]), ranked
    check_only_ordinary_refusals(game)
    assert getattr(game, "page_errors", []) == [], game.page_errors  # type: ignore[attr-defined]


def _check_the_spectator(watcher: Game, players: list[Game]) -> None:
    """Whatever the spectator was sent or shown, it never held a tile of anyone's hand; it
    was sent states of every hand, to the end."""
    leaks, checks = watcher.page.evaluate("[window.kozelLeaks, window.kozelChecks]")
    assert leaks == [], leaks[:5]
    held: dict[int, set[str]] = {}  # version -> every tile some person's page said it held
    for game in players:
        for state in game.states:
            held.setdefault(state["version"], set()).update(
                norm_tile(t) for t in state["view"].get("tiles", ()))
    frames = [s for s in watcher.states if s["view"].get("dealt", True)]
    hands = watcher.view["hand"]
    assert watcher.view["over"] and {s["view"]["hand"] for s in frames} == set(
        range(1, hands + 1)), "the spectator did not watch every hand"
    assert checks >= hands, (checks, hands)  # its page looked at the table all match long
    compared = 0
    for state in frames:
        assert state["you"] is None and state["view"]["tiles"] == [], state
        public = copy.deepcopy(state)
        line = {norm_tile(t) for t in public["view"].pop("line")}
        played = {norm_tile(m["play"]) for m in public["view"].pop("moves") if "play" in m}
        assert played <= line, (played, line)
        action = (public.get("event") or {}).get("action") or {}
        if action.get("type") == "play":
            action.pop("tile")  # the tile just placed: public, whatever is dealt next
        # No tile but the public ones (the line, and the tile just placed) is named at all.
        assert not TILE.findall(json.dumps(public, ensure_ascii=False)), public
        if state["version"] in held:
            compared += 1
            assert not line & held[state["version"]], (state["version"], line)
    assert compared >= len(frames) / 2, (compared, len(frames))


def _play_and_check(people: list[Game], watcher: Game, goat_words: tuple[str, str],
                    tmp_path: Path) -> None:
    for game in people:
        wait_dealt(game.page)
    play_together([*people, watcher])
    for game in (*people, watcher):
        _check_the_end(game, goat_words)
    _check_the_spectator(watcher, people)
    doc = verify_downloaded_record(people[0].page, tmp_path)
    assert len(doc["players"]) == 4


def test_two_people_and_two_bots_play_a_whole_match_in_english(
    new_context: Callable[..., Any], server: Any, tmp_path: Path,
) -> None:
    host, guest = _person(new_context), _person(new_context)
    match_id = open_table(host.page, 4)
    watcher = _watch(new_context, match_id)
    join_table(guest.page, match_id)
    for _ in range(2):  # the creator seats an easy bot in each free seat left
        host.page.locator(tid("add-bot-easy")).click()
        host.page.wait_for_url(f"**/m/{match_id}")
    wait_dealt(host.page)
    bots = [p.get("bot") for p in host.states[-1]["players"]]
    assert bots == [None, None, "easy", "easy"], bots
    _play_and_check([host, guest], watcher, ("You are the goat.", "The goat: "), tmp_path)


def test_four_people_play_a_whole_match_in_russian(
    new_context: Callable[..., Any], server: Any, tmp_path: Path,
) -> None:
    people = [_person(new_context, **RUSSIAN) for _ in range(4)]
    match_id = open_table(people[0].page, 4)
    watcher = _watch(new_context, match_id, **RUSSIAN)
    for game in people[1:]:
        join_table(game.page, match_id)
    _play_and_check(people, watcher, ("Вы — козёл.", "Козёл: "), tmp_path)
