"""The lobby and quick-game sockets read only small JSON messages: anything else (over their
1 KiB, not JSON, not a message) is ignored without an answer, and the socket goes on as
before."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from kva.web.lobby import MAX_FRAME
from tests.helpers.accounts_help import JsonSocket, ws_url
from tests.helpers.webhelp import Visitor

UNREADABLE = [
    json.dumps({"type": "ping", "pad": "x" * MAX_FRAME}),  # over the limit
    "{not json",
    '["ping"]',  # JSON, but not a message
    json.dumps({"type": "cancel", "pad": "x" * MAX_FRAME}),
]


async def test_the_lobby_ignores_unreadable_frames_and_still_answers_ping(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        lobby = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie).open()
        try:
            await lobby.wait_for(lambda m: m.get("type") == "lobby")
            for frame in UNREADABLE:
                await lobby._ws.send(frame)
            await lobby.send({"type": "ping"})
            await lobby.wait_for(lambda m: m.get("type") == "pong")
            assert [m["type"] for m in lobby.messages] == ["lobby", "pong"]
            assert not lobby.closed.is_set()
        finally:
            await lobby.close()


async def test_a_quick_search_ignores_unreadable_frames_until_cancelled(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    async with Visitor(server.base_url) as v:
        await v.http.get("/quick", params={"target": "75", "bazaar": "pass-only"})
        url = ws_url(server.base_url, "/ws/quick?target=75&bazaar=pass-only&rated=0")
        quick = await JsonSocket(url, v.cookie).open()
        try:
            await quick.wait_for(lambda m: m.get("type") == "waiting")
            for frame in UNREADABLE:
                await quick._ws.send(frame)
            await asyncio.sleep(1.2)  # a report at least went out meanwhile
            assert {m["type"] for m in quick.messages} == {"waiting"}
            assert len(quick.messages) >= 2 and not quick.closed.is_set()
            await quick.send({"type": "cancel"})
            await quick.wait_for(lambda m: m.get("type") == "cancelled")
            await asyncio.wait_for(quick.closed.wait(), 5)
            assert quick.close_code == 1000
        finally:
            await quick.close()
