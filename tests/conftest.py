"""Fixtures every database-backed test folder shares: a fresh database per test, a migrated
session factory on it (``sessions``), a started broker (``broker``), servers on the database in
this process (``make_server``, ``server``) and a play service on it (``play``).

SQLite by default (a new file per test). With
``KVA_TEST_DATABASE_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/<db>`` the session creates
a database ``kva_test_<random>`` on that server, runs every test against it, and drops it at the
end (tests must then not assume the database is empty).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy.engine import make_url

# The web and service modules are imported inside the fixtures that need them, so the folders
# that need no database (rules, bots, learning, i18n) never import them.
if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import async_sessionmaker

    from kva.service.broker import Broker
    from kva.service.play import PlayService
    from tests.helpers.webhelp import ServerThread

PG_URL = os.environ.get("KVA_TEST_DATABASE_URL")


async def _pg_admin(url: str, statement: str) -> None:
    import asyncpg

    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password, host=u.host or "127.0.0.1",
                                 port=u.port or 5432, database=u.database or "postgres")
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str | None]:
    """A fresh PostgreSQL database for the session (None when running on SQLite)."""
    if not PG_URL:
        yield None
        return
    name = f"kva_test_{secrets.token_hex(6)}"
    asyncio.run(_pg_admin(PG_URL, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_pg_admin(PG_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def database_url(pg_database: str | None, tmp_path: Path) -> str:
    """The database a test's servers share: the session's PostgreSQL one, or a fresh SQLite
    file per test."""
    if pg_database is not None:
        return pg_database
    return f"sqlite+aiosqlite:///{tmp_path / 'kva.sqlite3'}"


@pytest.fixture
async def redis_url() -> str:
    """The test Redis's URL; the test is skipped when no Redis answers."""
    from tests.helpers.redis_help import REDIS_URL, redis_up

    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker]:
    """A session factory on the migrated test database."""
    from kva.storage.db import create_engine, session_factory
    from kva.storage.migrate import upgrade

    engine = create_engine(database_url)
    await upgrade(engine)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


@pytest.fixture(params=["memory", "redis"])
async def broker(request: pytest.FixtureRequest) -> AsyncIterator[Broker]:
    """A started broker: in memory, and on Redis (skipped without one at ``REDIS_URL``)."""
    from kva.service.broker import MemoryBroker, RedisBroker
    from tests.helpers.redis_help import REDIS_URL, redis_up

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
    """Start servers on ``database_url`` (``broker_url`` optional; keyword arguments change
    their settings, see :class:`~tests.helpers.webhelp.ServerThread`). All are stopped at the
    end of the test."""
    from tests.helpers.webhelp import ServerThread

    servers: list[ServerThread] = []

    def make(broker_url: str | None = None, **settings: Any) -> ServerThread:
        server = ServerThread(database_url, broker_url, **settings).start()
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
def bot_pool() -> Iterator[ThreadPoolExecutor]:
    """The thread the bots of a test's play service think in."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool


@pytest.fixture
async def play(sessions: async_sessionmaker, bot_pool: ThreadPoolExecutor
               ) -> AsyncIterator[PlayService]:
    """A play service on the test database (:func:`tests.helpers.play.make_play`: forced and
    bot moves at once), its bots in ``bot_pool``; stopped at the end of the test."""
    from tests.helpers.play import make_play

    service = make_play(sessions, bot_executor=bot_pool)
    try:
        yield service
    finally:
        await service.stop()
