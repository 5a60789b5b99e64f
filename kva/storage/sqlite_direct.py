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
(:meth:`DirectAppends.connection`), in autocommit mode with no busy timeout: the INSERT
commits as it runs, or SQLite answers at once that another connection holds the write lock (a
transaction of the engine's connection, or another process), and the append then goes the
engine's way (:data:`BUSY`). It never waits inside SQLite, so it never blocks the loop for
more than the INSERT itself.

The write-ahead log is checkpointed off the loop: every :data:`CHECKPOINT_EVERY` direct
appends, :meth:`DirectAppends.appended` starts :meth:`DirectAppends.checkpoint` on a
connection of its own in a worker thread (a checkpoint copies and syncs pages: too slow for
the loop, and it would hold the engine's one pooled connection).
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

#: Direct appends between two checkpoints of the log off the loop
#: (:meth:`DirectAppends.appended`): an append adds about 2.4 pages to the log, so about
#: SQLite's usual 1,000 pages.
CHECKPOINT_EVERY: Final = 400

#: SQLite's primary result codes that mean "someone else holds the lock, try later".
_LOCKED_CODES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


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


def _checkpoint_now(conn: sqlite3.Connection) -> tuple[int, int, int]:
    busy, pages, checkpointed = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(pages), int(checkpointed)


class DirectAppends:
    """The direct appends to one engine's SQLite file (its journal writer holds the one
    object): each thread's direct connection, the appends since the last checkpoint, the
    checkpoint running, and the connection checkpoints run on; all closed when the engine
    is disposed."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._sync = engine.sync_engine
        #: Per thread: its direct connection (None: the database cannot have one).
        self._connections: dict[int, sqlite3.Connection | None] = {}
        #: Direct appends since the last checkpoint was asked for.
        self._appended = 0
        #: The checkpoint :meth:`appended` started, while it runs (a task must be referenced).
        self.checkpointing: asyncio.Task[None] | None = None
        #: The connection checkpoints run on (:meth:`checkpoint`), opened on first use.
        self._checkpointer: sqlite3.Connection | None = None
        event.listen(self._sync, "engine_disposed", self._disposed)

    def connection(self) -> sqlite3.Connection | None:
        """The calling thread's direct connection to the file, opened on first use; None when
        there is none to have (an in-memory database)."""
        thread = threading.get_ident()
        if thread not in self._connections:
            self._connections[thread] = _open(self._sync)
        return self._connections[thread]

    def appended(self) -> None:
        """Count a direct append; every :data:`CHECKPOINT_EVERY`, start a :meth:`checkpoint`
        in the background, unless one is still running."""
        self._appended += 1
        if self._appended < CHECKPOINT_EVERY:
            return
        self._appended = 0
        if self.checkpointing is not None:
            return

        async def run() -> None:
            try:
                await self.checkpoint()
            except Exception:  # the next one, or the engine's own, will do
                log.warning("checkpointing the SQLite log failed", exc_info=True)
            finally:
                self.checkpointing = None

        self.checkpointing = asyncio.get_running_loop().create_task(run())

    async def checkpoint(self) -> tuple[int, int, int]:
        """Checkpoint the write-ahead log without waiting for anyone (``PASSIVE``: the frames
        no reader still needs are copied into the database; writers go on meanwhile), on a
        connection of its own in a worker thread: neither the loop nor the engine's one
        pooled connection waits for it (a checkpoint copies and syncs pages, tens of
        milliseconds on a slow disk). The caller runs one at a time. SQLite's answer: (1 if
        it could not run at all, pages in the log, pages checkpointed)."""
        if self._checkpointer is None:
            self._checkpointer = _open(self._sync)
            if self._checkpointer is None:
                return 1, 0, 0
        return await asyncio.to_thread(_checkpoint_now, self._checkpointer)

    def close(self) -> None:
        """Close every connection (the engine is disposed); a later use opens new ones."""
        for conn in (*self._connections.values(), self._checkpointer):
            if conn is not None:
                conn.close()
        self._connections.clear()
        self._checkpointer = None

    def _disposed(self, _engine: Engine) -> None:
        self.close()
