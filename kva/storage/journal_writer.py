"""Journal appends: the writer of a database, chosen once when its :class:`~kva.storage.db.
Database` is made.

Every move of a match that goes on is one journal INSERT (:mod:`kva.storage.journal`), so its
path is the cheapest one the database allows. A single INSERT needs no transaction around it;
on SQLite (aiosqlite) and PostgreSQL (asyncpg) it goes to the driver as one statement
(``INSERT ... RETURNING``) and its commit, not through SQLAlchemy's cursor, transaction and
pool reset (each a hop to aiosqlite's thread or a round trip to PostgreSQL): 0.29 -> 0.16 ms
of CPU per append on SQLite, 0.40 -> 0.22 ms on PostgreSQL (docs/performance.md).

The writers, one per path (:func:`choose_writer` picks one from the driver and the switches
``KVA_SQLITE_DIRECT_APPEND`` and ``KVA_PG_DIRECT_APPEND``, so an append asks nothing of
either at run time):

* :class:`SqliteDirectWriter`: written at once on the event loop's own SQLite connection when
  no other connection holds the write lock (:mod:`kva.storage.sqlite_direct`), else as
  :class:`SqliteWriter`;
* :class:`SqliteWriter`: the INSERT and its COMMIT in one trip to aiosqlite's thread on the
  engine's pooled connection, not two;
* :class:`AsyncpgOwnWriter`: on an asyncpg connection of the appends' own, not one from the
  pool (:mod:`kva.storage.pg_direct`);
* :class:`AsyncpgWriter`: on a pooled connection, straight to asyncpg;
* :class:`JournalWriter`: any other database, through SQLAlchemy.

Every writer answers alike: True when the row was written, False when version ``seq`` exists
(a stale copy), :class:`~kva.storage.repo.SessionEnded` when ``player_session`` has ended;
nothing is written in the last two cases.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from kva.storage import sqlite_direct
from kva.storage.aiosqlite_thread import run_on_thread
from kva.storage.repo import SessionEnded, append_change, journal_insert

#: PostgreSQL's SQLSTATE for a duplicate key.
UNIQUE_VIOLATION = "23505"


class JournalWriter:
    """Appends through SQLAlchemy, in a transaction of their own (any database), to the
    database of the engine it was made for."""

    __slots__ = ("engine",)

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def append(self, match_id: str, seq: int, change: str,
                     player_session: str | None = None) -> bool:
        """Append ``change`` as version ``seq`` of ``match_id``'s journal, committed; see the
        module for the answers."""
        async with self.engine.begin() as conn:
            return await append_change(conn, match_id, seq, change, player_session)


class _VersionTaken(Exception):
    """The journal row of this version exists: the writer's copy is stale."""


class _DriverWriter(JournalWriter):
    """Appends as the driver's own SQL, compiled once for the engine's dialect."""

    __slots__ = ("_plain", "_guarded")

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self._plain = _driver_sql(engine.dialect, guarded=False)
        self._guarded = _driver_sql(engine.dialect, guarded=True)

    def _statement(self, match_id: str, seq: int, change: str,
                   player_session: str | None) -> tuple[str, list[Any]]:
        """The SQL of this append and its parameters, in the SQL's order."""
        sql, order = self._plain if player_session is None else self._guarded
        values = {"match_id": match_id, "seq": seq, "change": change,
                  "player_session": player_session}
        return sql, [values[name] for name in order]


def _driver_sql(dialect: Dialect, *, guarded: bool) -> tuple[str, tuple[str, ...]]:
    """The journal INSERT (``RETURNING seq``: no row when the session check kept it out) as
    ``dialect``'s SQL, with its parameters' names in order."""
    insert = journal_insert(guarded=guarded)
    statement = insert.returning(insert.table.c.seq)
    compiled = statement.compile(dialect=dialect)
    return str(compiled), tuple(compiled.positiontup or ())


def _written(written: bool) -> bool:
    """True for a written row; :class:`SessionEnded` when the session check kept it out."""
    if not written:
        raise SessionEnded("the session of this change has ended")
    return True


class SqliteWriter(_DriverWriter):
    """aiosqlite: the INSERT and its COMMIT in one trip to aiosqlite's thread."""

    __slots__ = ()

    async def append(self, match_id: str, seq: int, change: str,
                     player_session: str | None = None) -> bool:
        sql, params = self._statement(match_id, seq, change, player_session)
        try:
            written = await _append_on_sqlite_thread(self.engine, sql, params)
        except _VersionTaken:
            return False
        return _written(written)


class SqliteDirectWriter(SqliteWriter):
    """aiosqlite, a SQLite file: written at once on the loop's own connection when nobody
    else is writing, else as :class:`SqliteWriter`."""

    __slots__ = ("direct",)

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        #: The direct connections and checkpoints of this engine's file.
        self.direct = sqlite_direct.DirectAppends(engine)

    async def append(self, match_id: str, seq: int, change: str,
                     player_session: str | None = None) -> bool:
        sql, params = self._statement(match_id, seq, change, player_session)
        try:
            written = _append_directly(self.direct, sql, params)
            if written is None:  # SQLite's file is locked: the pool's connection
                written = await _append_on_sqlite_thread(self.engine, sql, params)
        except _VersionTaken:
            return False
        return _written(written)


