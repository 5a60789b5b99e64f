"""Default caps the configuration may change: request bodies, queues, pending challenges and
the database pool."""

from __future__ import annotations

from dataclasses import dataclass

#: The default cap on a request body (``KVA_MAX_BODY_BYTES``; kva.web.bodylimit): every form
#: and JSON body of the site fits in a few KiB.
DEFAULT_MAX_BODY = 64 * 1024
#: The default time (seconds) a whole request body may take to arrive (``KVA_BODY_TIMEOUT``):
#: a form or JSON body of a few KiB takes well under a second even on a slow phone connection.
DEFAULT_BODY_TIMEOUT = 20.0

#: Matches waiting or being analysed at once, by default (``KVA_ANALYSIS_QUEUE``).
DEFAULT_ANALYSIS_QUEUE = 20

#: Pending challenges one player (a bot, usually) may be sent at once, by default
#: (``KVA_CHALLENGES_PER_TARGET``): many visitors must not bury a bot under challenges.
DEFAULT_MAX_PENDING_TO_TARGET = 20

#: PostgreSQL connections one process keeps in its pool (``KVA_DB_POOL_SIZE``): open all the
#: time (no overflow connections opened and closed under load), none pinged at checkout (a
#: connection the server dropped fails one transaction and is replaced), recycled after half an
#: hour. The journal's appends have up to four more of their own (kva.storage.pg_direct), so a
#: process holds at most 20 connections to the server, as it did when the pool had 20.
PG_POOL_SIZE = 16


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What the configuration changes about a database engine (:meth:`kva.config.Settings.
    engine_options`, :func:`kva.storage.db.create_engine`); the defaults are production's."""

    #: PostgreSQL's pool size (``KVA_DB_POOL_SIZE``).
    pool_size: int = PG_POOL_SIZE
    #: Journal appends on the loop's own SQLite connection (``KVA_SQLITE_DIRECT_APPEND``).
    sqlite_direct_append: bool = True
    #: Journal appends on asyncpg connections of their own (``KVA_PG_DIRECT_APPEND``).
    pg_direct_append: bool = True
