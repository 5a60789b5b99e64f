"""Fixtures of the bot API tests: servers on the test database (in this process, like the web
tests; keyword arguments change settings), with the web and community helpers importable."""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "community"))

from webhelp import ServerThread  # noqa: E402

from kva.web.app import create_app  # noqa: E402


class Server(ServerThread):
    """The web test server with settings changed (``dataclasses.replace``)."""

    def __init__(self, database_url: str, broker_url: str | None = None,
                 **settings: Any) -> None:
        super().__init__(database_url, broker_url)
        if settings:
            self.settings = dataclasses.replace(self.settings, **settings)
            self.app = create_app(self.settings, bot_executor=self.executor)
            config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                    log_level="warning", ws_max_size=64 * 1024, lifespan="on")
            self.server = uvicorn.Server(config)
            self.thread = threading.Thread(target=self.server.run, daemon=True)


@pytest.fixture
def make_server(database_url: str) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def make(broker_url: str | None = None, **settings: Any) -> Server:
        # Test bots move as fast as the server answers: no per-token rate limit unless a
        # test sets one (test_botapi_limits.py does).
        settings = {"bot_api_rate": "1000000/minute", **settings}
        server = Server(database_url, broker_url, **settings).start()
        servers.append(server)  # type: ignore[arg-type]
        return server  # type: ignore[return-value]

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def server(make_server: Callable[..., Server]) -> Server:
    return make_server()
