"""A coin stake is settled between the two players of a Georgian match (docs/coins.md): a Kozel
table (any seats) or a Kozel quick game with a stake is refused with ``two_seats`` and its
message, and nothing is created."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers.accounts_help import JsonSocket, registered, ws_url

MESSAGE = "Coin stakes are only for Georgian domino between two players."


@pytest.mark.parametrize("seats", ["2", "3", "4"])
@pytest.mark.parametrize("opponent", ["open", "friend"])
async def test_a_stake_on_a_kozel_table_is_refused(
        make_server: Callable[..., Any], seats: str, opponent: str) -> None:
    server = make_server()
    host, _name = await registered(server.base_url, "gela")
    r = await host.http.post("/matches", data={
        "opponent": opponent, "game": "kozel", "seats": seats, "fish": "all", "stake": "10"})
    assert r.status_code == 400 and 'data-code="two_seats"' in r.text and MESSAGE in r.text
    assert 'data-testid="my-matches"' not in (await host.http.get("/")).text


async def test_a_stake_on_a_kozel_quick_page_is_refused(
        make_server: Callable[..., Any]) -> None:
    server = make_server()
    host, _name = await registered(server.base_url, "gela")
    r = await host.http.get("/quick", params={"game": "kozel", "seats": "3", "fish": "all",
                                              "stake": "10"})
    assert r.status_code == 400 and 'data-code="two_seats"' in r.text and MESSAGE in r.text


async def test_a_stake_on_a_kozel_quick_socket_is_refused(
        make_server: Callable[..., Any]) -> None:
    server = make_server()
    host, _name = await registered(server.base_url, "gela")
    sock = await JsonSocket(ws_url(server.base_url,
                                   "/ws/quick?game=kozel&seats=3&fish=all&stake=10"),
                            host.cookie).open()
    refused = await sock.wait_for(lambda m: m.get("type") == "error")
    assert refused["code"] == "two_seats"
    await sock.close()
