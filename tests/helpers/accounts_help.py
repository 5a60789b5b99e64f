"""Helpers for the account, lobby and quick-game tests: registering, logging in, opening and
joining tables, and quick-game sockets, all through HTTP and WebSockets like a browser."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from typing import Any

import websockets

from tests.helpers.webhelp import Visitor

PASSWORD = "correct horse battery"


def new_nickname(prefix: str = "p") -> str:
    """A nickname no other test uses (the PostgreSQL database is shared by the session)."""
    return f"{prefix}{secrets.token_hex(4)}"


async def register(v: Visitor, nickname: str, password: str = PASSWORD) -> Any:
    """Post the registration form; the response (303 on success)."""
    return await v.http.post("/register", data={"nickname": nickname, "password": password,
                                                "next": "/"})


async def login(v: Visitor, nickname: str, password: str = PASSWORD) -> Any:
    """Post the login form; the response (303 on success)."""
    return await v.http.post("/login", data={"nickname": nickname, "password": password,
                                             "next": "/"})


async def registered(base_url: str, prefix: str = "p") -> tuple[Visitor, str]:
    """A visitor who has just registered; the visitor (open it with ``async with``) and name."""
    v = Visitor(base_url)
    await v.__aenter__()
    name = new_nickname(prefix)
    r = await register(v, name)
    assert r.status_code == 303, r.text
    return v, name


async def open_table(v: Visitor, target: int = 75, bazaar: str = "draw",
                     rated: bool = False) -> str:
    """Open a table for the lobby from the new-match form; its match id."""
    data = {"opponent": "open", "target": str(target), "bazaar": bazaar, "password": ""}
    if rated:
        data["rated"] = "1"
    r = await v.http.post("/matches", data=data)
    assert r.status_code == 303, r.text
    m = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
    assert m, r.headers["location"]
    return m.group(1)


def lobby_ids(html: str) -> list[str]:
    """The match ids of the tables listed on a lobby page."""
    return re.findall(r'data-testid="lobby-table" data-match="([^"]+)"', html)


class JsonSocket:
    """A WebSocket (lobby or quick game) that keeps every JSON message it receives."""

    def __init__(self, url: str, cookie: str, origin: str | None = None) -> None:
        self.url = url
        self.cookie = cookie
        self.origin = origin
        self.messages: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> JsonSocket:
        headers = {"Cookie": f"kva_session={self.cookie}"} if self.cookie else {}
        if self.origin:
            headers["Origin"] = self.origin
        self._ws = await websockets.connect(self.url, additional_headers=headers)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for text in self._ws:
                self.messages.append(json.loads(text))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self._ws.close_code
            self.closed.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self._ws.send(json.dumps(message))

    async def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The first message received (so far or within ``timeout``) that matches."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for m in self.messages:
                if predicate(m):
                    return m
            if loop.time() > deadline:
                raise AssertionError(f"no matching message; got {self.messages[-3:]}")
            if self.closed.is_set() and not any(predicate(m) for m in self.messages):
                raise AssertionError(f"closed ({self.close_code}); got {self.messages[-3:]}")
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader


def ws_url(base_url: str, path: str) -> str:
    return base_url.replace("http://", "ws://") + path
