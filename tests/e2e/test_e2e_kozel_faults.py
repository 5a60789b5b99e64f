"""Kozel tables in Chromium when things go wrong: a player's clock runs out, and the server is
killed with SIGKILL mid-hand.

Each test runs its own ``kva serve`` on a fresh SQLite file: the blitz clock shortened to
10 s a move and 5 s of reserve (``KVA_CLOCK_PRESETS``, the same setting a deployment uses), so a
time loss comes in seconds; and a server that may be killed and started again on the same
database and port without disturbing any other test."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kva.settings.clocks import parse_presets
from tests.e2e.conftest import SERVER_ENV
from tests.e2e.e2e_helpers import Game, tid
from tests.e2e.kozel_help import (
    check_only_ordinary_refusals,
    is_over,
    join_table,
    open_table,
    play_together,
    players_table,
    rating_lines,
    signed_in_table,
    wait_dealt,
)
from tests.helpers.servers import Server, kill9, restart, serving

pytestmark = pytest.mark.browser

#: The blitz clock, shortened: a time loss in seconds, yet time enough for the players who do
#: move, clicking through their pages on a busy machine, never to run out themselves.
CLOCKS = "blitz=10+5"


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, **SERVER_ENV, "PYTHONUNBUFFERED": "1",
            "KVA_DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'kva.sqlite3'}",
            "KVA_DATA_DIR": str(tmp / "var"), "KVA_CLOCK_PRESETS": CLOCKS}


@pytest.fixture
def own_server(tmp_path: Path, server: Server) -> Iterator[Server]:
    """A server of this test's own (``server``, the shared one, only starts the browser)."""
    with serving(_env(tmp_path), tmp_path / "server.log") as srv:
        yield srv


def _time_loss_changes(scores: list[int], loser: int) -> list[int]:
    """docs/kozel.md, Rating: on a time loss the loser gets nothing, every other player
    round((the loser's score − his) / 10), halves away from zero, but at least 1."""
    def rounded(x: float) -> int:
        return int(abs(x) + 0.5) * (1 if x >= 0 else -1)

    return [0 if seat == loser else max(1, rounded((scores[loser] - score) / 10))
            for seat, score in enumerate(scores)]


def test_a_player_out_of_time_loses_a_rated_kozel_match_for_all(
    new_context: Callable[..., Any], own_server: Server,
) -> None:
    """Three registered players on the blitz clock; seat 1 stops acting, the others play on
    until seat 1's time is gone: the match stops for all, every page (and the replay) says who
    ran out of time and names them the goat, the unfinished hand scores nothing, and the
    ratings change as docs/kozel.md says for a time loss."""
    match_id, tokens = players_table(own_server, seats=3, clock="blitz",
                                     clock_presets=parse_presets(CLOCKS))
    games = [signed_in_table(new_context, own_server, token, match_id,
                             base_url=own_server.base_url) for token in tokens]
    stopper = 1
    play_together([g for seat, g in enumerate(games) if seat != stopper], stall_s=60,
                  until=lambda _: all(is_over(g.page) for g in games))
    view = games[0].view
    assert view["over"], "the clock never ran out"
    assert view["last"]["end"] == "forfeit" and view["last"]["reason"] == "time", view["last"]
    assert view["last"]["by"] == stopper and view["losers"] == [stopper], view
    before = next(s["view"] for s in reversed(games[0].states) if not s["view"]["over"])
    # The unfinished hand scores nothing: scores and remembered points stay as they were.
    assert view["last"]["scored"] == [0, 0, 0]
    assert (view["score"], view["remembered"]) == (before["score"], before["remembered"])
    changes = _time_loss_changes(view["score"], stopper)
    name = games[0].states[-1]["players"][stopper]["name"]
    for seat, game in enumerate(games):
        page = game.page
        how = page.locator("#k-hand-end-how")
        how.wait_for()
        assert how.inner_text() == ("You ran out of time." if seat == stopper
                                    else f"{name} ran out of time."), how.inner_text()
        lines = rating_lines(page, 3)
        change = f"+{changes[seat]}" if changes[seat] else "0"
        assert lines[seat] == f"You: Kozel rating {changes[seat]} ({change})", lines
        goat = page.locator(tid("kozel-goat")).inner_text()
        assert goat == ("You are the goat." if seat == stopper else f"The goat: {name}"), goat
    # The replay ends the same way.
    page = games[0].page
    page.goto(f"/m/{match_id}/replay")
    page.locator(tid("kozel-replay")).wait_for()
    page.locator("#replay-last").click()
    assert f"{name} ran out of time" in page.locator(tid("replay-move")).inner_text()