class AsyncpgWriter(_DriverWriter):
    """asyncpg: the INSERT on a pooled connection, straight to the driver."""

    __slots__ = ()

    async def append(self, match_id: str, seq: int, change: str,
                     player_session: str | None = None) -> bool:
        sql, params = self._statement(match_id, seq, change, player_session)
        try:
            written = await _append_on_pooled_asyncpg(self.engine, sql, params)
        except _VersionTaken:
            return False
        return _written(written)


class AsyncpgOwnWriter(_DriverWriter):
    """asyncpg: the INSERT on a connection of the appends' own (:mod:`kva.storage.pg_direct`),
    never one from the engine's pool."""

    __slots__ = ("own",)

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        from kva.storage import pg_direct  # asyncpg is loaded only where PostgreSQL is used

        #: The appends' own connections to this engine's database.
        self.own = pg_direct.OwnConnections(engine)

    async def append(self, match_id: str, seq: int, change: str,
                     player_session: str | None = None) -> bool:
        sql, params = self._statement(match_id, seq, change, player_session)
        try:
            written = await _asyncpg_append(self.own.appenders().fetchval, sql, params)
        except _VersionTaken:
            return False
        return _written(written)


def choose_writer(engine: AsyncEngine, *, sqlite_direct_append: bool = True,
                  pg_direct_append: bool = True) -> JournalWriter:
    """The writer of ``engine``'s appends: its driver's direct path, the pooled one where the
    switch turns the direct one off (to measure the difference) or, on SQLite, where the
    database cannot have a second connection (in memory); SQLAlchemy for other drivers."""
    dialect = engine.dialect
    driver = (dialect.name, dialect.driver)
    if driver == ("sqlite", "aiosqlite"):
        direct = sqlite_direct_append and sqlite_direct.database_file(engine.url) is not None
        return SqliteDirectWriter(engine) if direct else SqliteWriter(engine)
    if driver == ("postgresql", "asyncpg"):
        return AsyncpgOwnWriter(engine) if pg_direct_append else AsyncpgWriter(engine)
    return JournalWriter(engine)


async def _append_on_sqlite_thread(engine: AsyncEngine, sql: str, params: list[Any]) -> bool:
    """The append on SQLite's pooled connection: whether it wrote its row
    (:class:`_VersionTaken` when the version exists).

    One trip to aiosqlite's thread (:func:`kva.storage.aiosqlite_thread.run_on_thread`): the
    INSERT and its COMMIT (or ROLLBACK) run there as one call (:func:`_append_on_thread`),
    not as two awaited hops. sqlite3 opens a transaction before the INSERT, and SQLite's pool
    does not roll back a connection it gets back (kva.storage.db): the call ends it whatever
    happens, and runs to its end even if this task is cancelled while it waits, before
    anything a later user of the connection puts on the thread's queue."""
    async with engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        try:
            written = await run_on_thread(
                driver, lambda sqlite: _append_on_thread(sqlite, sql, params))
        except sqlite3.IntegrityError:  # the version exists (rolled back)
            raise _VersionTaken from None
    return written


def _append_on_thread(conn: sqlite3.Connection, sql: str, params: list[Any]) -> bool:
    """On aiosqlite's thread (``conn``: its sqlite3 connection): run the journal INSERT and
    commit it, or roll back on any error and raise it; whether it wrote its row (a guarded
    INSERT whose session has ended writes none, and commits nothing)."""
    try:
        written = bool(conn.execute(sql, params).fetchall())
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return written


def _append_directly(direct: sqlite_direct.DirectAppends, sql: str,
                     params: list[Any]) -> bool | None:
    """The append on the loop's own SQLite connection (:mod:`kva.storage.sqlite_direct`):
    whether it wrote its row, or None when it cannot be written at once that way
    (:class:`_VersionTaken` when the version exists)."""
    conn = direct.connection()
    if conn is None:
        return None
    try:
        written = sqlite_direct.try_append(conn, sql, params)
    except sqlite3.IntegrityError:
        raise _VersionTaken from None
    if written is not sqlite_direct.BUSY:
        direct.appended()
    return written
async def _append_on_pooled_asyncpg(engine: AsyncEngine, sql: str, params: list[Any]) -> bool:
    """The append on a pooled PostgreSQL connection, straight to asyncpg: whether it wrote its
    row (:class:`_VersionTaken` when the version exists)."""
    async with engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        return await _asyncpg_append(
            lambda sql, params: driver.fetchval(sql, *params), sql, params)


async def _asyncpg_append(
    fetchval: Callable[[str, list[Any]], Awaitable[Any]], sql: str, params: list[Any]
) -> bool:
    """The append through asyncpg's ``fetchval``: whether it wrote its row
    (:class:`_VersionTaken` when the version exists)."""
    try:
        return await fetchval(sql, params) is not None
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != UNIQUE_VIOLATION:  # not "the version exists"
            raise
        raise _VersionTaken from None
