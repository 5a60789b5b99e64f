"""Provably fair deals in the browser (docs/fairness.md): the game page shows the commitment
from the first state, sends its own client seed after it, and at the match's end checks the
record against what it saw ("all N deals verified"); the replay page checks the record alone;
a tampered record, or a page that cannot use WebCrypto, says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, shot, start_match

pytestmark = pytest.mark.browser


def _badge(page: Any) -> Any:
    return page.locator('[data-testid="fair-badge"]')


def _resign(game: Game) -> None:
    game.page.on("dialog", lambda d: d.accept())
    game.loc("resign").first.click()
    game.loc("match-result").first.wait_for(state="visible")
    assert game.view["over"] is True


def _wait_state(page: Any, state: str) -> None:
    page.wait_for_function(
        "s => document.querySelector('[data-testid=\"fair-badge\"]').dataset.state === s",
        arg=state)


def test_bot_match_commits_takes_the_page_seed_and_verifies(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=175)
    first = game.states[0]
    committed = first["fair"]["commitment"]
    assert len(committed) == 64 and first["fair"]["server_seed"] is None
    badge = _badge(page).first
    badge.wait_for(state="visible")
    assert badge.get_attribute("data-state") == "committed"
    assert committed[:8] in badge.inner_text()
    assert committed in (badge.get_attribute("title") or "")
    # The page sent its own seed, after the commitment, and the match was dealt with it.
    seeds = [json.loads(f)["seed"] for f in game.sent if '"seed"' in f]
    assert len(seeds) >= 1 and len(set(seeds)) == 1, seeds
    assert game.view["hand"], "the match was not dealt"
    assert game.states[-1]["fair"]["client_seeds"][0] == seeds[0]
    kept = json.loads(page.evaluate(f"sessionStorage.getItem('kva:{game.match_id}:fair')"))
    assert kept == {"commitment": committed, "seed": seeds[0]}
    shot(page, "fair-01-committed")

    _resign(game)  # a resignation ends the match: the server seed is revealed
    _wait_state(page, "verified")
    record = json.loads(page.request.get(f"/m/{game.match_id}/record.json").text())
    fair = record["meta"]["fair"]
    assert fair["commitment"] == committed and fair["client_seeds"][0] == seeds[0]
    assert fair["seed_by"] == ["player", "server"]
    text = badge.inner_text()
    hands = len(record["hands"])
    assert (f"All {hands} deals verified" if hands > 1 else "All 1 deal verified") in text, text
    shot(page, "fair-02-verified")

    page.goto(f"/m/{game.match_id}/replay")
    _wait_state(page, "verified")
    assert f"{len(record['hands'])}" in _badge(page).first.inner_text()
    shot(page, "fair-03-replay")


def test_a_tampered_record_shows_the_warning(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()

    def swap_a_tile(route: Any) -> None:
        response = route.fetch()
        record = json.loads(response.text())
        deal = record["hands"][0]["deal"]
        deal["hands"][0][0], deal["bazaar"][0] = deal["bazaar"][0], deal["hands"][0][0]
        headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
        route.fulfill(response=response, body=json.dumps(record), headers=headers)

    page.route("**/record.json", swap_a_tile)
    game = start_match(page, "bot:easy", target=175)
    _badge(page).first.wait_for(state="visible")
    _resign(game)
    _wait_state(page, "failed")
    text = _badge(page).first.inner_text()
    assert "Warning" in text and "hands[0].deal" in text, text
    shot(page, "fair-04-tampered")


def test_without_webcrypto_the_replay_says_it_cannot_verify(
    new_context: Callable[..., Any], server: Any
) -> None:
    context = new_context()
    page = context.new_page()
    game = start_match(page, "bot:easy", target=175)
    _resign(game)
    _wait_state(page, "verified")
    # As on plain HTTP away from localhost: no secure context, so no crypto.subtle.
    context.add_init_script("Object.defineProperty(window, 'isSecureContext', {value: false})")
    page.goto(f"/m/{game.match_id}/replay")
    _wait_state(page, "unavailable")
    assert "HTTPS" in _badge(page).first.inner_text()
