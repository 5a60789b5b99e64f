"""Domino Coin over HTTP: a coin table by a friend's link, refusals answered with their
message (a guest, a stake not on the list, a stake against a bot, a creator who cannot cover
it), the wallet page and its top-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import Visitor


async def test_coin_tables_over_http(make_server: Callable[..., Any]) -> None:
    server = make_server()
    host, host_name = await registered(server.base_url, "gela")
    friend, _friend_name = await registered(server.base_url, "tako")
    async with Visitor(server.base_url) as guest:
        data = {"opponent": "friend", "target": "75", "bazaar": "draw", "stake": "1000"}
        r = await host.http.post("/matches", data=data)
        assert r.status_code == 303, r.text
        match_id = r.headers["location"].rsplit("/", 1)[1]
        token = await host.share_token(match_id)
        # a guest may not sit at a coin table: refused, nothing moved
        r = await guest.http.post(f"/t/{token}", data={"password": ""})
        assert r.status_code == 403 and "Create an account to play for coins" in r.text
        # bad input, each refused with its message and nothing created
        for bad, status, words in (({"stake": "7"}, 400, "Choose a stake"),
                                   ({"stake": "-100"}, 400, "Choose a stake"),
                                   ({"stake": "99999999999"}, 400, "Choose a stake"),
                                   ({"stake": "100", "opponent": "bot:easy"}, 400, "not bots")):
            r = await host.http.post("/matches", data={**data, **bad})
            assert r.status_code == status and words in r.text, (bad, r.status_code)
        r = await guest.http.post("/matches", data={**data, "opponent": "open", "stake": "10"})
        assert r.status_code == 403 and "play for coins" in r.text
        # the friend sits down: both stakes (all they have) move into the escrow
        r = await friend.http.post(f"/t/{token}", data={"password": ""})
        assert r.status_code == 303, r.text
        for v in (host, friend):
            assert (await v.http.get("/wallet/balance.json")).json() == {"balance": 0}
            info = (await v.http.get(f"/wallet/match/{match_id}.json")).json()
            assert info == {"stake": 1000, "delta": -1000, "paid": False, "escrow": 2000}
        # the friend resigns: the final state's event says who got the pot
        sock = await host.connect(match_id)
        await sock.wait_for(lambda m: m.get("type") == "state")
        quitter = await friend.connect(match_id)
        await quitter.send({"type": "resign"})
        end = await sock.wait_for(lambda m: m.get("type") == "state"
                                  and m["status"] == "finished")
        assert end["event"]["coins"] == {"stake": 1000, "winner": 0}
        for s in (sock, quitter):
            await s.close()
        assert (await host.http.get("/wallet/balance.json")).json() == {"balance": 2000}
        # a new coin table needs coins now: refused with the reason
        r = await friend.http.post("/matches", data={**data, "stake": "10"})
        assert r.status_code == 409 and "Not enough coins" in r.text
        page = (await friend.http.get("/wallet")).text
        assert 'data-testid="topup"' in page and "not money" in page
        r = await friend.http.post("/wallet/topup")
        assert r.status_code == 303
        assert (await friend.http.get("/wallet/balance.json")).json() == {"balance": 100}
        r = await friend.http.post("/wallet/topup")
        assert r.status_code == 409 and "already claimed" in r.text
        # the wallet names the opponent of each coin match, never its raw id, and writes dates
        # as the page's language does (no ISO stamp with "UTC")
        page = (await friend.http.get("/wallet")).text
        assert f"against {host_name}" in page and f">{match_id}</a>" not in page
        assert " UTC</time>" not in page
        assert (await guest.http.get("/wallet/balance.json")).json() == {"balance": None}
        assert "Create an account" in (await guest.http.get("/wallet")).text
        lobby = (await guest.http.get("/lobby")).text
        assert "not money" in lobby
        # the friend (100 coins now) clicks "Play" at an open 500-coin table: the lobby says why
        rich, _rich_name = await registered(server.base_url, "nino")
        r = await rich.http.post("/matches", data={**data, "opponent": "open", "stake": "500"})
        assert r.status_code == 303, r.text
        open_id = r.headers["location"].rsplit("/", 1)[1]
        assert f'data-match="{open_id}"' in (await guest.http.get("/lobby")).text
        r = await friend.http.post(f"/lobby/{open_id}/join")
        assert r.status_code == 409 and 'data-testid="lobby-error"' in r.text
        assert "Not enough coins" in r.text
        assert (await rich.http.get("/wallet/balance.json")).json() == {"balance": 1000}
        await rich.http.aclose()
    for v in (host, friend):
        await v.http.aclose()
