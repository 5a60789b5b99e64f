"""Two visitors play each other at a closed table; a third watches without seeing any tile.

Each visitor is its own browser context (its own cookies, so its own guest identity).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import (
    Game,
    norm_tile,
    play_until_over,
    share_link,
    shot,
    start_match,
    tid,
)

pytestmark = pytest.mark.browser

PASSWORD = "kva-e2e-secret"


def _join(page: Any, link: str, password: str | None) -> None:
    """Open a closed table's link; enter ``password`` if the page asks for one; join."""
    page.goto(link)
    field = page.locator('input[name="password"]')
    if password is not None:
        field.fill(password)
    join = page.locator(tid("join"))
    if join.count() and join.first.is_visible():
        join.first.click()


def test_two_guests_play_a_closed_table_with_a_password(
    new_context: Callable[..., Any], server: Any
) -> None:
    host_page = new_context().new_page()
    host = start_match(host_page, "friend", target=75, password=PASSWORD)
    link = share_link(host, server.base_url)
    # Nothing can be played before the friend sits down.
    host_page.wait_for_timeout(200)
    assert host.legal_tiles().count() == 0, (
        "a tile is playable at a table still waiting: "
        f"status={host.states[-1].get('status')} legal={host.view['legal']}"
    )
    # The empty seat holds no tiles: no face-down hand is drawn for it.
    assert not host_page.locator(tid("opponent-hand")).is_visible()
    shot(host_page, "friend-01-waiting")

    guest_page = new_context().new_page()
    guest = Game(guest_page)
    # A wrong password is refused: still on the table's page, asked again, no game shown.
    _join(guest_page, link, "not-the-password")
    guest_page.wait_for_load_state()
    shot(guest_page, "friend-02-wrong-password")
    assert "/t/" in guest_page.url, guest_page.url
    assert guest_page.locator('input[name="password"]').is_visible()
    assert guest_page.locator(tid("hand")).count() == 0
    # The right one seats the guest.
    _join(guest_page, link, PASSWORD)
    guest.wait_ready()
    assert guest.match_id == host.match_id
    host.loc("share-link").first.wait_for(state="hidden")

    # Both see 7 tiles (or 6 for whoever opened already) and the other's count face down.
    host.wait_states(0)
    for me, other in ((host, guest), (guest, host)):
        me.loc("hand").locator("[data-tile]").first.wait_for()
        assert 6 <= len(me.hand_tiles()) <= 7
        count = me.loc("opponent-hand").first.get_attribute("data-count")
        assert count is not None and 6 <= int(count) <= 7
        assert me.loc("opponent-hand").first.locator("[data-tile]").count() == 0
        assert not set(map(norm_tile, me.hand_tiles())) & set(map(norm_tile, other.hand_tiles()))
    shot(guest_page, "friend-03-guest-seated")

    def on_step(n: int) -> None:
        if n == 6:
            shot(host_page, "friend-04-host-midgame")
            shot(guest_page, "friend-05-guest-midgame")
            # Both pages show the same board.
            host.page.wait_for_timeout(200)
            assert host.board_tiles() == guest.board_tiles() or sorted(
                map(norm_tile, host.board_tiles())
            ) == sorted(map(norm_tile, guest.board_tiles()))

    play_until_over([host, guest], on_step=on_step)
    shot(host_page, "friend-06-host-result", full_page=True)
    shot(guest_page, "friend-07-guest-result", full_page=True)
    winners = {g.loc("match-result").first.get_attribute("data-winner") for g in (host, guest)}
    assert winners == {"you", "opponent"}, winners
    assert host.scores() == tuple(reversed(guest.scores()))
    assert host.errors == [] and guest.errors == []


def test_a_spectator_with_the_link_sees_no_tiles(
    new_context: Callable[..., Any], server: Any
) -> None:
    host_page = new_context().new_page()
    host = start_match(host_page, "friend", target=75)
    link = share_link(host, server.base_url)
    guest_page = new_context().new_page()
    guest = Game(guest_page)
    _join(guest_page, link, None)
    guest.wait_ready()
    # A few moves, so there is a board to watch.
    for _ in range(4):
        for g in (host, guest):
            g.loc("hand").locator("[data-tile]").first.wait_for()
            g.play_one()

    watcher_page = new_context().new_page()
    watcher = Game(watcher_page)
    watcher_page.goto(link)
    join = watcher_page.locator(tid("join"))
    if join.count() and join.first.is_visible():
        join.first.click()
    watcher.wait_ready()
    assert re.search(r"/m/" + re.escape(host.match_id), watcher_page.url)
    watcher.loc("board").locator("[data-tile]").first.wait_for()
    shot(watcher_page, "spectator-01")

    # What the server sent the spectator holds no hand tile...
    for state in watcher.states:
        assert state["view"]["hand"] == [], state["view"]["hand"]
        assert state["view"].get("pending") is None
    # ... and the page shows none: every tile on it is on the board.
    all_tiles = watcher_page.locator("[data-tile]").evaluate_all(
        "els => els.map(e => e.dataset.tile)"
    )
    on_board = watcher.board_tiles()
    assert sorted(all_tiles) == sorted(on_board), (all_tiles, on_board)
    assert watcher.loc("hand").locator("[data-tile]").count() == 0
    assert watcher.legal_tiles().count() == 0
    in_hands = set(map(norm_tile, host.hand_tiles() + guest.hand_tiles()))
    assert not in_hands & set(map(norm_tile, all_tiles))
    # The board they watch is the players' board, and it follows the game live.
    assert sorted(map(norm_tile, on_board)) == sorted(map(norm_tile, host.board_tiles()))
    before = len(watcher.states)
    mover = host if host.my_turn() else guest
    assert mover.play_one() is not None
    watcher.wait_states(before)
    watcher_page.wait_for_timeout(300)
    assert sorted(map(norm_tile, watcher.board_tiles())) == sorted(
        map(norm_tile, host.board_tiles())
    )
    assert watcher.loc("resign").count() == 0 or not watcher.loc("resign").first.is_visible()
