"""Two registered players play a rated match in Chromium: both ratings change (on the result
panel and on their profiles), the match is in both histories, it replays from there, and a
rematch offered and accepted takes both players to a new match with the seats swapped. The
community pages fit a 375 px phone.

The first test writes the two accounts and their match straight into the server's database
(the URL the server fixture gives it) with a session for each, whose token is the browser's
cookie, to control the
match exactly; the last one does it all through the pages: registration, a rated table in the
lobby, the match, the rating table, the rematch.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, play_until_over, shot, tid
from tests.e2e.players_help import make_players as _setup
from tests.e2e.players_help import open_game as _open_game
from tests.e2e.players_help import signed_in as _signed_in

pytestmark = pytest.mark.browser


def test_rated_match_ratings_histories_replay_and_rematch(
    new_context: Callable[..., Any], server: Any
) -> None:
    a, b, match_id = _setup(server)
    ctx_a = _signed_in(new_context, server, a)
    ctx_b = _signed_in(new_context, server, b)
    ga, gb = _open_game(ctx_a, match_id), _open_game(ctx_b, match_id)
    assert ga.page.locator("#game").get_attribute("data-seat") == "0"
    play_until_over([ga, gb], on_step=lambda n: None)

    # Both result panels show the rating change of this player.
    after = {}
    for game, user in ((ga, a), (gb, b)):
        line = game.loc("rating-change")
        line.wait_for(state="visible")
        assert line.get_attribute("data-before") == "1500"
        after[user.nickname] = int(line.get_attribute("data-after") or 0)
        assert after[user.nickname] != 1500
        assert "1500 →" in line.inner_text()
        # both are new players: each is told the rating is provisional, with its RD
        note = game.loc("rating-provisional")
        assert note.is_visible() and "350" in note.inner_text() and "110" in note.inner_text()
    winner = ga.view["winner"]
    # Reloaded after the end, the page still shows the change.
    ga.page.reload()
    ga.loc("rating-change").wait_for(state="visible")
    assert int(ga.loc("rating-change").get_attribute("data-after") or 0) == after[a.nickname]
    assert (after[a.nickname] > 1500) == (winner == 0)
    shot(ga.page, "rated-match-result-a")

    # Each profile shows the new rating; the match is in both histories and replays.
    for ctx, user in ((ctx_a, a), (ctx_b, b)):
        page = ctx.new_page()
        page.goto(f"/u/{user.nickname}")
        rating = page.locator(tid("profile-rating"))
        assert int(rating.get_attribute("data-rating") or 0) == after[user.nickname]
        assert page.locator(tid("rating-graph")).get_attribute("data-points") == "2"
        page.locator(tid("history-link")).click()
        row = page.locator(f'{tid("history-row")}[data-match-id="{match_id}"]')
        assert row.get_attribute("data-rated") == "true"
        expected = "win" if (user is a) == (winner == 0) else "loss"
        assert row.get_attribute("data-result") == expected
        row.locator(tid("history-replay")).click()
        page.wait_for_url(re.compile(rf"/m/{match_id}/replay$"))
        first = page.locator(tid("replay-move")).inner_text()
        page.locator(tid("replay-next")).click()
        page.locator(tid("replay-next")).click()
        assert page.locator(tid("replay-move")).inner_text() != first
        shot(page, f"history-replay-{'a' if user is a else 'b'}")
        page.close()

    # A offers a rematch, B sees the offer and accepts; both pages go to the new match.
    ga.loc("rematch-offer").click()
    ga.page.wait_for_function(
        "() => document.querySelector('[data-testid=rematch]').dataset.state === 'offered'")
    gb.loc("rematch-accept").wait_for(state="visible")
    assert gb.loc("rematch-status").inner_text().strip()
    shot(gb.page, "rematch-offered-b")
    gb.loc("rematch-accept").click()
    for game in (ga, gb):
        game.page.wait_for_url(re.compile(rf"/m/(?!{re.escape(match_id)})[^/]+$"))
        game.loc("board").wait_for(state="attached")
    new_a = ga.page.url.rsplit("/", 1)[1]
    assert new_a == gb.page.url.rsplit("/", 1)[1] != match_id
    # Seats swapped: A, who sat first, now sits second.
    assert ga.page.locator("#game").get_attribute("data-seat") == "1"
    assert gb.page.locator("#game").get_attribute("data-seat") == "0"
    shot(ga.page, "rematch-started-a")


@pytest.mark.parametrize("path", ["/ratings", "/u/{a}", "/u/{a}/matches", "/help"])
def test_community_pages_fit_a_phone(new_context: Callable[..., Any], server: Any,
                                     path: str) -> None:
    a, _b, _match_id = _setup(server, rated=False, past=3)
    ctx = _signed_in(new_context, server, a, viewport={"width": 375, "height": 740},
                     is_mobile=True, has_touch=True)
    page = ctx.new_page()
    response = page.goto(path.format(a=a.nickname))
    assert response is not None and response.status == 200
    if "/u/" in path:
        assert page.locator(tid("history-row")).count() == 3
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= 375, f"{path} is {overflow} px wide at 375 px"
    shot(page, "phone" + path.replace("/", "-").replace("{a}", "me"))


def _register(page: Any, nickname: str) -> None:
    """Register the page's guest as ``nickname`` through the form."""
    page.goto("/register")
    form = page.locator(tid("register-form"))
    form.locator('input[name="nickname"]').fill(nickname)
    form.locator('input[name="password"]').fill("rated-e2e-password")
    page.locator(tid("register")).click()
    page.locator(tid("whoami")).filter(has_text=nickname).wait_for()


