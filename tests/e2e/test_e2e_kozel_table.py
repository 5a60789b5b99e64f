"""A person plays Kozel against the easy bot, only by clicking: the match is created from the
home page's form, every tile is placed by a click on the hand (and on an end when both fit),
a draw or a knock by its button when that is what is offered, and the hand-end and match-end
summaries show what the server decided. In English and in Russian, and at phone size the whole
table fits one 375×667 screen without scrolling sideways."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import shot, tid
from tests.e2e.kozel_help import check_the_end, open_kozel, play_to_the_end, start_kozel

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}


def test_a_kozel_match_against_the_easy_bot_by_clicks(
    new_context: Callable[..., Any], server: Any,
) -> None:
    page = new_context().new_page()
    game = start_kozel(page, fish="one")
    assert game.view["options"]["fish"] == "one"
    shot(page, "kozel-01-start")
    moves, summaries = play_to_the_end(game)
    assert moves >= 5 and summaries >= 1
    check_the_end(game, "goat")
    shot(page, "kozel-03-match-end")


def test_a_kozel_match_in_russian(new_context: Callable[..., Any], server: Any) -> None:
    """The same in Russian, on the blitz clock the form offers against a bot too."""
    page = new_context(locale="ru-RU", extra_http_headers={"Accept-Language": "ru"}).new_page()
    game = start_kozel(page, clock="blitz")
    assert game.states[-1]["clock"]["preset"] == "blitz"
    assert page.locator(f'{tid("kozel-me")} {tid("kozel-clock")}').is_visible()
    assert page.locator(tid("kozel-hand-end-close")).inner_text() == "Дальше"
    play_to_the_end(game)
    check_the_end(game, "козёл")


def test_the_kozel_table_fits_a_phone(new_context: Callable[..., Any], server: Any) -> None:
    page = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    start_kozel(page)
    shot(page, "kozel-04-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width} px"
    for part in ("kozel-others", "kozel-line", "kozel-hand", "kozel-me"):
        box = page.locator(tid(part)).bounding_box()
        assert box is not None, part
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (part, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (part, box)
    for player in page.locator(tid("kozel-player")).all():
        box = player.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"], box


def test_a_kozel_table_waiting_for_a_friend(new_context: Callable[..., Any], server: Any) -> None:
    """A friend's Kozel table before the deal: its link, a waiting word, no tile, no error."""
    page = new_context().new_page()
    errors = open_kozel(page, "friend")
    page.locator(tid("share-link")).wait_for()
    status = page.locator(tid("kozel-status"))
    deadline = time.monotonic() + 10
    while not status.inner_text().strip():
        assert time.monotonic() < deadline, "the table never says that it waits"
        page.wait_for_timeout(25)
    assert page.locator(f'{tid("kozel-hand")} button').count() == 0
    assert errors == [], errors
