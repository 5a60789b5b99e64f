"""The Kozel quick game over the quick page's socket: three searchers of a three-seat table
land at one match; a searcher alone takes bots for the free seats once they are offered (not
before); bad settings are refused; a server on the Redis queue (several processes) seats a
table too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers.accounts_help import JsonSocket, ws_url
from tests.helpers.webhelp import Visitor


def _kozel_url(base_url: str, seats: int | str = 3, fish: str = "all") -> str:
    return ws_url(base_url, f"/ws/quick?game=kozel&seats={seats}&fish={fish}")


async def test_three_searchers_of_a_three_seat_table_land_at_one_match(
        make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b, \
            Visitor(server.base_url) as c, Visitor(server.base_url) as d:
        page = await a.http.get("/quick", params={"game": "kozel", "seats": "3", "fish": "all"})
        assert page.status_code == 200 and 'data-testid="quick-kozel"' in page.text
        assert 'data-seats="3"' in page.text and 'data-fish="all"' in page.text
        sd = await JsonSocket(_kozel_url(server.base_url, 4), d.cookie).open()  # other seats
        sa = await JsonSocket(_kozel_url(server.base_url), a.cookie).open()
        waiting = await sa.wait_for(lambda m: m.get("type") == "waiting")
        assert waiting["offer_bot"] is False and waiting["waited"] == 0
        sb = await JsonSocket(_kozel_url(server.base_url), b.cookie).open()
        sc = await JsonSocket(_kozel_url(server.base_url), c.cookie).open()
        paired = [await s.wait_for(lambda m: m.get("type") == "paired") for s in (sa, sb, sc)]
        assert len({p["match_id"] for p in paired}) == 1
        match_id = paired[0]["match_id"]
        seats = set()
        for v in (a, b, c):
            sock = await v.connect(match_id)
            assert sock.state["status"] == "active" and len(sock.state["players"]) == 3
            seats.add(sock.state["you"])
            await sock.close()
        assert seats == {0, 1, 2}
        assert not any(m.get("type") == "paired" for m in sd.messages)
        for s in (sa, sb, sc, sd):
            await s.close()


async def test_a_searcher_alone_takes_bots_once_offered(
        make_server: Callable[..., Any]) -> None:
    server = make_server(quick_bot_offer=1.0)
    async with Visitor(server.base_url) as a:
        sa = await JsonSocket(_kozel_url(server.base_url, 4, "one"), a.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting")
        await sa.send({"type": "bots"})  # not offered yet
        early = await sa.wait_for(lambda m: m.get("type") == "error")
        assert early["code"] == "too_early"
        await sa.wait_for(lambda m: m.get("type") == "waiting" and m["offer_bot"], timeout=15)
        await sa.send({"type": "bots"})
        paired = await sa.wait_for(lambda m: m.get("type") == "paired")
        sock = await a.connect(paired["match_id"])
        players = sock.state["players"]
        assert sock.state["you"] == 0 and len(players) == 4
        assert sum(1 for p in players if p and p.get("bot")) == 3, players
        await sock.close()
        await sa.close()


@pytest.mark.parametrize(("query", "code"), [("seats=5", "bad_seats"), ("seats=2", "bad_seats"),
                                             ("seats=x", "bad_seats"), ("fish=some", "bad_fish")])
async def test_bad_kozel_quick_settings_are_refused(
        make_server: Callable[..., Any], query: str, code: str) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a:
        page = await a.http.get(f"/quick?game=kozel&{query}")
        assert page.status_code == 400 and 'data-testid="error"' in page.text
        sock = await JsonSocket(ws_url(server.base_url, f"/ws/quick?game=kozel&{query}"),
                                a.cookie).open()
        refused = await sock.wait_for(lambda m: m.get("type") == "error")
        assert refused["code"] == code
        await sock.close()


async def test_a_server_on_the_redis_queue_seats_a_kozel_table(
        make_server: Callable[..., Any], redis_url: str) -> None:
    server = make_server(broker_url=redis_url, quick_bot_offer=1.0)
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b:
        sa = await JsonSocket(_kozel_url(server.base_url), a.cookie).open()
        sb = await JsonSocket(_kozel_url(server.base_url), b.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting" and m["offer_bot"], timeout=15)
        await sa.send({"type": "bots"})
        paired = [await s.wait_for(lambda m: m.get("type") == "paired", timeout=20)
                  for s in (sa, sb)]
        assert paired[0]["match_id"] == paired[1]["match_id"]
        sock = await a.connect(paired[0]["match_id"])
        players = sock.state["players"]
        assert len(players) == 3 and sum(1 for p in players if p and p.get("bot")) == 1
        await sock.close()
        for s in (sa, sb):
            await s.close()


async def test_a_kozel_search_reports_the_players_found_for_its_table(
        make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b:
        page = await a.http.get("/quick", params={"game": "kozel", "seats": "4", "fish": "all"})
        assert "2 players found of 4" in page.text  # the counts the page shows, by ngettext
        sa = await JsonSocket(_kozel_url(server.base_url, 4), a.cookie).open()
        alone = await sa.wait_for(lambda m: m.get("type") == "waiting")
        assert alone["found"] == 1
        sb = await JsonSocket(_kozel_url(server.base_url, 4), b.cookie).open()
        await sa.wait_for(lambda m: m.get("type") == "waiting" and m["found"] == 2, timeout=15)
        for s in (sa, sb):
            await s.close()
