"""A background job run every few seconds until its task is cancelled."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable


async def repeat(every: float, job: Callable[[], Awaitable[object]], log: logging.Logger,
                 failure: str) -> None:
    """Run ``job`` every ``every`` seconds until this task is cancelled. A failing run is logged
    (``failure``) and the next one goes on; a cancellation always ends the loop, even one that a
    client library turned into another exception while ``job`` waited on it (the task is then
    still being cancelled), which would otherwise be logged as a failure and never stop."""
    while True:
        await asyncio.sleep(every)
        try:
            await job()
        except Exception:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise asyncio.CancelledError from None
            log.exception(failure)
