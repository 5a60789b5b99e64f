"""The async engine and session factory, with the SQLite settings a game server wants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def ensure_sqlite_dir(url: str) -> None:
    """Create the folder of a SQLite database file (``./var/`` by default) if it is missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def create_engine(url: str) -> AsyncEngine:
    """An async engine for ``url``. SQLite gets WAL (readers never block the writer, and a
    commit survives a killed process) and a busy timeout, so two processes can share a file."""
    ensure_sqlite_dir(url)
    is_sqlite = make_url(url).get_backend_name() == "sqlite"
    kwargs: dict[str, Any] = (
        {"connect_args": {"timeout": 30}} if is_sqlite else {"pool_pre_ping": True}
    )
    engine = create_async_engine(url, **kwargs)
    if is_sqlite:

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    return engine


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)
