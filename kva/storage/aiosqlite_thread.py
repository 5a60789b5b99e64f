"""The one adapter that reaches into aiosqlite: a function run on an aiosqlite connection's
own thread, with its sqlite3 connection, as one trip.

aiosqlite has no public way to run several sqlite3 calls (an INSERT and its COMMIT) as one
call on its thread; its ``_execute`` (queue a callable on the connection's thread and await
its answer) and ``_conn`` (the sqlite3 connection) are private. Only this module names them,
so an aiosqlite release that changes them breaks here alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_on_thread(driver: Any, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(conn)`` on ``driver``'s thread (``driver``: an aiosqlite connection, ``conn``:
    its sqlite3 connection), queued behind what was sent there before; its answer. Once
    queued it runs to its end even if the awaiting task is cancelled."""

    def with_connection() -> T:
        return work(driver._conn)

    answer: T = await driver._execute(with_connection)
    return answer
