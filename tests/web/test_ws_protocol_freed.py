"""A closed WebSocket's objects are freed at once, not by the garbage collector.

uvicorn's WebSocket protocol keeps its connection's ``websockets`` protocol in a reference cycle
(the frame parser, a generator, holds it), with the per-message-deflate contexts inside; a
serving process collects that generation rarely, so every closed socket stayed in memory until
then. And the HTTP protocol each socket was upgraded from stays in a cycle with its parser,
which the young collections paid for (kva/web/wsprotocol.py). These tests serve WebSockets with
the protocols ``kva serve`` uses, with the garbage collector off, and count what is left of
closed connections.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.server import ServerProtocol
from websockets.sync.client import connect

from kva.commands.serve import uvicorn_options
from kva.config import Settings
from kva.web.wsprotocol import FreedOnCloseWebSocketProtocol, FreedOnUpgradeHttpToolsProtocol
from tests.helpers.webhelp import free_port


async def echo_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Accepts a WebSocket and echoes its text until it closes."""
    if scope["type"] != "websocket":
        return
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif message["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message.get("text") or ""})
        else:
            return


@pytest.fixture
def served() -> Iterator[tuple[str, uvicorn.Server]]:
    port = free_port()
    config = uvicorn.Config(echo_app, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="off", ws_per_message_deflate=True,
                            ws=FreedOnCloseWebSocketProtocol,
                            http=FreedOnUpgradeHttpToolsProtocol)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"ws://127.0.0.1:{port}/", server
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def _live_protocols() -> int:
    """The connections' protocols alive: WebSocket ones, and the HTTP ones they came from."""
    return sum(1 for o in gc.get_objects()
               if type(o) is ServerProtocol or issubclass(type(o), HttpToolsProtocol))


def _closed_sockets_left(url: str, server: uvicorn.Server, *, abruptly: bool) -> int:
    gc.collect()
    gc.disable()
    try:
        before = _live_protocols()
        for _ in range(5):
            with connect(url, compression="deflate") as ws:
                ws.send("a state")
                assert ws.recv() == "a state"
                if abruptly:  # no closing handshake: the TCP connection just ends
                    ws.socket.close()
        deadline = time.monotonic() + 10
        while server.server_state.connections and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)  # the server's tasks for the last socket end
        return _live_protocols() - before
    finally:
        gc.enable()


def test_a_closed_websocket_is_freed_without_a_garbage_collection(
        served: tuple[str, uvicorn.Server]) -> None:
    url, server = served
    assert _closed_sockets_left(url, server, abruptly=False) == 0


def test_a_websocket_cut_without_closing_is_freed_without_a_garbage_collection(
        served: tuple[str, uvicorn.Server]) -> None:
    url, server = served
    assert _closed_sockets_left(url, server, abruptly=True) == 0


def test_kva_serve_uses_the_protocols_that_free_closed_websockets() -> None:
    settings = Settings(database_url="sqlite+aiosqlite:///x.db", broker_url=None, secret_key="k")
    options = uvicorn_options(settings, "info")
    assert options["ws"] is FreedOnCloseWebSocketProtocol
    assert options["http"] is FreedOnUpgradeHttpToolsProtocol
