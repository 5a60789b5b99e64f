"""Fixtures for the web tests: servers built on the test database (``database_url``, from
``tests/conftest.py``: SQLite, or PostgreSQL when ``KVA_TEST_DATABASE_URL`` is set)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from webhelp import ServerThread


@pytest.fixture
def make_server(database_url: str) -> Iterator[Callable[..., ServerThread]]:
    """Start servers on ``database_url`` (``broker_url`` optional); all stopped at the end."""
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
    """One server with the in-memory broker."""
    return make_server()