def _leaderboard_rating(page: Any, name: str) -> int:
    """The rating the leaderboard shows for ``name``, on whichever page of 50 holds it: the
    server is shared by the whole e2e run, so other tests' rated players may rank above."""
    for number in range(1, 100):
        page.goto(f"/ratings?page={number}")
        entry = page.locator(f'{tid("leaderboard-row")}[data-nickname="{name}"]')
        if entry.count():
            return int(entry.get_attribute("data-rating") or 0)
        if page.locator(tid("leaderboard-row")).count() < 50:
            break
    raise AssertionError(f"{name} is on no page of the leaderboard")


def test_two_accounts_registered_in_the_browser_play_rated_from_the_lobby(
    new_context: Callable[..., Any], server: Any
) -> None:
    names = [f"r{secrets.token_hex(4)}" for _ in range(2)]
    host_page, guest_page = new_context().new_page(), new_context().new_page()
    for page, name in zip((host_page, guest_page), names, strict=True):
        _register(page, name)
    guest_page.goto("/lobby")
    guest_page.locator(tid("lobby-live") + '[data-state="online"]').wait_for(state="attached")
    host_page.goto("/lobby")
    form = host_page.locator(tid("open-table-form"))
    form.locator('select[name="target"]').select_option("75")
    form.locator('input[name="rated"]').check()
    host = Game(host_page)
    host_page.locator(tid("open-table")).click()
    host.wait_ready()
    row = guest_page.locator(f'{tid("lobby-table")}[data-match="{host.match_id}"]')
    row.locator(tid("join-table")).click()
    guest = Game(guest_page)
    guest.wait_ready()
    host.wait_states(0)
    match_id = host.match_id
    play_until_over([host, guest], on_step=lambda n: None)

    after = []
    for game in (host, guest):
        line = game.loc("rating-change")
        line.wait_for(state="visible")
        assert line.get_attribute("data-before") == "1500"
        after.append(int(line.get_attribute("data-after") or 0))
    assert after[0] != 1500 and after[1] != 1500 and (after[0] > 1500) != (after[1] > 1500)
    for page, name, rating in zip((host_page, guest_page), names, after, strict=True):
        profile = page.context.new_page()
        profile.goto(f"/u/{name}")
        assert int(profile.locator(tid("profile-rating")).get_attribute("data-rating") or 0) \
            == rating
        line = profile.locator(f'{tid("history-row")}[data-match-id="{match_id}"]')
        assert line.get_attribute("data-rated") == "true"
        profile.close()
    table = host_page.context.new_page()
    for name, rating in zip(names, after, strict=True):
        assert _leaderboard_rating(table, name) == rating
    table.close()

    # The guest offers this time; the host accepts; both go to the new match, seats swapped.
    guest.loc("rematch-offer").click()
    host.loc("rematch-accept").click()
    for game in (host, guest):
        game.page.wait_for_url(re.compile(rf"/m/(?!{re.escape(match_id)})[^/]+$"))
    assert host_page.url == guest_page.url
    assert host_page.locator("#game").get_attribute("data-seat") == "1"
    assert guest_page.locator("#game").get_attribute("data-seat") == "0"
