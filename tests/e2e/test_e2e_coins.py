"""Domino Coin in the browser: two registered players play a coin table from the lobby; one
resigns; both header balances and both wallet pages show the stake moving to the winner, and
the match dialog says "+100" / "−100"."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.e2e_helpers import Game, shot, tid

pytestmark = pytest.mark.browser

PASSWORD = "e2e-coins-password"


def _registered(new_context: Callable[..., Any], prefix: str) -> Any:
    page = new_context().new_page()
    page.goto("/register?next=/")
    form = page.locator(tid("register-form"))
    name = f"{prefix}{secrets.token_hex(3)}"
    form.locator('input[name="nickname"]').fill(name)
    form.locator('input[name="password"]').fill(PASSWORD)
    page.locator(tid("register")).click()
    page.locator(tid("whoami")).filter(has_text=name).wait_for()
    return page


def _header_balance(page: Any, expected: str) -> None:
    page.locator(tid("coin-balance")).filter(has_text=expected).wait_for()


def test_a_coin_table_from_the_lobby_pays_the_winner(
    new_context: Callable[..., Any], server: Any
) -> None:
    host_page = _registered(new_context, "gela")
    guest_page = _registered(new_context, "tako")
    for page in (host_page, guest_page):
        _header_balance(page, "1,000")
        assert "not money" in page.locator(tid("nav-wallet")).get_attribute("title")

    host_page.goto("/lobby")
    form = host_page.locator(tid("open-table-form"))
    form.locator('select[name="target"]').select_option("75")
    form.locator('select[name="stake"]').select_option("100")
    assert form.locator(tid("coin-disclaimer")).is_visible()
    host = Game(host_page)
    host_page.locator(tid("open-table")).click()
    host.wait_ready()
    match_id = host.match_id

    guest_page.goto("/lobby")
    row = guest_page.locator(f'{tid("lobby-table")}[data-match="{match_id}"]')
    row.locator(tid("lobby-stake")).filter(has_text="100").wait_for()
    shot(guest_page, "coins-01-lobby")
    guest = Game(guest_page)
    row.locator(tid("join-table")).click()
    guest.wait_ready()
    host.wait_ready()
    guest_page.locator(tid("coin-stake")).filter(has_text="100").wait_for()
    _header_balance(guest_page, "900")

    guest_page.on("dialog", lambda d: d.accept())
    guest.loc("resign").first.click()
    confirm = guest_page.locator(tid("resign-confirm"))
    if confirm.count() and confirm.first.is_visible():
        confirm.first.click()
    for game, delta in ((guest, "−100"), (host, "+100")):
        game.loc("match-result").first.wait_for(state="visible")
        game.page.locator(tid("coin-change")).filter(has_text=delta).wait_for()
    shot(host_page, "coins-02-result")
    _header_balance(host_page, "1,100")
    _header_balance(guest_page, "900")

    for page, balance, top in ((host_page, "1,100", "+200"), (guest_page, "900", "−100")):
        page.goto("/wallet")
        assert page.locator(tid("wallet-balance")).inner_text().strip() == balance
        first = page.locator(tid("wallet-entry")).first
        assert first.locator(tid("entry-delta")).inner_text().strip() == top
        link = first.locator(tid("entry-match"))
        assert link.get_attribute("href") == f"/m/{match_id}"
        assert link.inner_text().startswith("against ") and match_id not in link.inner_text()
        assert "not money" in page.locator(tid("coin-disclaimer")).first.inner_text()
    shot(host_page, "coins-03-wallet")


@pytest.mark.parametrize("lang", ["en", "ka", "ru", "tr"])
def test_the_header_balance_is_written_as_the_page_writes_numbers(
    new_context: Callable[..., Any], server: Any, lang: str
) -> None:
    page = _registered(new_context, "nino")
    page.context.add_cookies([{"name": "kva_lang", "value": lang, "url": server.base_url}])
    page.goto("/wallet")
    on_page = page.locator(tid("wallet-balance")).inner_text().strip()
    header = page.locator(tid("coin-balance"))
    header.filter(has_text=on_page[0]).wait_for()
    assert header.inner_text().strip() == on_page, (lang, header.inner_text(), on_page)
