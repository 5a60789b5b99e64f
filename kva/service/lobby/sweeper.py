"""The lobby's cleanup: open tables whose creator has left are cancelled, and the seats of
joiners who left are freed.

An open table waits for as long as its creator waits for it (any socket of theirs counts, on
any process: :mod:`kva.service.lobby.attendance`); once the creator has been gone for the
disconnection grace period (``KVA_DISCONNECT_GRACE``), :class:`TableSweeper` cancels it. A
joiner of a table of more than two seats (Kozel) who has been gone as long loses the seat
before the start, so that the table can fill with players who are there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from kva.service.lobby.attendance import Attendance
from kva.service.lobby.open_tables import Lobby, OpenTable
from kva.service.periodic import repeat
from kva.service.play import PlayService

log = logging.getLogger(__name__)


def _epoch(iso: str) -> float:
    at = datetime.fromisoformat(iso)
    if at.tzinfo is None:  # SQLite gives naive UTC
        at = at.replace(tzinfo=UTC)
    return at.timestamp()


def _joiners(table: OpenTable) -> set[int]:
    """The players who joined ``table`` (every seated user but its creator)."""
    return {s["user_id"] for s in table.seats
            if s.get("user_id") is not None and s["user_id"] != table.creator_id}


class TableSweeper:
    """Cancels the open tables whose creator has been gone for ``grace`` seconds, and frees
    the seats of their joiners gone as long."""

    def __init__(self, lobby: Lobby, service: PlayService, attendance: Attendance, *,
                 grace: float, clock: Callable[[], float] = time.time,
                 every: float | None = None) -> None:
        self._lobby = lobby
        self._service = service
        self._attendance = attendance
        self.grace = grace
        self._clock = clock
        self.every = every if every is not None else min(15.0, max(0.25, grace / 4))
        self._task: asyncio.Task[None] | None = None
        attendance.remember_departures_for(grace)

    async def sweep(self) -> list[str]:
        """One sweep now: the ids of the tables cancelled (seats freed are only logged)."""
        now = self._clock()
        old = [t for t in await self._lobby.tables() if now - _epoch(t.created_at) >= self.grace]
        if not old:
            return []
        joiners = {t.id: _joiners(t) for t in old}
        absent = await self._attendance.absent_since(
            {t.creator_id for t in old}.union(*joiners.values()))

        def gone(user_id: int, created_at: str) -> bool:
            since = absent.get(user_id)
            return since is not None and now - max(since, _epoch(created_at)) >= self.grace

        cancelled = []
        for table in old:
            if not gone(table.creator_id, table.created_at):
                for user_id in joiners[table.id]:
                    if gone(user_id, table.created_at):
                        await self._free(table.id, user_id)
                continue
            try:
                if await self._service.cancel_waiting(table.id, table.creator_id):
                    cancelled.append(table.id)
                    log.info("open table %s cancelled: its creator left", table.id)
            except Exception:
                log.exception("cancelling the abandoned table %s failed", table.id)
        return cancelled

    async def _free(self, match_id: str, user_id: int) -> None:
        """Free the seat a joiner who left holds at ``match_id`` (errors are logged)."""
        try:
            if await self._service.leave_seat(match_id, user_id):
                log.info("a seat of open table %s freed: its player left", match_id)
        except Exception:
            log.exception("freeing a seat of the table %s failed", match_id)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="kva-table-sweeper")

    async def _run(self) -> None:
        await repeat(self.every, self._sweep_if_first, log, "sweeping abandoned tables failed")

    async def _sweep_if_first(self) -> None:
        """One sweep, unless another process holds the sweep's lock now."""
        if await self._attendance.lock(int(self.every * 1000 * 0.8)):
            await self.sweep()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
