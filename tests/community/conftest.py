"""Fixtures shared by the community tests (accounts, lobby, ratings, history, rematch, leaving):
a fresh database (SQLite, or PostgreSQL when ``KVA_TEST_DATABASE_URL`` is set, exactly as in
``tests/web``), servers on it with any setting changed, and a migrated session factory for
tests that talk to the services directly.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import secrets
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import async_sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))

from webhelp import ServerThread  # noqa: E402

from kva.storage.db import create_engine, session_factory  # noqa: E402
from kva.storage.migrate import upgrade  # noqa: E402
from kva.web.app import create_app  # noqa: E402

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
    """The session's PostgreSQL database, or a fresh SQLite file per test. On PostgreSQL the
    database is shared by the whole session: tests must not assume it is empty."""
    if pg_database is not None:
        return pg_database
    return f"sqlite+aiosqlite:///{tmp_path / 'kva.sqlite3'}"


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker]:
    """A session factory on the migrated test database."""
    engine = create_engine(database_url)
    await upgrade(engine)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


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
