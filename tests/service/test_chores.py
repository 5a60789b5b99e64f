"""Background updates (kva.service.cluster.chores): a clean stop waits for every one still
running, and one that fails is logged, not lost, without stopping the others."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kva.service.cluster.chores import Chores


async def test_finish_waits_for_every_update_still_running() -> None:
    done: list[int] = []

    async def update(n: int) -> None:
        await asyncio.sleep(0.01 * n)
        done.append(n)

    chores = Chores("test update")
    for n in (3, 1, 2):
        chores.start(update(n))
    assert done == []
    await chores.finish()
    assert sorted(done) == [1, 2, 3]


async def test_a_failed_update_is_logged_and_the_others_still_run(
        caplog: pytest.LogCaptureFixture) -> None:
    done: list[str] = []

    async def fails() -> None:
        raise RuntimeError("redis went away")

    async def works() -> None:
        await asyncio.sleep(0)
        done.append("ok")

    chores = Chores("test update")
    with caplog.at_level(logging.ERROR, logger="kva.service.cluster.chores"):
        chores.start(fails())
        chores.start(works())
        await chores.finish()
        await asyncio.sleep(0)  # the failed task's done callback has run
    assert done == ["ok"]
    failures = [r for r in caplog.records if r.getMessage() == "test update failed"]
    assert len(failures) == 1 and failures[0].exc_info is not None


async def test_finish_with_nothing_running_returns_at_once() -> None:
    await asyncio.wait_for(Chores("test update").finish(), timeout=1)
