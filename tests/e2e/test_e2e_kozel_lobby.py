"""A three-seat Kozel open table in Chromium: one visitor opens it from the lobby's form, two
others see it listed with its free seats and join it from the lobby, and once the last seat is
taken the match starts and each of the three sees the Kozel table with its own hand.

Each visitor is its own browser context (its own cookies, so its own guest identity)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import shot, tid

pytestmark = pytest.mark.browser


def _row(page: Any, match_id: str) -> Any:
    return page.locator(f'{tid("lobby-table")}[data-match="{match_id}"]')


def test_three_visitors_fill_a_kozel_table_from_the_lobby(
    new_context: Callable[..., Any], server: Any
) -> None:
    host = new_context().new_page()
    host.goto("/lobby")
    form = host.locator(tid("open-table-form"))
    form.locator(tid("game-choice")).select_option("kozel")
    form.locator(tid("seats")).select_option("3")
    assert not form.locator(tid("pairs")).is_visible()  # the pair game is for four
    form.locator(tid("open-table")).click()
    host.wait_for_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))
    match_id = host.url.rsplit("/", 1)[1]
    host.locator(tid("kozel-waiting")).wait_for()
    shot(host, "kozel-lobby-01-waiting")

    joiners = [new_context().new_page() for _ in range(2)]
    for number, page in enumerate(joiners, start=1):
        page.goto("/lobby")
        row = _row(page, match_id)
        row.wait_for()
        assert row.locator(tid("lobby-game")).inner_text() == "Kozel"
        seats = row.locator(tid("lobby-seat"))
        assert seats.count() == 3
        # The seats taken so far, in order, the rest free.
        taken = [seats.nth(i).get_attribute("data-taken") for i in range(3)]
        assert taken == ["true"] * number + ["false"] * (3 - number)
        shot(page, f"kozel-lobby-0{number}-listed")
        row.locator(tid("join-table")).click()
        page.wait_for_url(re.compile(rf"/m/{match_id}$"))

    for page in (host, *joiners):
        hand = page.locator(f'{tid("kozel-hand")} button')
        hand.first.wait_for()  # dealt: each player holds their own tiles
        assert hand.count() > 0
        assert not page.locator(tid("kozel-waiting")).is_visible()
    shot(joiners[-1], "kozel-lobby-03-started")
    # Each player holds their own tiles: no tile is in two hands.
    hands = [set(page.locator(f'{tid("kozel-hand")} button').evaluate_all(
        "buttons => buttons.map(b => b.dataset.tile || b.getAttribute('aria-label'))"))
        for page in (host, *joiners)]
    assert not (hands[0] & hands[1]) and not (hands[1] & hands[2]) and not (hands[0] & hands[2])
