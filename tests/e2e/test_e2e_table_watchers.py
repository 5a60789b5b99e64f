"""At the table: the mute toggle is there without a clock, and the spectator count is live."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import shot, start_match, tid

pytestmark = pytest.mark.browser


def test_the_mute_toggle_shows_at_a_table_without_a_clock(
    new_context: Callable[..., Any]
) -> None:
    page = new_context().new_page()
    game = start_match(page, "bot:easy")
    assert game.states[-1]["clock"]["preset"] == "none"  # a bot match: no clock
    deadline = time.monotonic() + 30
    while game.play_one() is None:  # a move of mine: from then on nothing is timed
        assert time.monotonic() < deadline, "never my turn"
        page.wait_for_timeout(100)
    page.locator(tid("my-clock")).wait_for(state="hidden")
    toggle = page.locator(tid("clock-sound"))
    assert toggle.is_visible() and toggle.inner_text().strip()
    before = toggle.get_attribute("aria-pressed")
    toggle.click()
    assert toggle.get_attribute("aria-pressed") != before


def test_players_and_spectators_see_how_many_watch(new_context: Callable[..., Any]) -> None:
    player = new_context().new_page()
    start_match(player, "bot:easy")
    count = player.locator(tid("spectators"))
    assert count.is_hidden()  # nobody watches yet
    fan = new_context().new_page()
    fan.goto(player.url)
    fan_count = fan.locator(tid("spectators"))
    fan_count.wait_for(state="visible")
    count.wait_for(state="visible")
    assert count.get_attribute("data-count") == "1" == fan_count.get_attribute("data-count")
    assert fan.locator(tid("clock-sound")).is_visible()  # spectators may mute too
    shot(player, "watchers-01-one-spectator")
    fan.close()
    count.wait_for(state="hidden")
    assert count.get_attribute("data-count") == "0"
