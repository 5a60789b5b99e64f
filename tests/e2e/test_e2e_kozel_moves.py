"""The Kozel table's move list: every action of the hand as the player's own state has it
(who, which tile on which end, draws counted, knocks), newest last; folded on a phone until
opened, as at the Georgian table (tests/e2e/test_e2e_move_list.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, set_field, tid

pytestmark = pytest.mark.browser

_LINES = """() => [...document.querySelectorAll('#move-list-items li')].map(li => ({
  p: Number(li.dataset.p), kind: li.dataset.kind, count: Number(li.dataset.count),
  who: li.querySelector('.ml-who').textContent,
  what: li.querySelector('.ml-what').textContent }))"""

#: The list's words for a knock and a draw, in English (templates/_move_list.html).
KNOCKED = "knocked"
DREW = "drew from the bazaar: "


def expected_lines(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Kozel hand's moves (kva.kozel.view.move_to_json) as the list's lines: a run of
    draws by one player is one line with its count."""
    lines: list[dict[str, Any]] = []
    for m in moves:
        kind = "draw" if m.get("draw") else "knock" if m.get("knock") else (
            "play" if m.get("end") else "open")
        last = lines[-1] if lines else None
        if kind == "draw" and last and last["kind"] == "draw" and last["p"] == m["p"]:
            last["count"] += 1
            continue
        lines.append({"p": m["p"], "kind": kind, "count": 1, "tile": m.get("play"),
                      "end": m.get("end")})
    return lines


def check_list(game: Game) -> list[dict[str, Any]]:
    """The list says what the page's latest state says (retried while a new state lands)."""
    page = game.page
    deadline = time.monotonic() + 5
    while True:
        want = expected_lines(game.view["moves"])
        got = page.evaluate(_LINES)
        shape = [{"p": g["p"], "kind": g["kind"], "count": g["count"]} for g in got]
        if shape == [{k: w[k] for k in ("p", "kind", "count")} for w in want]:
            break
        assert time.monotonic() < deadline, (got, want)
        page.wait_for_timeout(50)
    for line, wanted in zip(got, want, strict=True):
        assert line["who"], line
        if wanted["kind"] in ("open", "play"):
            assert wanted["tile"].replace("-", "\u2011") in line["what"], (line, wanted)
        if wanted["kind"] == "play":
            side = "left" if wanted["end"] == "L" else "right"
            assert side in line["what"], (line, wanted)
        if wanted["kind"] == "knock":
            assert line["what"] == KNOCKED, line
        if wanted["kind"] == "draw":
            assert line["what"] == f"{DREW}{wanted['count']}", line
    return got


def test_the_kozel_move_list_follows_the_hand_and_is_folded_on_a_phone(
    new_context: Callable[..., Any], server: Any,
) -> None:
    from playwright.sync_api import Error as PlaywrightError

    page = new_context(viewport={"width": 375, "height": 667}, is_mobile=True,
                       has_touch=True).new_page()
    game = Game(page)
    page.goto("/")
    set_field(page, "game", "kozel")
    set_field(page, "seats", "4")
    set_field(page, "opponent", "bot:easy")
    page.locator(tid("start")).click()
    page.locator(f'{tid("kozel-hand")} button').first.wait_for(timeout=20_000)
    panel = page.locator(tid("move-list"))
    assert panel.evaluate("d => d.open") is False
    assert page.locator("#move-list-body").is_hidden()
    panel.locator("summary").click()
    page.locator("#move-list-body").wait_for(state="visible")  # its lines, or "no moves yet"

    hand_end = page.locator(tid("kozel-hand-end"))
    longest = 0
    kinds: set[str] = set()
    deadline = time.monotonic() + 60
    while not hand_end.is_visible():
        assert time.monotonic() < deadline, "the first hand did not end in 60 s"
        lines = check_list(game)
        longest = max(longest, len(lines))
        kinds |= {line["kind"] for line in lines}
        playable = page.locator('#k-hand button[data-playable="1"]')
        if playable.count():
            with suppress(PlaywrightError):  # the state changed under the click: look again
                playable.first.click(timeout=1000)
                if page.locator(tid("kozel-ends")).is_visible():
                    page.locator(tid("kozel-end-L")).click(timeout=1000)
        page.wait_for_timeout(100)
    # A hand at four has an opening and tiles played on it; its lines were each checked.
    assert longest >= 4 and {"open", "play"} <= kinds, (longest, kinds)
