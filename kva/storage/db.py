"""The async engine and session factory, with the SQLite settings a game server wants, and
the journal writer of each engine, chosen when the engine is created."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import AsyncAdaptedQueuePool

from kva.storage.journal_writer import JournalWriter, choose_writer


def ensure_sqlite_dir(url: str) -> None:
    """Create the folder of a SQLite database file (``./var/`` by default) if it is missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


#: PostgreSQL connections one process keeps in its pool (``KVA_DB_POOL_SIZE``): open all the
#: time (no overflow connections opened and closed under load), none pinged at checkout (a
#: connection the server dropped fails one transaction and is replaced), recycled after half an
#: hour. The journal's appends have up to four more of their own (kva.storage.pg_direct), so a
#: process holds at most 20 connections to the server, as it did when the pool had 20.
PG_POOL_SIZE = 16


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What the configuration changes about an engine (:meth:`kva.config.Settings.
    engine_options`); the defaults are production's."""

    #: PostgreSQL's pool size (``KVA_DB_POOL_SIZE``).
    pool_size: int = PG_POOL_SIZE
    #: Journal appends on the loop's own SQLite connection (``KVA_SQLITE_DIRECT_APPEND``).
    sqlite_direct_append: bool = True
    #: Journal appends on asyncpg connections of their own (``KVA_PG_DIRECT_APPEND``).
    pg_direct_append: bool = True


#: The options of an engine made without any.
DEFAULT_OPTIONS = EngineOptions()

#: Per engine: the writer of its journal appends (:func:`journal_writer_of`).
_WRITERS: weakref.WeakKeyDictionary[Engine, JournalWriter] = weakref.WeakKeyDictionary()


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
    """An async engine for ``url`` with the pool of :func:`pool_options` and its journal
    writer (:func:`journal_writer_of`), as ``options`` say. SQLite gets WAL (readers never
    block the writer, and a commit survives a killed process) and a busy timeout, so two
    processes can share a file."""
    ensure_sqlite_dir(url)
    is_sqlite = make_url(url).get_backend_name() == "sqlite"
    engine = create_async_engine(url, **pool_options(url, options.pool_size))
    _WRITERS[engine.sync_engine] = choose_writer(
        engine, sqlite_direct_append=options.sqlite_direct_append,
        pg_direct_append=options.pg_direct_append)
    if is_sqlite:

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    return engine


def journal_writer_of(engine: AsyncEngine) -> JournalWriter:
    """The writer of ``engine``'s journal appends, chosen when :func:`create_engine` made it
    (for an engine made otherwise, chosen now with the default options and kept)."""
    writer = _WRITERS.get(engine.sync_engine)
    if writer is None:
        writer = _WRITERS[engine.sync_engine] = choose_writer(engine)
    return writer


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)
