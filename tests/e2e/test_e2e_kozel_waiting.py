"""A Kozel table waiting for players: its seats, who sits in each and which are free, counted
in the page's language (Russian has three plural forms), its link, and "seat a bot" for its
creator; a bot seated and a friend who joins fill it, and the table starts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, set_field, share_link, tid

pytestmark = pytest.mark.browser

#: In each language: the free seats counted (two, then one) and the waiting words.
WORDS = {
    "en": ("2 seats free", "1 seat free", "Waiting for 2 more players.",
           "Waiting for 1 more player.", "Free seat"),
    "ru": ("2 места свободны", "1 место свободно", "Ждём ещё 2 игроков.",
           "Ждём ещё 1 игрока.", "Свободное место"),
}


def seats(page: Any) -> list[tuple[str, str]]:
    """Each seat's line: (whether it is free, its text)."""
    items = page.locator(tid("kozel-seat"))
    return [(items.nth(i).get_attribute("data-free") or "", items.nth(i).inner_text())
            for i in range(items.count())]


def wait_text(page: Any, name: str, text: str) -> None:
    """Until the ``name`` hook reads ``text`` (the socket's first state fills it)."""
    box = page.locator(tid(name))
    deadline = time.monotonic() + 20
    while box.inner_text().strip() != text:
        assert time.monotonic() < deadline, (name, box.inner_text(), text)
        page.wait_for_timeout(25)


@pytest.mark.parametrize("lang", list(WORDS))
def test_a_three_seat_table_shows_its_seats_until_they_are_taken(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    two_free, one_free, waiting_two, waiting_one, free = WORDS[lang]
    ctx = new_context()
    ctx.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    host = Game(page)
    page.goto("/")
    set_field(page, "game", "kozel")
    set_field(page, "seats", "3")
    set_field(page, "opponent", "friend")
    page.locator(tid("start")).click()
    wait_text(page, "kozel-status", waiting_two)
    assert page.locator("#k-seats-title").inner_text() == two_free
    assert [f for f, _ in seats(page)] == ["0", "1", "1"]
    assert [t for _, t in seats(page)][1:] == [free, free]
    assert page.locator(tid("share-link")).is_visible()
    page.locator(tid("add-bot-easy")).click()  # the creator seats a bot: the page comes back

    wait_text(page, "kozel-status", waiting_one)
    assert page.locator("#k-seats-title").inner_text() == one_free
    assert [f for f, _ in seats(page)] == ["0", "0", "1"]

    guest = new_context().new_page()
    guest.goto(share_link(host, server.base_url))
    join = guest.locator(tid("join"))
    if join.count() and join.first.is_visible():
        join.first.click()
    page.locator(tid("kozel-seats")).wait_for(state="hidden", timeout=20_000)
    page.locator(f'{tid("kozel-hand")} button').first.wait_for(timeout=20_000)
    assert errors == [], errors
