"""Helpers for the web tests: a server on a free port in this process, and a WebSocket client
that records every message it receives (so tests can assert on whole matches)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import uvicorn
import websockets

from kva.config import Settings
from kva.web.app import create_app
from tests.helpers.waiting import first_matching

SECRET = "tests-web-secret-key-0123456789abcdef"


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """``create_app`` served by uvicorn in a thread (its own event loop), like ``kva serve``.

    ``settings`` are :class:`Settings` fields to change (``dataclasses.replace``) on top of the
    test defaults: no pauses before forced and bot moves, and no per-socket rate limit."""

    def __init__(self, database_url: str, broker_url: str | None = None,
                 **settings: Any) -> None:
        self.port = free_port()
        self.settings = Settings(database_url=database_url, broker_url=broker_url,
                                 secret_key=SECRET, port=self.port, forced_delay=0.0,
                                 bot_delay=0.0, seed_wait=0.0)
        # Tests play whole matches as fast as the server answers: no per-socket rate limit
        # unless a test sets one (tests/web/test_ws_hardening.py does).
        unlimited = {"ws_rate": 1e6, "ws_burst": 10**6, "ws_flood": 10**6}
        self.settings = dataclasses.replace(self.settings, **{**unlimited, **settings})
        self.executor = ThreadPoolExecutor(max_workers=2)
        self.app = create_app(self.settings, bot_executor=self.executor)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws_max_size=64 * 1024, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.executor.shutdown(wait=True, cancel_futures=True)


class Visitor:
    """A browser-less visitor: an HTTP client with its own cookies (a guest identity)."""

    def __init__(self, base_url: str, accept_language: str = "en") -> None:
        self.base_url = base_url
        self.http = httpx.AsyncClient(base_url=base_url, headers={
            "accept-language": accept_language})

    async def __aenter__(self) -> Visitor:
        await self.http.get("/")
        if not self.cookie:  # a page that merely renders creates nobody: act to get a guest
            await self.http.get("/quick?target=75")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    @property
    def cookie(self) -> str:
        return self.http.cookies.get("kva_session") or ""

    async def new_match(self, opponent: str = "bot:easy", target: int = 75, bazaar: str = "draw",
                        password: str = "") -> str:
        """Create a match from the home form; its id."""
        r = await self.http.post("/matches", data={"opponent": opponent, "target": str(target),
                                                   "bazaar": bazaar, "password": password})
        assert r.status_code == 303, r.text
        m = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
        assert m, r.headers["location"]
        return m.group(1)

    async def share_token(self, match_id: str) -> str:
        """The closed table's token, read from the game page's ``share-link``."""
        r = await self.http.get(f"/m/{match_id}")
        found = re.search(r'value="[^"]*/t/([A-Za-z0-9_-]+)" data-testid="share-link"', r.text)
        assert found, "no share link on the game page"
        return found.group(1)

    async def connect(self, match_id: str) -> Socket:
        sock = Socket(self.base_url, match_id, self.cookie)
        await sock.open()
        return sock


class Socket:
    """One WebSocket to a match that keeps every message received, in order."""

    def __init__(self, base_url: str, match_id: str, cookie: str) -> None:
        self.url = base_url.replace("http://", "ws://") + f"/ws/m/{match_id}"
        self.cookie = cookie
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self.closed = False

    async def open(self, hello: bool = True) -> None:
        headers = {"Cookie": f"kva_session={self.cookie}"} if self.cookie else {}
        self._ws = await websockets.connect(self.url, additional_headers=headers,
                                            max_size=2 ** 22)
        self._reader = asyncio.create_task(self._read())
        if hello:
            await self.send({"type": "hello", "version": 0})
            await self.wait_state()

    async def _read(self) -> None:
        try:
            async for text in self._ws:
                self.raw.append(text)
                self.messages.append(json.loads(text))
                self._arrived.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._arrived.set()

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def wait_closed(self, timeout: float = 10.0) -> None:
        """Wait until the server side has gone away."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not self.closed:
            assert asyncio.get_running_loop().time() < deadline, "socket still open"
            await asyncio.sleep(0.01)

    async def send(self, message: Any) -> None:
        await self._ws.send(message if isinstance(message, str) else json.dumps(message))

    @property
    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "state"]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "error"]

    @property
    def state(self) -> dict[str, Any]:
        return self.states[-1]

    async def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The first message from now on (or already seen after ``start``) matching."""
        return await first_matching(
            self.messages, predicate, self._arrived, lambda: self.closed, timeout, self._last
        )

    def _last(self) -> str:
        return " | ".join(summary(m) for m in self.messages[-3:])

    async def wait_state(self, min_version: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        """The first state at ``min_version`` or later."""
        return await self.wait_for(
            lambda m: m.get("type") == "state" and m["version"] >= min_version, timeout)

    async def _next(self, count: int, timeout: float) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while len(self.messages) <= count:
            if self.closed:
                raise AssertionError("socket closed")
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError("no message")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), remaining)
        return self.messages[count]

    async def resync(self) -> dict[str, Any]:
        """Say hello and return the newest state received once the server has answered it.

        The server answers a hello with the current state, unless the relay sent that very
        version after the hello arrived (no version twice): then the relayed state is the
        answer. Frames are handled in order, so a ``ping`` after the hello marks the point by
        which every answer to it has been sent."""
        start = count = len(self.messages)
        await self.send({"type": "hello", "version": self.state["version"] if self.states else 0})
        await self.send({"type": "ping"})
        while True:
            m = await self._next(count, 10.0)
            count += 1
            if m.get("type") == "pong":
                break
        since_hello = [m for m in self.messages[start:count] if m.get("type") == "state"]
        assert since_hello, "no state answered the hello"
        return since_hello[-1]

    async def expect_error(self, message: Any, code: str) -> dict[str, Any]:
        """Send ``message``; the next reply that is not a state must be the error ``code``."""
        count = len(self.messages)
        await self.send(message)
        reply = await self._next(count, 15.0)
        # The game may move on meanwhile (a forced draw), and the spectator count may change.
        while reply.get("type") in ("state", "spectators"):
            count += 1
            reply = await self._next(count, 15.0)
        assert reply.get("type") == "error", reply
        assert reply["code"] == code, reply
        assert isinstance(reply.get("message"), str) and reply["message"]
        return reply

    def my_turn(self) -> bool:
        s = self.state
        v = s["view"]
        return (s["status"] == "active" and not v["over"] and v["turn"] is not None
                and v["turn"] == s["you"] and bool(v["legal"])
                and v["legal"][0]["type"] == "play")

    async def play_first_legal(self) -> dict[str, Any]:
        """Play the first legal action; the state that results."""
        s = self.state
        await self.send({"type": "action", "version": s["version"],
                         "action": s["view"]["legal"][0]})
        return await self.wait_for(
            lambda m: (m.get("type") == "state" and m["version"] > s["version"])
            or m.get("type") == "error")


@dataclasses.dataclass
class Table:
    """A friend match with both seats taken and a spectator: mover is the player on turn."""

    mover: Socket
    waiter: Socket
    watcher: Socket
    match_id: str


async def play_out(players: list[Socket], budget: float = 60.0) -> None:
    """Play the first legal tile for whoever is to move until the match is over."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    while not players[0].state["view"]["over"]:
        if loop.time() > deadline:
            raise AssertionError(f"match not over in time: {summary(players[0].states[-1])}")
        mover = next((p for p in players if p.my_turn()), None)
        if mover is None:
            await asyncio.sleep(0.002)
            continue
        reply = await mover.play_first_legal()
        assert reply["type"] == "state", reply
        for p in players:
            await p.wait_state(reply["version"])


def summary(message: dict[str, Any]) -> str:
    """A short description of a message for assertion texts."""
    if message.get("type") != "state":
        return json.dumps(message)[:300]
    v = message["view"]
    return (f"v{message['version']} you={message['you']} turn={v['turn']} over={v['over']} "
            f"legal={v['legal']} event={message['event']}")
