"""Waiting for a message that matches, on any client that collects what it receives."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


async def first_matching(
    messages: list[dict[str, Any]],
    predicate: Callable[[dict[str, Any]], bool],
    arrived: asyncio.Event,
    ended: Callable[[], bool],
    timeout: float,
    last: Callable[[], str],
) -> dict[str, Any]:
    """The first of ``messages`` (a list the client appends to, setting ``arrived`` each time)
    that matches, waiting up to ``timeout`` seconds; AssertionError, with the ``last`` messages,
    once the client has ``ended`` or the time is up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen = 0
    while True:
        for m in messages[seen:]:
            if predicate(m):
                return m
        seen = len(messages)
        if ended():
            raise AssertionError(f"closed while waiting; last: {last()}")
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"timed out waiting; last: {last()}")
        arrived.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arrived.wait(), remaining)
