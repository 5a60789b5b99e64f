"""The database as the platform uses it: one :class:`Database` owns the async engine (with the
SQLite settings a game server wants), the session factory and the journal writer, chosen when
it is made. The composition root (:mod:`kva.platform`) makes one and hands it, or what it
gives out, to everything that needs the database."""

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
from sqlalchemy.pool import AsyncAdaptedQueuePool

from kva.settings.caps import PG_POOL_SIZE, EngineOptions
from kva.storage.journal_writer import JournalWriter, choose_writer


def ensure_sqlite_dir(url: str) -> None:
    """Create the folder of a SQLite database file (``./var/`` by default) if it is missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


#: The options of an engine made without any.
DEFAULT_OPTIONS = EngineOptions()


def pool_options(url: str, pg_pool_size: int = PG_POOL_SIZE) -> dict[str, Any]:
    """The pool of an engine for ``url``.

    SQLite: one connection. WAL lets one writer in at a time anyway; with several connections
    the writers of one process queued inside SQLite's busy handler (which sleeps, up to 100 ms
    at a time: seconds of tail under load); with one, reads and writes queue in order in the
    pool, each a fraction of a millisecond (measured in docs/performance.md). Nothing may open
    a second database session while holding one. The busy timeout stays for a second process sharing
    the file. A connection given back is not rolled back (that is a hop to aiosqlite's thread
    after every commit): SQLAlchemy ends the transactions it began (a session, ``begin()``,
    ``connect()``), and the one path that uses the driver's own transaction
    (:class:`kva.storage.journal_writer.SqliteWriter`) ends it itself. PostgreSQL:
    ``pg_pool_size`` connections.
    """
    if make_url(url).get_backend_name() == "sqlite":
        return {"connect_args": {"timeout": 30}, "poolclass": AsyncAdaptedQueuePool,
                "pool_size": 1, "max_overflow": 0, "pool_timeout": 60,
                "pool_reset_on_return": None}
    return {"pool_size": pg_pool_size, "max_overflow": 0, "pool_pre_ping": False,
            "pool_recycle": 1800, "pool_timeout": 60}


def create_engine(url: str, options: EngineOptions = DEFAULT_OPTIONS) -> AsyncEngine:
    """An async engine for ``url`` with the pool of :func:`pool_options`, as ``options`` say.
    SQLite gets WAL (readers never block the writer, and a commit survives a killed process)
    and a busy timeout, so two processes can share a file."""
    ensure_sqlite_dir(url)
    is_sqlite = make_url(url).get_backend_name() == "sqlite"
    engine = create_async_engine(url, **pool_options(url, options.pool_size))
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


class Database:
    """One database and everything that talks to it: the engine, the session factory every
    repository call gets its session from, and the writer of the match journal's appends
    (:mod:`kva.storage.journal_writer`, chosen once from the driver and ``options``; it owns
    the direct connections its path keeps). Disposing the database closes them all."""

    __slots__ = ("engine", "sessions", "journal")

    def __init__(self, url: str, options: EngineOptions = DEFAULT_OPTIONS) -> None:
        self.engine: AsyncEngine = create_engine(url, options)
        self.sessions: async_sessionmaker[AsyncSession] = session_factory(self.engine)
        self.journal: JournalWriter = choose_writer(
            self.engine, sqlite_direct_append=options.sqlite_direct_append,
            pg_direct_append=options.pg_direct_append)

    async def dispose(self) -> None:
        """Close the pool and the journal writer's own connections."""
        await self.engine.dispose()
