"""Fixtures shared by the community tests (accounts, lobby, ratings, history, rematch, leaving):
the test database (``database_url`` from ``tests/conftest.py``), servers on it with any setting
changed, and a migrated session factory for tests that talk to the services directly.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn

from kva.web.app import create_app
from tests.helpers.webhelp import ServerThread


class Server(ServerThread):
    """The web test server with settings changed (``dataclasses.replace`` on its Settings)."""

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
    """Start servers on ``database_url``; keyword arguments change settings. All are stopped
    at the end of the test."""
    servers: list[Server] = []

    def make(broker_url: str | None = None, **settings: Any) -> Server:
        server = Server(database_url, broker_url, **settings)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