def _snapshot(game: Game) -> dict[str, Any]:
    """What the page shows of the position: the hand, the line, every seat's score and held
    tiles, the bazaar and whose turn it is (not the clocks, which count down)."""
    page = game.page
    hand = page.locator(tid("kozel-hand")).locator("[data-tile]")
    line = page.locator(tid("kozel-line")).locator("[data-tile]")
    return {
        "hand": sorted(hand.evaluate_all("els => els.map(e => e.dataset.tile)")),
        "line": line.evaluate_all("els => els.map(e => e.dataset.tile)"),
        "playable": sorted(hand.evaluate_all(
            "els => els.filter(e => e.dataset.playable === '1').map(e => e.dataset.tile)")),
        "me": page.locator(f'{tid("kozel-me")} {tid("kozel-score")}').inner_text(),
        "others": page.locator(tid("kozel-player")).evaluate_all(
            "els => els.map(e => [e.dataset.seat, e.querySelector('.k-name').textContent,"
            " e.querySelector('[data-testid=kozel-held]').textContent,"
            " e.querySelector('[data-testid=kozel-score]').textContent])"),
        "bazaar": page.locator("#k-bazaar").inner_text(),
        "on_turn": page.locator(".k-player.k-on-turn").evaluate_all(
            "els => els.map(e => e.dataset.seat)"),
        "version": game.states[-1]["version"],
    }


def _settled(games: list[Game], timeout_ms: int = 20_000) -> int:
    """Wait until every page has the same latest state, drawn; its version."""
    page = games[0].page
    for _ in range(timeout_ms // 50):
        versions = {g.states[-1]["version"] for g in games if g.states}
        if len(versions) == 1 and all(g.states for g in games):
            page.wait_for_timeout(200)  # let the last frame be drawn
            if {g.states[-1]["version"] for g in games} == versions:
                return versions.pop()
        page.wait_for_timeout(50)
    raise AssertionError(f"the pages never agreed: {[g.states[-1]['version'] for g in games]}")


def test_a_kozel_match_resumes_for_every_seat_after_kill_9(
    new_context: Callable[..., Any], own_server: Server, tmp_path: Path,
) -> None:
    """Three people play a few moves; the server is killed with SIGKILL and started again on
    the same database; every page reconnects by itself to the very same position, and play
    goes on."""
    people = [Game(new_context(base_url=own_server.base_url).new_page()) for _ in range(3)]
    match_id = open_table(people[0].page, 3)
    for game in people[1:]:
        join_table(game.page, match_id)
    for game in people:
        wait_dealt(game.page)
    assert play_together(people, until=lambda moves: moves >= 3) >= 3
    version = _settled(people)
    before = [_snapshot(g) for g in people]
    assert before[0]["line"], "mid-hand: tiles are on the line"
    seen = [len(g.states) for g in people]

    kill9(own_server)
    restart(own_server, _env(tmp_path))
    for game, count in zip(people, seen, strict=True):
        game.wait_states(count, timeout_ms=30_000)  # reconnected: told the state again
    assert _settled(people) == version
    assert [_snapshot(g) for g in people] == before

    assert play_together(people, until=lambda moves: moves >= 1) >= 1
    assert _settled(people) > version
    for game in people:
        assert not game.page.locator(tid("kozel-match-end")).is_visible()
        check_only_ordinary_refusals(game)
