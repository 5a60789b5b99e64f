"""The Kozel quick game in the browser: three guests choose a three-seat table with the fish
rule on the Quick Kozel form, wait on the quick page (which counts the players found), and
land at the same table, each in a seat of their own."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import tid
from tests.e2e.kozel_help import wait_dealt

pytestmark = pytest.mark.browser


def test_three_guests_of_a_quick_kozel_land_at_one_table(
        new_context: Callable[..., Any], server: Any) -> None:
    pages = [new_context().new_page() for _ in range(3)]
    for page in pages:
        page.goto("/")
        form = page.locator(tid("quick-kozel-form"))
        form.locator(tid("quick-seats")).select_option("3")
        form.locator(tid("quick-fish")).select_option("one")
        page.locator(tid("quick-kozel")).click()
        # The last may be seated, and sent on to the table, before its search page settles.
        page.wait_for_url(re.compile(r"/(quick\?|m/)"))
        if page is pages[0]:  # alone so far: the page counts the searcher only
            page.locator(tid("quick-status")).filter(has_text="1 player found of 3").wait_for()
    for page in pages:
        page.wait_for_url(re.compile(r"/m/"), timeout=30_000)
        wait_dealt(page, 30)
    tables = [page.locator(tid("kozel-table")) for page in pages]
    assert len({t.get_attribute("data-match-id") for t in tables}) == 1
    assert sorted(t.get_attribute("data-seat") or "" for t in tables) == ["0", "1", "2"]


@pytest.mark.parametrize("path", ["/", "/lobby"])
def test_the_match_forms_hide_the_stake_for_kozel(
        new_context: Callable[..., Any], server: Any, path: str) -> None:
    page = new_context().new_page()
    page.goto(path)
    form = page.locator("form.new-match")
    if path == "/":
        form.locator('select[name="opponent"]').select_option("open")
    stake = form.locator(".stake-field")
    stake.wait_for()  # Georgian: the stake is offered (to a guest: "Register to play for coins")
    form.locator(tid("game-choice")).select_option("kozel")
    stake.wait_for(state="hidden")
    form.locator(tid("game-choice")).select_option("georgian")
    stake.wait_for()
