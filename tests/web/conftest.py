"""Fixtures for the web tests: servers built on the test database (``database_url``, from
``tests/conftest.py``: SQLite, or PostgreSQL when ``KVA_TEST_DATABASE_URL`` is set)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from kva.service.broker import Broker, MemoryBroker, RedisBroker
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.helpers.webhelp import ServerThread, Table, Visitor


@pytest.fixture(params=["memory", "redis"])
async def broker(request: pytest.FixtureRequest) -> AsyncIterator[Broker]:
    """A started broker: in memory, and on Redis (skipped without one at ``REDIS_URL``)."""
    if request.param == "redis":
        if not await redis_up():
            pytest.skip(f"no Redis at {REDIS_URL}")
        b: Broker = RedisBroker(REDIS_URL)
    else:
        b = MemoryBroker()
    await b.start()
    yield b
    await b.stop()


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


@pytest.fixture
async def table(server: ServerThread) -> AsyncIterator[Table]:
    """A friend match between two guests, watched by a third (see :class:`Table`)."""
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest, \
            Visitor(server.base_url) as watcher:
        match_id = await host.new_match("friend", target=75)
        token = await host.share_token(match_id)
        r = await guest.http.get(f"/t/{token}")
        assert r.status_code == 303
        await watcher.http.get(f"/t/{token}")
        a, b, w = (await host.connect(match_id), await guest.connect(match_id),
                   await watcher.connect(match_id))
        mover, waiter = (a, b) if a.state["view"]["turn"] == a.state["you"] else (b, a)
        yield Table(mover, waiter, w, match_id)
        for s in (a, b, w):
            await s.close()
