"""Security over HTTP and WebSockets: closed tables without their password, acting in someone
else's match, cross-origin handshakes, revoked sessions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import websockets

from tests.helpers.accounts_help import JsonSocket, registered, ws_url
from tests.helpers.webhelp import Visitor


async def test_a_closed_tables_link_without_its_password_is_refused(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as intruder:
        match_id = await host.new_match("friend", password="s3cret-table")
        token = await host.share_token(match_id)
        page = await intruder.http.get(f"/t/{token}")
        assert page.status_code == 200 and 'name="password"' in page.text  # asked, not seated
        for pw in ("", "wrong"):
            r = await intruder.http.post(f"/t/{token}", data={"password": pw})
            assert r.status_code in (200, 403) and 'name="password"' in r.text
        # Nor is there a way around it: the lobby does not list it or let anyone join it...
        lobby = await intruder.http.get("/lobby")
        assert match_id not in lobby.text
        r = await intruder.http.post(f"/lobby/{match_id}/join")
        assert r.status_code == 404
        # ...nor watch it (issue 8: a password table is watched only with its password): the
        # game page is refused and so is the socket's handshake (closed 4403 before accept)...
        r = await intruder.http.get(f"/m/{match_id}")
        assert r.status_code == 403
        with pytest.raises(websockets.InvalidStatus) as refused:
            await intruder.connect(match_id)
        assert refused.value.response.status_code == 403
        # ...and the match is still waiting for its invited friend, as its host sees it.
        sock = await host.connect(match_id)
        try:
            assert sock.state["you"] == 0 and sock.state["status"] == "waiting"
            assert sock.state["players"][1] is None
            r = await intruder.http.post(f"/t/{token}", data={"password": "s3cret-table"})
            assert r.status_code == 303
            await sock.wait_for(lambda m: m.get("type") == "state"
                                and m["players"][1] is not None)
        finally:
            await sock.close()
        # With the password given, the friend is seated and the match is theirs to open.
        assert (await intruder.http.get(f"/m/{match_id}")).status_code == 200
        seated = await intruder.connect(match_id)
        try:
            assert seated.state["you"] == 1
        finally:
            await seated.close()


async def test_a_player_cannot_act_in_someone_elses_match(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as a, Visitor(server.base_url) as b, \
            Visitor(server.base_url) as c:
        match_id = await a.new_match("friend")
        token = await a.share_token(match_id)
        r = await b.http.get(f"/t/{token}")
        assert r.status_code == 303
        sa, sc = await a.connect(match_id), await c.connect(match_id)
        try:
            state = await sa.wait_state(2)
            assert sc.state["you"] is None
            legal = state["view"]["legal"]
            # Whatever the outsider sends, nothing changes.
            if legal:
                await sc.expect_error({"type": "action", "version": state["version"],
                                       "action": legal[0]}, "not_seated")
            await sc.expect_error({"type": "action", "version": state["version"],
                                   "action": {"type": "play", "tile": "6-6"}}, "not_seated")
            await sc.expect_error({"type": "resign"}, "not_seated")
            assert (await sa.resync())["version"] == state["version"]
            # A third visitor cannot take a seat by following the link either.
            r = await c.http.get(f"/t/{token}")
            assert r.status_code == 303
            sc2 = await c.connect(match_id)
            assert sc2.state["you"] is None
            await sc2.close()
        finally:
            await sa.close()
            await sc.close()


@pytest.mark.parametrize("path", ["/ws/m/{id}", "/ws/lobby", "/ws/quick?target=75"])
@pytest.mark.parametrize("origin", ["https://evil.example", "null",
                                    "http://127.0.0.1:1", "http://localhost.evil.example"])
async def test_a_cross_origin_websocket_handshake_is_refused(
    make_server: Callable[..., Any], path: str, origin: str
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        match_id = await v.new_match("bot:easy")
        url = ws_url(server.base_url, path.replace("{id}", match_id))
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(url, origin=origin,  # type: ignore[arg-type]
                                     additional_headers={"Cookie": f"kva_session={v.cookie}"})
        assert refused.value.response.status_code == 403
        # The same handshake from the site itself is accepted.
        ok = await websockets.connect(url, origin=server.base_url,  # type: ignore[arg-type]
                                      additional_headers={"Cookie": f"kva_session={v.cookie}"})
        await ok.close()


async def test_a_configured_origin_is_accepted(make_server: Callable[..., Any]) -> None:
    server = make_server(allowed_origins=("https://kva.example",))
    async with Visitor(server.base_url) as v:
        sock = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie,
                                origin="https://kva.example").open()
        await sock.wait_for(lambda m: m.get("type") == "lobby")
        await sock.close()
        with pytest.raises(websockets.InvalidStatus):
            await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie,
                             origin="https://other.example").open()


async def test_a_revoked_session_cannot_play(make_server: Callable[..., Any]) -> None:
    server = make_server()
    v, _name = await registered(server.base_url)
    try:
        match_id = await v.new_match("bot:easy")
        old = v.cookie
        r = await v.http.post("/logout")
        assert r.status_code == 303
        v.http.cookies.set("kva_session", old)
        sock = await v.connect(match_id)
        try:
            assert sock.state["you"] is None  # the old cookie is a stranger now
            await sock.expect_error({"type": "resign"}, "not_seated")
        finally:
            await sock.close()
    finally:
        await v.__aexit__()
