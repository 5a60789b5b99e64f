"""Fixtures of the bot API tests: servers on the test database (in this process, like the web
tests), with the web and community helpers importable."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "community"))

from webhelp import ServerThread  # noqa: E402


@pytest.fixture
def make_server(database_url: str) -> Iterator[Callable[..., ServerThread]]:
    servers: list[ServerThread] = []

    def make(broker_url: str | None = None) -> ServerThread:
        server = ServerThread(database_url, broker_url).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def server(make_server: Callable[..., ServerThread]) -> ServerThread:
    return make_server()
