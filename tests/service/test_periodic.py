"""A background job repeats until its task is cancelled, whatever its failures."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from kva.service.periodic import repeat

log = logging.getLogger(__name__)


async def test_a_failing_run_is_logged_and_the_next_one_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    runs: list[int] = []

    async def job() -> None:
        runs.append(1)
        raise RuntimeError("down")

    task = asyncio.create_task(repeat(0.01, job, log, "the job failed"))
    while len(runs) < 3:
        await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert caplog.text.count("the job failed") >= 2


async def test_a_cancellation_turned_into_another_error_still_ends_the_loop() -> None:
    """A client library that answers a cancellation mid-call with its own error (a connection
    error) must not make the loop log it and go on for ever."""
    started = asyncio.Event()

    async def job() -> None:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise ConnectionError("the connection was closed while reading") from None

    task = asyncio.create_task(repeat(0.0, job, log, "the job failed"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=2)
