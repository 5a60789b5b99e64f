"""A guest plays a whole match against the easy bot, only by clicking, and sees the result.

Also: resigning ends a match at once, and a finished match's record and replay are served.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from kva.rules import verify_record
from tests.e2e.e2e_helpers import Game, norm_tile, play_until_over, shot, start_match

pytestmark = pytest.mark.browser


def _check_finished(game: Game, target: int) -> dict[str, Any]:
    """The page's result agrees with the server's final state; returns that state's view."""
    view = game.view
    assert view["over"] is True, view
    result = game.loc("match-result").first
    assert result.is_visible()
    winner = result.get_attribute("data-winner")
    assert winner in ("you", "opponent"), winner
    assert (winner == "you") == (view["winner"] == view["player"]), (winner, view["winner"])
    mine, theirs = game.scores()
    assert (mine, theirs) == (view["scores"][view["player"]], view["scores"][1 - view["player"]])
    assert result.inner_text().strip(), "match-result shows no text"
    assert game.result_on_screen(), "match-result is below the fold: the player does not see it"
    # The last hand's result is part of the match dialog, not hidden under it.
    last = view["previous"][-1] if view.get("previous") else None
    if last and last["end"] != "forfeit":
        hand = game.loc("match-last-hand").first
        assert hand.is_visible(), "the match dialog hides the last hand's result"
        assert hand.get_attribute("data-end") == last["end"]
        assert hand.inner_text().strip()
    return view


def test_guest_plays_a_match_to_75_against_the_easy_bot(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=75)
    assert game.view["target"] == 75
    assert "75" in game.loc("target").inner_text()
    assert sorted(map(norm_tile, game.hand_tiles())) == sorted(map(norm_tile, game.view["hand"]))
    assert game.loc("hand").locator('[data-testid="tile"]').count() == len(game.view["hand"])
    shot(page, "bot-01-start")

    shots = {3: "bot-02-first-moves", 12: "bot-03-mid-hand"}
    game.hand_result_shot = "bot-04-hand-result"

    score_problems: list[str] = []

    def on_step(n: int) -> None:
        if n in shots:
            shot(page, shots[n])
        page.wait_for_timeout(60)  # let the page render the state it just received
        problem = game.live_score_problem()
        if problem:
            score_problems.append(problem)

    played = play_until_over([game], on_step=on_step)
    shot(page, "bot-05-match-result", full_page=True)
    view = _check_finished(game, 75)
    assert not score_problems, f"the score lags behind the points scored: {score_problems[:3]}"
    assert played >= 5
    scores = view["scores"]
    assert max(scores) >= 75 and scores[0] != scores[1], scores
    assert view["winner"] == scores.index(max(scores))
    kinds = [s["event"]["kind"] for s in game.states if s.get("event")]
    assert "match_end" in kinds, kinds
    assert game.errors == [], game.errors

    # The finished match's record is the georgian-domino/1 document of what was played.
    resp = page.request.get(f"/m/{game.match_id}/record.json")
    assert resp.status == 200, resp.text()[:500]
    doc = json.loads(resp.text())
    assert doc["format"] == "georgian-domino/1"
    assert doc["target"] == 75 and doc["score"] == scores
    match = verify_record(doc)
    assert list(match.scores) == scores


def test_resigning_ends_the_match_and_the_replay_steps_through_it(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()
    page.on("dialog", lambda d: d.accept())  # a confirm() before resigning is fine
    game = start_match(page, "bot:easy", target=175)
    for _ in range(2):
        if game.play_one() is None:
            page.wait_for_timeout(300)
    # In progress: no record yet.
    assert page.request.get(f"/m/{game.match_id}/record.json").status == 404
    game.loc("resign").first.click()
    confirm = page.locator('[data-testid="resign-confirm"]')
    if confirm.count() and confirm.first.is_visible():
        confirm.first.click()
    game.loc("match-result").first.wait_for(state="visible")
    shot(page, "resign-01-result")
    assert game.loc("match-result").first.get_attribute("data-winner") == "opponent"
    assert game.view["over"] is True and game.view["winner"] == 1 - game.view["player"]
    assert game.legal_tiles().count() == 0

    assert page.request.get(f"/m/{game.match_id}/record.json").status == 200
    page.goto(f"/m/{game.match_id}/replay")
    move = page.locator('[data-testid="replay-move"]')
    first = move.inner_text()
    page.locator('[data-testid="replay-next"]').click()
    page.wait_for_function(
        "t => document.querySelector('[data-testid=\"replay-move\"]').innerText !== t", arg=first
    )
    assert page.locator('[data-testid="replay-board"]').is_visible()
    assert page.locator('[data-testid="replay-sum"]').count() == 1
    shot(page, "resign-02-replay")
