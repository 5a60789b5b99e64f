"""A bot's turn is never dropped: an action with a version ahead of the match is refused as
``stale`` and leaves the copy in memory (and the bot thinking on it) alone, and whenever the
copy is read again from the database, the bot or forced turn that is due is scheduled on it.
The bot here thinks behind a gate the test opens, so the test acts while it thinks."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.errors import PlayError
from kva.service.play import PlayService
from kva.storage.db import Database
from kva.storage.models import User
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play


class GatedPool(ThreadPoolExecutor):
    """A bot's thread whose every decision waits until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.gate = threading.Event()
        self.thinking = threading.Event()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        def gated() -> Any:
            self.thinking.set()
            self.gate.wait(30)
            return fn(*args, **kwargs)

        return super().submit(gated)


@pytest.fixture
def pool() -> Iterator[GatedPool]:
    gated = GatedPool()
    try:
        yield gated
    finally:
        gated.gate.set()
        gated.shutdown(wait=True)


@pytest.fixture
async def play(database: Database, sessions: async_sessionmaker,
               pool: GatedPool) -> AsyncIterator[PlayService]:
    service = make_play(database, bot_executor=pool)
    try:
        yield service
    finally:
        await service.stop()


async def _bot_thinking(sessions: async_sessionmaker, play: PlayService,
                        pool: GatedPool) -> tuple[str, User, int]:
    """A match against a bot, played by the person until the bot thinks: its id, the person,
    and the version the bot thinks at."""
    user = await make_user(sessions)
    match_id, _token = await play.create_match(user.id, user.nickname, "bot:easy", 75, "draw")
    for _ in range(1000):
        state = await play.state_for(match_id, user.id)
        if pool.thinking.is_set():
            return match_id, user, play._live[match_id].version
        view = state["view"]
        if view["turn"] == state["you"] and view["legal"]:
            await play.act(match_id, user.id, state["version"], view["legal"][0])
        await asyncio.sleep(0.01)
    raise AssertionError("the bot never had a turn")


async def _bot_moved(play: PlayService, match_id: str, user: User, version: int) -> bool:
    for _ in range(500):
        if (await play.state_for(match_id, user.id))["version"] > version:
            return True
        await asyncio.sleep(0.01)
    return False


async def test_a_future_version_is_refused_as_stale_and_the_bot_still_moves(
        sessions, play, pool) -> None:  # type: ignore[no-untyped-def]
    match_id, user, version = await _bot_thinking(sessions, play, pool)
    live = play._live[match_id]
    with pytest.raises(PlayError) as refused:
        await play.act(match_id, user.id, version + 1_000_000, {"kind": "draw"})
    assert refused.value.code == "stale"
    assert play._live[match_id] is live  # the copy the bot thinks on is kept
    pool.gate.set()
    assert await _bot_moved(play, match_id, user, version)


async def test_a_copy_read_again_gets_the_bots_turn_scheduled_on_it(
        sessions, play, pool) -> None:  # type: ignore[no-untyped-def]
    match_id, user, version = await _bot_thinking(sessions, play, pool)
    play._store.forget(match_id)  # e.g. a write refused: the next access reads it again
    await play.state_for(match_id, user.id)
    pool.gate.set()
    assert await _bot_moved(play, match_id, user, version)
