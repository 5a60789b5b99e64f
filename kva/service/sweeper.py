"""The lobby's cleanup: open tables whose creator has left are cancelled.

An open table waits for as long as its creator waits for it (any socket of theirs counts, on
any process: :mod:`kva.service.attendance`); once the creator has been gone for the
disconnection grace period (``KVA_DISCONNECT_GRACE``), :class:`TableSweeper` cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

from kva.service.attendance import Attendance
from kva.service.lobby import Lobby
from kva.service.periodic import repeat
from kva.service.play import PlayService

log = logging.getLogger(__name__)


def _epoch(iso: str) -> float:
    at = datetime.fromisoformat(iso)
    if at.tzinfo is None:  # SQLite gives naive UTC
        at = at.replace(tzinfo=UTC)
    return at.timestamp()


class TableSweeper:
    """Cancels the open tables whose creator has been gone for ``grace`` seconds."""

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
        """One sweep now: the ids of the tables cancelled."""
        now = self._clock()
        old = [t for t in await self._lobby.tables() if now - _epoch(t.created_at) >= self.grace]
        if not old:
            return []
        absent = await self._attendance.absent_since({t.creator_id for t in old})
        cancelled = []
        for table in old:
            since = absent.get(table.creator_id)
            if since is None:
                continue  # the creator is connected somewhere
            if now - max(since, _epoch(table.created_at)) < self.grace:
                continue
            try:
                if await self._service.cancel_waiting(table.id, table.creator_id):
                    cancelled.append(table.id)
                    log.info("open table %s cancelled: its creator left", table.id)
            except Exception:
                log.exception("cancelling the abandoned table %s failed", table.id)
        return cancelled

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
