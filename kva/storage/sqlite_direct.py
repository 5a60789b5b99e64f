"""Journal appends on SQLite written at once, on the event loop's own thread, when nobody else
is writing.

Every move of a match that goes on is one journal INSERT (:mod:`kva.storage.journal_writer`).
Through the engine it waits for SQLite's one pooled connection and then for a trip to
aiosqlite's thread and back; under load the way back waits behind everything else the event
loop has to do, and the connection stays checked out meanwhile, so the next append queues
behind it. Measured at 500 live matches (``kva bench server``): the pooled
connection was checked out 37-39 % of the time, 0.8 ms per checkout on average, most of them
appends, for an INSERT that SQLite itself does in tens of microseconds.

So an append first tries a connection of its own, made for the loop's thread
(:func:`direct_connection`), in autocommit mode with no busy timeout: the INSERT commits as it
runs, or SQLite answers at once that another connection holds the write lock (a transaction of
the engine's connection, or another process), and the append then goes the engine's way
(:data:`BUSY`). It never waits inside SQLite, so it never blocks the loop for more than
the INSERT itself.

The write-ahead log is checkpointed off the loop: every :data:`CHECKPOINT_EVERY` direct appends,
:func:`appended` starts :func:`checkpoint` on a connection of its own in a worker thread (a
checkpoint copies and syncs pages: too slow for the loop, and it would hold the engine's one
pooled connection).
The engine's connection also checkpoints at SQLite's usual 1,000 pages whenever it commits
(every other change). This connection checkpoints only as a backstop, at ten times that size
(:data:`CHECKPOINT_PAGES`): left to that backstop alone whenever few other changes are
committed (long matches, few new ones), a checkpoint on the loop's thread held the loop for
70-120 ms, hence the periodic one in a worker thread.

Only for a SQLite database in a file (:func:`database_file`): an in-memory database is private
to its connection. ``KVA_SQLITE_DIRECT_APPEND=0`` turns it off (to measure the difference): the
engine's journal writer is then chosen without it (:func:`kva.storage.journal_writer.
choose_writer`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import weakref
from typing import Any, Final

from sqlalchemy import event
from sqlalchemy.engine import URL, Engine
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger(__name__)

#: What :func:`try_append` returns when another connection holds SQLite's write lock.
BUSY: Final = None

#: The size of the write-ahead log, in pages, at which a direct append checkpoints it (SQLite's
#: default, which the engine's connection keeps, is 1,000).
CHECKPOINT_PAGES: Final = 10_000

#: Direct appends between two checkpoints of the log off the loop (:func:`appended`): an
#: append adds about 2.4 pages to the log, so about SQLite's usual 1,000 pages.
CHECKPOINT_EVERY: Final = 400

#: Per engine: direct appends since the last checkpoint was asked for.
_APPENDED: weakref.WeakKeyDictionary[Engine, int] = weakref.WeakKeyDictionary()

#: The checkpoints :func:`appended` started that are still running, per engine (a task must
#: be referenced while it runs).
_CHECKPOINTS: dict[AsyncEngine, asyncio.Task[None]] = {}

#: Per engine: the connection its checkpoints run on (:func:`checkpoint`).
_CHECKPOINTERS: weakref.WeakKeyDictionary[Engine, sqlite3.Connection] = weakref.WeakKeyDictionary()

#: Per engine, per thread: its direct connection (None: the engine's database cannot have one).
_CONNECTIONS: weakref.WeakKeyDictionary[Engine, dict[int, sqlite3.Connection | None]] = (
    weakref.WeakKeyDictionary())

#: SQLite's primary result codes that mean "someone else holds the lock, try later".
_LOCKED_CODES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def direct_connection(engine: AsyncEngine) -> sqlite3.Connection | None:
    """The calling thread's direct connection to ``engine``'s SQLite file, opened on first use
    and closed when the engine is disposed; None when there is none to have (not SQLite, or an
    in-memory database)."""
    sync = engine.sync_engine
    per_thread = _CONNECTIONS.get(sync)
    if per_thread is None:
        per_thread = _CONNECTIONS[sync] = {}
        event.listen(sync, "engine_disposed", lambda _engine: _close_all(per_thread))
    thread = threading.get_ident()
    if thread not in per_thread:
        per_thread[thread] = _open(sync)
    return per_thread[thread]


def database_file(url: URL) -> str | None:
    """The file of ``url``'s SQLite database, or None when it has none a second connection can
    open (not SQLite, or a database in memory)."""
    database = url.database
    if (url.get_backend_name() != "sqlite" or not database
            or database == ":memory:" or database.startswith("file:")
            or url.query.get("mode") == "memory"):
        return None
    return database


def _open(sync: Engine) -> sqlite3.Connection | None:
    database = database_file(sync.url)
    if database is None:
        return None
    # Autocommit (each statement its own transaction), no busy handler (locked: fail at once),
    # the engine's other settings (kva.storage.db.create_engine); WAL is the file's already.
    conn = sqlite3.connect(database, timeout=0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
    return conn


def _close_all(per_thread: dict[int, sqlite3.Connection | None]) -> None:
    for conn in per_thread.values():
        if conn is not None:
            conn.close()
    per_thread.clear()


def try_append(conn: sqlite3.Connection, sql: str, params: list[Any]) -> bool | None:
    """Run the journal INSERT ``sql`` (``... RETURNING seq``) and commit it: whether it wrote
    its row (a guarded INSERT whose session has ended writes none), or :data:`BUSY` when
    another connection holds the write lock (nothing written). ``sqlite3.IntegrityError``
    when the version exists; nothing is left open either way."""
    try:
        cursor = conn.execute(sql, params)
        try:
            return bool(cursor.fetchall())
        finally:
            cursor.close()
    except sqlite3.OperationalError as exc:
        if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in _LOCKED_CODES:
            return BUSY
        raise


def appended(engine: AsyncEngine) -> None:
    """Count a direct append to ``engine``'s file; every :data:`CHECKPOINT_EVERY`, start a
    :func:`checkpoint` in the background, unless one is still running."""
    sync = engine.sync_engine
    count = _APPENDED.get(sync, 0) + 1
    if count < CHECKPOINT_EVERY:
        _APPENDED[sync] = count
        return
    _APPENDED[sync] = 0
    if engine in _CHECKPOINTS:
        return

    async def run() -> None:
        try:
            await checkpoint(engine)
        except Exception:  # the next one, or the engine's own, will do
            log.warning("checkpointing the SQLite log failed", exc_info=True)
        finally:
            _CHECKPOINTS.pop(engine, None)

    _CHECKPOINTS[engine] = asyncio.get_running_loop().create_task(run())


async def checkpoint(engine: AsyncEngine) -> tuple[int, int, int]:
    """Checkpoint ``engine``'s write-ahead log without waiting for anyone (``PASSIVE``: the
    frames no reader still needs are copied into the database; writers go on meanwhile), on a
    connection of its own in a worker thread: neither the loop nor the engine's one pooled
    connection waits for it (a checkpoint copies and syncs pages, tens of milliseconds on a
    slow disk). The caller runs one at a time per engine. SQLite's answer: (1 if it could not
    run at all, pages in the log, pages checkpointed)."""
    sync = engine.sync_engine
    conn = _CHECKPOINTERS.get(sync)
    if conn is None:
        conn = _open(sync)
        if conn is None:
            return 1, 0, 0
        _CHECKPOINTERS[sync] = conn
        event.listen(sync, "engine_disposed", lambda _engine: _close_checkpointer(sync))
    return await asyncio.to_thread(_checkpoint_now, conn)


def _checkpoint_now(conn: sqlite3.Connection) -> tuple[int, int, int]:
    busy, pages, checkpointed = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(pages), int(checkpointed)


def _close_checkpointer(sync: Engine) -> None:
    conn = _CHECKPOINTERS.pop(sync, None)
    if conn is not None:
        conn.close()
