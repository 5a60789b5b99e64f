"""The interactive lesson in the browser: a new guest completes it in Georgian by clicking,
making one wrong move on the way and reading the engine's explanation; then starts a first
match against the easy bot."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from kva.i18n import translations
from kva.learn.lessons import STEPS, check
from kva.rules import DRAW, PASS
from kva.rules.engine import OPEN_BASE, TILE_NAME
from tests.e2e.e2e_helpers import SHOTS, play_until_over, shot, start_match, tid

pytestmark = pytest.mark.browser

GEORGIAN = re.compile(r"[\u10d0-\u10ff]")


def _right(step: Any) -> int:
    """A code the step accepts (the engine's verdict, as the server gives it)."""
    for code in step.position.state().legal_codes():
        message = _message(code)
        if check(step, message).ok:
            return code
    raise AssertionError(step.slug)


def _message(code: int) -> dict[str, object]:
    if code == DRAW:
        return {"type": "draw"}
    if code == PASS:
        return {"type": "pass"}
    if code >= OPEN_BASE:
        return {"type": "play", "tile": TILE_NAME[(code - OPEN_BASE) >> 1]}
    return {"type": "play", "tile": TILE_NAME[code >> 2], "end": "LRUD"[code & 3]}


def _play(page: Any, code: int) -> None:
    if code == DRAW:
        page.locator(tid("learn-draw")).click()
        return
    if code == PASS:
        page.locator(tid("learn-pass")).click()
        return
    tile = TILE_NAME[(code - OPEN_BASE) >> 1] if code >= OPEN_BASE else TILE_NAME[code >> 2]
    page.locator(f'[data-testid="learn-tile"][data-tile="{tile}"]').click()
    if code < OPEN_BASE:
        target = page.locator(f'[data-testid="end-target"][data-end="{"LRUD"[code & 3]}"]')
        if target.count():
            target.first.click()


def test_a_guest_completes_the_lesson_in_georgian(new_context: Callable[..., Any]) -> None:
    ctx = new_context(locale="ka-GE")
    page = ctx.new_page()
    page.goto("/learn")
    assert page.evaluate("document.documentElement.lang").startswith("ka")
    feedback = page.locator(tid("learn-feedback"))
    for n, step in enumerate(STEPS, start=1):
        page.wait_for_function("n => document.getElementById('learn').dataset.step === n",
                               arg=str(n))
        page.wait_for_selector('[data-testid="learn-tile"], [data-testid="learn-draw"]')
        instruction = page.locator(tid("learn-instruction")).inner_text()
        assert GEORGIAN.search(instruction), instruction
        if step.slug == "match":  # one wrong move: 0-0 fits neither 3 nor 4
            page.locator('[data-testid="learn-tile"][data-tile="0-0"]').click()
            page.wait_for_function(
                "() => document.querySelector('[data-testid=learn-feedback]')"
                ".dataset.state === 'wrong'")
            text = feedback.inner_text()
            expected = translations("ka").gettext(
                "%(tile)s does not fit: no open end asks %(a)s.") % {"tile": "0-0", "a": 0}
            assert text == expected and GEORGIAN.search(text)
            shot(page, "learn-wrong-move")
        _play(page, _right(step))
        page.wait_for_function(
            "() => document.querySelector('[data-testid=learn-feedback]').dataset.state === 'ok'")
        assert GEORGIAN.search(feedback.inner_text())
        page.locator(tid("learn-next")).click()
    page.locator(tid("learn-done")).wait_for(state="visible")
    done = page.locator('[data-testid="toc-step"][data-done="1"]')
    assert done.count() == len(STEPS)
    # Progress is remembered in the browser: a reload still shows every step done.
    page.reload()
    page.wait_for_function(
        "n => document.querySelectorAll('[data-testid=toc-step][data-done=\"1\"]').length === n",
        arg=len(STEPS))
    shot(page, "learn-done")
    page.locator(tid("learn-play")).click()
    page.wait_for_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))


def test_the_strategy_pages_diagrams_render(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    page.goto("/strategy")
    figures = page.locator(tid("guide-figure"))
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure[data-example]')]"
        ".every(f => f.dataset.drawn === '1')")
    assert figures.count() == 6
    for i in range(figures.count()):
        fig = figures.nth(i)
        assert fig.locator("[data-role=before] g.tile-svg").count() >= 2
        assert fig.locator("[data-role=hand] svg").count() >= 1
    fish = page.locator('figure[data-example="fish"]')
    assert fish.locator('[data-role=after] g.tile-svg.last').count() == 1
    fives = page.locator('figure[data-example="fives"]')
    assert fives.locator("[data-role=after] .points-badge text").text_content() == "+20"
    assert page.locator('[data-testid=count-table] td[data-number="6"]').inner_text() == "3"
    shot(page, "strategy", full_page=True)


