"""The lobby over HTTP and its WebSocket: open tables listed live, one-click join, cancelling
your own, closed tables never shown, and rated tables kept for registered players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.storage.models import MatchRow, SessionRow, User
from tests.helpers.accounts_help import JsonSocket, lobby_ids, open_table, registered, ws_url
from tests.helpers.webhelp import Visitor


def _ids(message: dict[str, Any]) -> list[str]:
    return [t["id"] for t in message["tables"]]


async def test_open_tables_are_listed_live_and_joined_in_one_click(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        watcher = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), guest.cookie).open()
        try:
            await watcher.wait_for(lambda m: m.get("type") == "lobby")
            closed = await host.new_match("friend")
            match_id = await open_table(host, target=255, bazaar="pass-only")
            listed = await watcher.wait_for(lambda m: match_id in _ids(m))
            assert closed not in _ids(listed)
            line = next(t for t in listed["tables"] if t["id"] == match_id)
            home = await host.http.get("/")
            creator = next(t for t in listed["tables"] if t["id"] == match_id)["creator"]
            assert creator in home.text  # the host's own nickname
            assert line == {
                "id": match_id, "creator": creator, "rating": 1500, "provisional": True,
                "target": 255, "bazaar": "pass-only", "rated": False,
                "created_at": line["created_at"], "mine": False, "can_join": True,
                "stake": 0, "clock": "standard",  # the default clock of an open table
                "game": "georgian", "options": {"target": 255, "bazaar": "pass-only"},
                "seated": False,
                "seats": [{"taken": True, "name": creator, "bot": None, "you": False},
                          {"taken": False, "name": None, "bot": None, "you": False}],
            }
            page = await guest.http.get("/lobby")
            assert 'data-testid="lobby-clock" data-clock="standard"' in page.text
            assert match_id in lobby_ids(page.text) and closed not in lobby_ids(page.text)
            assert f'action="/lobby/{match_id}/join"' in page.text
            own = await host.http.get("/lobby")
            assert f'action="/lobby/{match_id}/cancel"' in own.text

            r = await guest.http.post(f"/lobby/{match_id}/join")
            assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
            await watcher.wait_for(lambda m: m.get("type") == "lobby" and match_id not in _ids(m)
                                   and m is not listed)
            assert match_id not in lobby_ids((await guest.http.get("/lobby")).text)
            sock = await guest.connect(match_id)
            try:
                assert sock.state["you"] == 1 and sock.state["status"] == "active"
            finally:
                await sock.close()
            # Too late for anyone else.
            async with Visitor(server.base_url) as late:
                r = await late.http.post(f"/lobby/{match_id}/join")
                assert r.status_code == 409 and 'data-testid="lobby-error"' in r.text
        finally:
            await watcher.close()


async def test_your_own_open_table_can_be_cancelled_by_you_only(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as other:
        match_id = await open_table(host)
        r = await other.http.post(f"/lobby/{match_id}/cancel")
        assert r.status_code == 403
        assert match_id in lobby_ids((await other.http.get("/lobby")).text)
        watcher = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), host.cookie).open()
        try:
            first = await watcher.wait_for(lambda m: match_id in _ids(m))
            assert next(t for t in first["tables"] if t["id"] == match_id)["mine"] is True
            r = await host.http.post(f"/lobby/{match_id}/cancel")
            assert r.status_code == 303 and r.headers["location"] == "/lobby"
            await watcher.wait_for(lambda m: m.get("type") == "lobby" and match_id not in _ids(m))
        finally:
            await watcher.close()
        assert match_id not in lobby_ids((await other.http.get("/lobby")).text)
        r = await other.http.post(f"/lobby/{match_id}/join")
        assert r.status_code == 409
        # A cancelled match takes no moves and is gone from the creator's list.
        sock = await host.connect(match_id)
        try:
            assert sock.state["status"] == "cancelled" and sock.state["view"]["legal"] == []
            await sock.expect_error({"type": "resign"}, "over")
        finally:
            await sock.close()
        assert f"/m/{match_id}" not in (await host.http.get("/")).text


async def test_a_taken_table_cannot_be_cancelled(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        match_id = await open_table(host)
        assert (await guest.http.post(f"/lobby/{match_id}/join")).status_code == 303
        r = await host.http.post(f"/lobby/{match_id}/cancel")
        assert r.status_code == 409


async def test_rated_is_for_registered_players_only(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    player, _name = await registered(server.base_url)
    try:
        # Only a registered player is offered "rated" (new match and quick game).
        assert (await player.http.get("/")).text.count('name="rated"') == 2
        assert (await player.http.get("/lobby")).text.count('name="rated"') == 2
        async with Visitor(server.base_url) as guest:
            for path in ("/", "/lobby"):
                assert 'name="rated"' not in (await guest.http.get(path)).text
            # A guest may not open a rated table, nor play a bot or a friend rated.
            for opponent, status in (("open", 403), ("bot:easy", 400), ("friend", 400)):
                r = await guest.http.post("/matches", data={
                    "opponent": opponent, "target": "75", "bazaar": "draw", "rated": "1"})
                assert r.status_code == status, (opponent, r.status_code)
            r = await player.http.post("/matches", data={
                "opponent": "bot:easy", "target": "75", "bazaar": "draw", "rated": "1"})
            assert r.status_code == 400  # bot matches are always casual
            rated_id = await open_table(player, rated=True)
            page = await guest.http.get("/lobby")
            assert rated_id in lobby_ids(page.text)
            assert f'action="/lobby/{rated_id}/join"' not in page.text  # no button for a guest
            r = await guest.http.post(f"/lobby/{rated_id}/join")
            assert r.status_code == 403
            # Nor through the table's link.
            token = await player.share_token(rated_id)
            r = await guest.http.get(f"/t/{token}")
            assert r.status_code == 403
            assert rated_id in lobby_ids((await guest.http.get("/lobby")).text)
        other, _ = await registered(server.base_url, "r")
        try:
            r = await other.http.post(f"/lobby/{rated_id}/join")
            assert r.status_code == 303
            sock = await other.connect(rated_id)
            assert sock.state["you"] == 1
            await sock.close()
        finally:
            await other.__aexit__()
        async with sessions() as s:
            row = await s.get(MatchRow, rated_id)
            assert row is not None and row.rated and row.status == "active"
            assert row.record["meta"]["rated"] is True
    finally:
        await player.__aexit__()


async def test_two_processes_share_one_lobby_over_redis(
    make_server: Callable[..., Any]
) -> None:
    import os

    import redis.asyncio as redis

    url = os.environ.get("KVA_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
    client = redis.from_url(url, socket_connect_timeout=1)
    try:
        await client.ping()
    except Exception:
        pytest.skip(f"no Redis at {url}")
    finally:
        await client.aclose()
    one, two = make_server(broker_url=url), make_server(broker_url=url)
    async with Visitor(one.base_url) as host, Visitor(two.base_url) as guest:
        watcher = await JsonSocket(ws_url(two.base_url, "/ws/lobby"), guest.cookie).open()
        try:
            await watcher.wait_for(lambda m: m.get("type") == "lobby")
            match_id = await open_table(host)
            await watcher.wait_for(lambda m: match_id in _ids(m))  # published by the other
            r = await guest.http.post(f"/lobby/{match_id}/join")
            assert r.status_code == 303
            await watcher.wait_for(lambda m: m.get("type") == "lobby"
                                   and match_id not in _ids(m))
        finally:
            await watcher.close()
        sock = await host.connect(match_id)
        try:
            assert sock.state["status"] == "active" and sock.state["you"] == 0
        finally:
            await sock.close()


async def test_two_clicks_at_once_seat_exactly_one(make_server: Callable[..., Any]) -> None:
    import asyncio

    server = make_server()
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as a, \
            Visitor(server.base_url) as b:
        for _ in range(3):
            match_id = await open_table(host)
            ra, rb = await asyncio.gather(a.http.post(f"/lobby/{match_id}/join"),
                                          b.http.post(f"/lobby/{match_id}/join"))
            assert sorted((ra.status_code, rb.status_code)) == [303, 409]
        # A cancel racing a join: one of them wins, never both.
        for _ in range(3):
            match_id = await open_table(host)
            rc, rj = await asyncio.gather(host.http.post(f"/lobby/{match_id}/cancel"),
                                          a.http.post(f"/lobby/{match_id}/join"))
            assert sorted((rc.status_code, rj.status_code)) == [303, 409]
            assert (rc.status_code == 303) != (rj.status_code == 303)
            sock = await host.connect(match_id)
            try:
                expected = "cancelled" if rc.status_code == 303 else "active"
                assert sock.state["status"] == expected
            finally:
                await sock.close()


async def test_joining_an_unknown_table_creates_no_guest_and_no_session(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    users, rows = await _count(sessions, User), await _count(sessions, SessionRow)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        r = await http.post("/lobby/nosuchtable1/join")
    assert r.status_code == 404
    assert "set-cookie" not in r.headers
    assert (await _count(sessions, User), await _count(sessions, SessionRow)) == (users, rows)


async def _count(sessions: async_sessionmaker, model: Any) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)
