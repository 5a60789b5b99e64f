"""Fixtures every database-backed test folder shares: a fresh database per test, and a migrated
session factory on it (``sessions``).

SQLite by default (a new file per test). With
``KVA_TEST_DATABASE_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/<db>`` the session creates
a database ``kva_test_<random>`` on that server, runs every test against it, and drops it at the
end (tests must then not assume the database is empty).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import async_sessionmaker

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
