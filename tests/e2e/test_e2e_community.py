"""Accounts, the lobby and quick game in the browser, each visitor its own browser context.

A guest registers and keeps the match they started as a guest; two players meet through the
lobby (one opens a table, the other sees it appear live and joins in one click) and play it to
the end; two players pressing "quick game" are paired; the new pages fit a 375 px phone.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, play_until_over, shot, start_match, tid

pytestmark = pytest.mark.browser

PASSWORD = "e2e-account-password"
WIDTH = 375


def _nickname(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(3)}"


def _register(page: Any, nickname: str) -> None:
    page.locator(tid("nav-register")).click()
    form = page.locator(tid("register-form"))
    form.locator('input[name="nickname"]').fill(nickname)
    form.locator('input[name="password"]').fill(PASSWORD)
    page.locator(tid("register")).click()
    page.locator(tid("whoami")).filter(has_text=nickname).wait_for()


def test_a_guest_registers_and_keeps_their_match(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=75)
    match_id = game.match_id
    guest_name = page.locator(tid("whoami")).inner_text().strip()
    assert re.fullmatch(r"guest-\d{4,}", guest_name), guest_name
    name = _nickname("nino")
    _register(page, name)
    shot(page, "community-01-registered")
    page.goto("/")
    assert page.locator(tid("whoami")).inner_text().strip() == name
    assert page.locator(f'{tid("my-matches")} a[href="/m/{match_id}"]').count() == 1
    # Still seated at the match started as a guest.
    again = Game(page)
    page.goto(f"/m/{match_id}")
    again.wait_ready()
    assert again.view["player"] == 0 and len(again.hand_tiles()) >= 1

    # Log out: nobody until acting again (issue 8: a guest is created at the first action), so
    # the header offers log in and names no one. A wrong password is refused; the right one
    # logs back in.
    page.locator(tid("logout")).click()
    page.locator(tid("nav-login")).wait_for()
    assert page.locator(tid("whoami")).count() == 0
    assert page.locator(tid("logout")).count() == 0
    page.locator(tid("nav-login")).click()
    form = page.locator(tid("login-form"))
    form.locator('input[name="nickname"]').fill(name)
    form.locator('input[name="password"]').fill("not-the-password")
    page.locator(tid("login")).click()
    assert page.locator(tid("auth-error")).is_visible()
    form.locator('input[name="nickname"]').fill(name)
    form.locator('input[name="password"]').fill(PASSWORD)
    page.locator(tid("login")).click()
    page.locator(tid("whoami")).filter(has_text=name).wait_for()
    assert page.locator(f'a[href="/m/{match_id}"]').count() == 1


def test_two_players_meet_in_the_lobby_and_play(
    new_context: Callable[..., Any], server: Any
) -> None:
    guest_page = new_context().new_page()
    guest_page.goto("/lobby")
    guest_page.locator(tid("lobby-live") + '[data-state="online"]').wait_for(state="attached")

    host_page = new_context().new_page()
    host_page.goto("/lobby")
    form = host_page.locator(tid("open-table-form"))
    form.locator('select[name="target"]').select_option("75")
    host = Game(host_page)
    host_page.locator(tid("open-table")).click()
    host.wait_ready()
    assert host.legal_tiles().count() == 0  # waiting for an opponent
    # Opening the table made the visitor a guest (issue 8: nobody before the first action).
    host_name = host_page.locator(tid("whoami")).inner_text().strip()
    assert re.fullmatch(r"guest-\d{4,}", host_name), host_name

    match_id = host.match_id
    # The table appears on the other visitor's lobby without a reload.
    row = guest_page.locator(tid("lobby-table")).filter(has_text=host_name)
    row.wait_for()
    assert "75" in row.inner_text()
    shot(guest_page, "community-02-lobby")
    # The host goes back to wait in the lobby, where their own table offers "cancel".
    host_page.goto("/lobby")
    own = host_page.locator(f'{tid("lobby-table")}[data-match="{match_id}"]')
    own.locator(tid("cancel-table")).wait_for()
    assert own.locator(tid("join-table")).count() == 0
    host_page.locator(tid("lobby-live") + '[data-state="online"]').wait_for(state="attached")
    host = Game(host_page)
    guest = Game(guest_page)
    row.locator(tid("join-table")).click()
    guest.wait_ready()
    assert guest.match_id == match_id
    # Someone took the seat: the waiting host is brought to the game.
    host.wait_ready()
    assert host.match_id == match_id
    # The table has left the lobby.
    lobby = new_context().new_page()
    lobby.goto("/lobby")
    assert lobby.locator(f'{tid("lobby-table")}[data-match="{host.match_id}"]').count() == 0
    lobby.close()

    play_until_over([host, guest], on_step=lambda n: None)
    winners = {g.loc("match-result").first.get_attribute("data-winner") for g in (host, guest)}
    assert winners == {"you", "opponent"}
    shot(host_page, "community-03-lobby-match-over")


def test_quick_game_pairs_two_waiting_players(new_context: Callable[..., Any], server: Any) -> None:
    pages = [new_context().new_page() for _ in range(2)]
    games = [Game(p) for p in pages]
    for page in pages:
        page.goto("/")
        form = page.locator(tid("quick-form"))
        form.locator('select[name="target"]').select_option("355")
        form.locator('select[name="bazaar"]').select_option("pass-only")
        page.locator(tid("quick-game")).click()
        # The second may be paired, and sent on to the game, before its search page settles.
        page.wait_for_url(re.compile(r"/(quick\?|m/)"))
    for game in games:
        game.wait_ready()
    shot(pages[0], "community-04-quick-paired")
    assert games[0].match_id == games[1].match_id
    assert sorted(g.view["player"] for g in games) == [0, 1]
    assert {g.view["target"] for g in games} == {355}


def test_quick_game_can_be_cancelled(new_context: Callable[..., Any], server: Any) -> None:
    page = new_context().new_page()
    page.goto("/quick?target=255&bazaar=pass-only")
    page.locator(tid("quick-status")).filter(has_text="±100").wait_for()
    page.locator(tid("quick-cancel")).click()
    page.wait_for_url(re.compile(r"/lobby$"))


@pytest.mark.parametrize("lang", ["en", "ka", "ru", "tr"])
@pytest.mark.parametrize("path", ["/lobby", "/register", "/login", "/quick?target=75", "/"])
def test_the_community_pages_fit_375_px(
    new_context: Callable[..., Any], server: Any, path: str, lang: str
) -> None:
    ctx = new_context(viewport={"width": WIDTH, "height": 740}, is_mobile=True, has_touch=True,
                      locale=lang)
    page = ctx.new_page()
    page.goto(path)
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.lang") == lang
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTH, f"{path} in {lang} is {width} px wide at {WIDTH} px"
    # Every button and field is reachable: none sticks out of the screen.
    outside = page.evaluate("""w => [...document.querySelectorAll('button, input, select, a')]
        .filter(e => e.getClientRects().length && !e.closest('[hidden]'))
        .map(e => e.getBoundingClientRect())
        .filter(r => r.left < -0.5 || r.right > w + 0.5).length""", WIDTH)
    assert outside == 0, f"{path} in {lang}: {outside} controls stick out"
    shot(page, f"community-375-{lang}-{path.strip('/').split('?')[0] or 'home'}")
