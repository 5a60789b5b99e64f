"""Fixtures every database-backed test folder shares: a fresh database per test, migrated
(``database``, a :class:`~kva.storage.db.Database`) with its session factory (``sessions``), a
started broker (``broker``), servers on the database in
this process (``make_server``, ``server``) and a play service on it (``play``).

SQLite by default (a new file per test, a copy of one migrated once per session). With
``KVA_TEST_DATABASE_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/<db>`` the session creates
a database ``kva_test_<random>`` on that server, runs every test against it, and drops it at the
end (tests must then not assume the database is empty).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
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

    from kva.service.cluster.broker import Broker
    from kva.service.play import PlayService
    from kva.storage.db import Database
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


@pytest.fixture(scope="session")
def migrated_sqlite(pg_database: str | None, tmp_path_factory: pytest.TempPathFactory
                    ) -> Path | None:
    """A SQLite file migrated to the head once for the session (None on PostgreSQL).

    Running every migration takes ~0.3 s, and most tests of the database-backed folders need a
    migrated database: each test gets a copy of this file instead (``database_url``), which is
    the same database its own migration would have made, for a file copy's cost."""
    if pg_database is not None:
        return None
    from kva.storage.db import Database
    from kva.storage.migrate import upgrade

    path = tmp_path_factory.mktemp("migrated") / "kva.sqlite3"

    async def migrate() -> None:
        made = Database(f"sqlite+aiosqlite:///{path}")
        try:
            await upgrade(made.engine)
        finally:
            await made.dispose()  # the last connection's close checkpoints the WAL into the file

    asyncio.run(migrate())
    return path


@pytest.fixture
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 at its cheapest parameters for the test's accounts and table passwords.

    The server's parameters (64 MiB, three passes over four lanes) cost ~0.2 s of a core per
    hash or check, and the database-backed tests register and log in many accounts on servers
    in this process. What they check is which hash is made and checked, on which lane, never
    its cost, and a hash carries its own parameters, so Argon2id with one pass over 1 MiB makes
    and checks the same kind of ``$argon2id$`` hash in a few milliseconds. (Servers run as
    subprocesses keep the real parameters.)"""
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    from kva.service.accounts import passwords

    monkeypatch.setattr(passwords, "_HASHER", PasswordHash(
        (Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),)))


@pytest.fixture
def database_url(pg_database: str | None, migrated_sqlite: Path | None, tmp_path: Path,
                 cheap_password_hashes: None) -> str:
    """The database a test's servers share (with ``cheap_password_hashes``, as every test on
    a database gets): the session's PostgreSQL one, or a fresh SQLite file per test, already
    migrated (a copy of ``migrated_sqlite``; the session's PostgreSQL
    database is migrated too once its first test has run, so no test may assume otherwise)."""
    if pg_database is not None:
        return pg_database
    assert migrated_sqlite is not None
    target = tmp_path / "kva.sqlite3"
    shutil.copyfile(migrated_sqlite, target)
    return f"sqlite+aiosqlite:///{target}"


@pytest.fixture
async def redis_url() -> str:
    """The test Redis's URL; the test is skipped when no Redis answers."""
    from tests.helpers.redis_help import REDIS_URL, redis_up

    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """The migrated test database (its engine, sessions and journal writer)."""
    from kva.storage.db import Database
    from kva.storage.migrate import upgrade

    made = Database(database_url)
    await upgrade(made.engine)
    try:
        yield made
    finally:
        await made.dispose()


@pytest.fixture
def sessions(database: Database) -> async_sessionmaker:
    """The session factory of the migrated test database."""
    return database.sessions


@pytest.fixture(params=["memory", "redis"])
async def broker(request: pytest.FixtureRequest) -> AsyncIterator[Broker]:
    """A started broker: in memory, and on Redis (skipped without one at ``REDIS_URL``)."""
    from kva.service.cluster.broker import MemoryBroker, RedisBroker
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
async def play(database: Database, bot_pool: ThreadPoolExecutor
               ) -> AsyncIterator[PlayService]:
    """A play service on the test database (:func:`tests.helpers.play.make_play`: forced and
    bot moves at once), its bots in ``bot_pool``; stopped at the end of the test."""
    from tests.helpers.play import make_play

    service = make_play(database, bot_executor=bot_pool)
    try:
        yield service
    finally:
        await service.stop()