def test_counting_aid_in_a_bot_match(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=75)
    toggle = page.locator(tid("counting-toggle"))
    toggle.wait_for(state="visible")
    toggle.check()
    page.locator("#game.my-turn").wait_for()  # the position stands still on our turn
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=counting-row] .aid-cell').length === 7")
    total = page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=counting-row] .aid-cell')]"
        ".reduce((s, c) => s + Number(c.dataset.unseen), 0)")
    view = game.view
    seen = set(view["hand"])
    board = view["board"]
    if board["opening"]:
        seen.add(board["opening"]["tile"])
    for line in board["lines"].values():
        seen.update(t["tile"] for t in line)
    # Each unseen tile counts once per number it carries (a double once).
    unseen = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in seen]
    assert total == sum(1 if t[0] == t[2] else 2 for t in unseen)


def resp_decisions(page: Any, match_id: str) -> list[Any]:
    """The stored analysis's decisions, as the page fetched them."""
    data = page.request.get(f"/m/{match_id}/analysis").json()
    return list(data["analysis"]["decisions"])


def test_a_finished_bot_match_is_analysed_from_its_replay(new_context: Callable[..., Any]) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=75)
    play_until_over([game], on_step=lambda n: None)
    assert game.view["over"]
    page.goto(f"/m/{game.match_id}/replay")
    page.locator(tid("analyse")).click()
    page.locator(tid("analysis-progress")).wait_for(state="visible")
    page.wait_for_function(
        "() => document.getElementById('analysis').dataset.state === 'done'", timeout=300_000)
    shot(page, "analysis-01-done", full_page=True)
    rows = page.locator(f"{tid('analysis-summary')} tbody tr")
    assert rows.count() == 2
    marks = page.locator(tid("analysis-mark"))
    # The e2e player plays its first legal tile: the analysis finds mistakes in that.
    assert marks.count() >= 1
    # Losses read as points to one decimal or whole points of win chance: never a percentage
    # with false precision ("-11.88% chance to win").
    assert not [x for x in marks.all_inner_texts() if "%" in x]
    texts = [*marks.all_inner_texts(), *rows.all_inner_texts()]
    assert not [x for x in texts if re.search(r"\d[.,]\d\d", x)], texts
    # The win-chance graph, from the viewer's side: a point per decision of theirs and one for
    # the match's end, a dot per marked move that leads to its position.
    graph = page.locator(tid("win-graph"))
    assert graph.is_visible()
    line = page.locator("#win-graph-svg polyline").get_attribute("points") or ""
    seat = game.states[-1]["you"]
    mine = [d for d in resp_decisions(page, game.match_id) if d["player"] == seat]
    assert len(line.split()) == len(mine) + 1
    if page.locator("#win-graph-svg .wg-dot").count():
        dot = page.locator("#win-graph-svg .wg-dot").first
        dot_step = dot.get_attribute("data-step")
        dot.click()
        page.wait_for_function("s => document.getElementById('replay').dataset.position === s",
                               arg=dot_step)
    first = marks.first
    step = first.get_attribute("data-step")
    first.click()
    page.wait_for_function("s => document.getElementById('replay').dataset.position === s",
                           arg=step)
    current = page.locator(tid("analysis-current"))
    assert current.is_visible() and current.get_attribute("data-mark") in (
        "inaccuracy", "mistake", "blunder")
    if current.get_attribute("data-best") == "board":  # the best move is a placement
        # The board after it: at least that tile (a hand's opening, when the later hands' opener
        # chooses freely, is a real choice that may be marked: the board is just that tile).
        assert page.locator(f"{tid('analysis-best-board')} g.tile-svg").count() >= 1
        assert page.locator(f"{tid('analysis-best-board')} g.tile-svg.last").count() == 1
    current.scroll_into_view_if_needed()
    shot(page, "analysis-02-marked-move")
    SHOTS.mkdir(parents=True, exist_ok=True)
    current.screenshot(path=str(SHOTS / "analysis-03-best-move.png"))
    # On a phone the summary is one block per player: nothing scrolls sideways.
    page.set_viewport_size({"width": 375, "height": 667})
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # A second request is served from the database at once.
    resp = page.request.post(f"/m/{game.match_id}/analysis")
    assert resp.status == 200 and resp.json()["status"] == "done"
    assert resp.json()["analysis"]["decisions"]
