"""Background Redis updates a process starts and does not wait for (a departure written, a
search taken out): each is kept until it ends, so that the event loop cannot drop it half
done; a failure is logged, not lost; a clean stop waits for them all."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Chores:
    """The unfinished background updates of one component, named ``what`` in its log."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._running: set[asyncio.Future[Any]] = set()

    def start(self, update: Coroutine[Any, Any, Any]) -> None:
        """Run ``update`` in the background."""
        task = asyncio.ensure_future(update)
        self._running.add(task)
        task.add_done_callback(self._done)

    async def finish(self) -> None:
        """Wait for every update still running (their failures already logged)."""
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s failed", self._what, exc_info=task.exception())
