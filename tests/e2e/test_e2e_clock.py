"""Both players of a table with a clock see both clocks, and the running one counts down."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, share_link, shot, start_match, tid

pytestmark = pytest.mark.browser


def _seconds(text: str) -> int:
    minutes, seconds = text.strip().split(":")
    return int(minutes) * 60 + int(seconds)


def _blitz_table(new_context: Callable[..., Any], server: Any) -> tuple[Any, Any]:
    """A friend's table with the blitz clock, both seats taken: the two players' pages."""
    host_page = new_context().new_page()
    host = start_match(host_page, "friend", target=75, clock="blitz")
    guest_page = new_context().new_page()
    guest = Game(guest_page)
    guest_page.goto(share_link(host, server.base_url))
    join = guest_page.locator(tid("join"))
    if join.count() and join.first.is_visible():
        join.first.click()
    guest.wait_ready()
    return host_page, guest_page


def test_the_running_clock_counts_down_on_both_pages(
    new_context: Callable[..., Any], server: Any
) -> None:
    host_page, guest_page = _blitz_table(new_context, server)
    for page in (host_page, guest_page):  # both clocks, on both pages
        page.locator(f'{tid("my-clock")}:visible').wait_for()
        page.locator(f'{tid("opponent-clock")}:visible').wait_for()
    # Someone's time runs (a forced draw is played at once and the clock waits for a choice).
    running = host_page.locator(".p-clock.running")
    running.wait_for(timeout=10_000)
    move = running.locator(".clock-move")
    first = _seconds(move.inner_text())
    assert 0 < first <= 10, first  # blitz: 10 s a move
    assert _seconds(running.locator(".clock-reserve").inner_text()) == 60
    host_page.wait_for_timeout(2_300)
    later = _seconds(move.inner_text())
    assert later <= first - 2, (first, later)  # it counted down, locally
    other = guest_page.locator(".p-clock.running .clock-move")
    assert abs(_seconds(other.inner_text()) - later) <= 1  # the same time on the other page
    shot(host_page, "clock-01-counting")
    # The idle clock shows the full per-move time and the reserve.
    idle = host_page.locator(".p-clock:not(.running):visible").first
    assert _seconds(idle.locator(".clock-move").inner_text()) == 10


def test_with_no_clock_the_first_move_still_counts_down(
    new_context: Callable[..., Any], server: Any
) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy", target=75)  # a bot table: no clock
    mine = page.locator(tid("my-clock"))
    mine.wait_for(state="visible", timeout=15_000)  # my first move: its time shows
    text = mine.locator(".clock-move")
    first = _seconds(text.inner_text())
    assert 100 < first <= 120, first  # KVA_FIRST_MOVE_TIMEOUT, 120 s by default
    assert not mine.locator(".clock-reserve").is_visible()  # no reserve without a clock
    page.wait_for_timeout(2_300)
    assert _seconds(text.inner_text()) <= first - 2
    shot(page, "clock-02-first-move")
    game.play_one()  # moved: nothing is timed any more
    mine.wait_for(state="hidden", timeout=10_000)


def test_the_tables_sound_toggle_is_the_players_sound_setting(
    new_context: Callable[..., Any], server: Any
) -> None:
    host_page, guest_page = _blitz_table(new_context, server)
    toggle = host_page.locator(tid("clock-sound"))
    toggle.wait_for()
    # Off until the player turns it on (a browser plays nothing before a gesture anyway).
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert host_page.evaluate("document.documentElement.dataset.prefSound") == "on"
    host_page.goto("/settings")
    assert host_page.locator(tid("pref-sound-on")).is_checked()
