"""Journal appends on PostgreSQL through asyncpg connections of their own, not SQLAlchemy's pool.

Every move of a match that goes on is one journal INSERT (:mod:`kva.storage.journal_writer`),
already sent to asyncpg as one statement. Taking a connection for it from
the engine's pool and giving it back (SQLAlchemy's connection, pool checkout and checkin, its
events and reset, each a greenlet hop) cost more of the loop's time than the statement itself:
per append, 215-223 µs of CPU through the pool against 77-87 µs on a connection of its own,
one PostgreSQL on the same machine. So appends
keep a few connections of their own (:data:`APPEND_CONNECTIONS`), opened when first needed,
each running one statement at a time (asyncpg allows no more), and the engine's pool is
smaller by as many (:data:`kva.settings.caps.PG_POOL_SIZE`), so a process holds at most 20
connections to the server in all.

A statement PostgreSQL refuses (a duplicate version, a foreign key) leaves its connection as it
was; any other failure (the connection lost, the task cancelled mid-statement) closes it, and
the next append opens another. The connections belong to the engine's journal writer
(:class:`OwnConnections`), per event loop (asyncpg's connections belong to the loop that
opened them), and are closed with the engine.
``KVA_PG_DIRECT_APPEND=0`` sends appends through the pool again (to measure the difference): the
engine's journal writer is then chosen without these connections
(:func:`kva.storage.journal_writer.choose_writer`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine

#: Connections appends may hold at once, per engine and loop.
APPEND_CONNECTIONS: Final = 4

#: The keyword arguments SQLAlchemy's asyncpg dialect takes for itself, not asyncpg's.
_DIALECT_ONLY: Final = ("async_creator_fn", "prepared_statement_cache_size",
                        "prepared_statement_name_func")


class Appenders:
    """At most :data:`APPEND_CONNECTIONS` asyncpg connections to one database, each used by
    one statement at a time; idle ones are kept for the next."""

    def __init__(self, connect_args: tuple[list[Any], dict[str, Any]],
                 limit: int = APPEND_CONNECTIONS) -> None:
        self._connect_args = connect_args
        self._slots = asyncio.Semaphore(limit)
        self._idle: list[Any] = []  # asyncpg.Connection
        #: Every connection opened and not yet closed (idle or in use).
        self.open: set[Any] = set()

    async def fetchval(self, sql: str, params: list[Any]) -> Any:
        """``fetchval(sql, *params)`` on an idle connection (opened if none is)."""
        async with self._slots:
            conn = self._idle.pop() if self._idle else await self._connect()
            usable = False
            try:
                value = await conn.fetchval(sql, *params)
                usable = True
                return value
            except asyncpg.PostgresError:  # the server refused the statement: conn is fine
                usable = True
                raise
            finally:
                if usable and not conn.is_closed():
                    self._idle.append(conn)
                else:
                    self._drop(conn)

    async def _connect(self) -> Any:
        args, kwargs = self._connect_args
        conn = await asyncpg.connect(*args, **kwargs)
        self.open.add(conn)
        return conn

    def _drop(self, conn: Any) -> None:
        self.open.discard(conn)
        conn.terminate()

    def close(self) -> None:
        """Close every connection at once (the engine is disposed)."""
        for conn in list(self.open):
            self._drop(conn)
        self._idle.clear()


class OwnConnections:
    """The appends' own connections to one engine's database (the journal writer of that
    engine holds the one object): the running loop's :class:`Appenders`, made on first use,
    remade when another loop uses the engine, closed when the engine is disposed."""

    def __init__(self, engine: AsyncEngine) -> None:
        sync = engine.sync_engine
        args, kwargs = sync.dialect.create_connect_args(sync.url)
        for name in _DIALECT_ONLY:
            kwargs.pop(name, None)
        self._connect_args: tuple[list[Any], dict[str, Any]] = (list(args), dict(kwargs))
        self._kept: tuple[asyncio.AbstractEventLoop, Appenders] | None = None
        event.listen(sync, "engine_disposed", self._disposed)

    def appenders(self) -> Appenders:
        """The running loop's :class:`Appenders`."""
        loop = asyncio.get_running_loop()
        kept = self._kept
        if kept is not None and kept[0] is loop:
            return kept[1]
        if kept is not None:  # made on a loop that is gone (tests run each on a loop of its own)
            kept[1].close()
        made = Appenders(self._connect_args)
        self._kept = (loop, made)
        return made

    def close(self) -> None:
        """Close every connection (the engine is disposed); a later append opens new ones."""
        kept, self._kept = self._kept, None
        if kept is not None:
            kept[1].close()

    def _disposed(self, _engine: Engine) -> None:
        self.close()
