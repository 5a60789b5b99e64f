"""The effects of a match starting and finishing are hooks of the play service: the ones it is
given run in the transaction that stores the change, in order, their fields reach the
``state`` event, and one that fails rolls the change back; the play core names no feature."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

import kva.service.play.commit
from kva.service.cluster.broker import MemoryBroker
from kva.service.finish import CoinsHook, RatingsHook, default_finish_hooks
from kva.service.play import PlayService, topic
from kva.service.play.hooks import MatchHook
from kva.storage.community import RatingHistory
from kva.storage.models import MatchRow
from tests.helpers.community_help import make_user
from tests.helpers.play import make_play


class _Recorder(MatchHook):
    """Notes every call, with whether the match's row is already written in its session."""

    def __init__(self, name: str, calls: list[tuple[str, str, str]],
                 fail: str | None = None) -> None:
        self.name, self.calls, self.fail = name, calls, fail

    async def _note(self, session: AsyncSession, what: str, match_id: str) -> None:
        row = await session.get(MatchRow, match_id, populate_existing=True)
        assert row is not None
        self.calls.append((self.name, what, row.status))
        if self.fail == what:
            raise RuntimeError(f"{self.name} refuses")

    async def started(self, session: AsyncSession, match_id: str) -> None:
        await self._note(session, "started", match_id)

    async def finished(self, session: AsyncSession, match_id: str) -> dict[str, Any] | None:
        await self._note(session, "finished", match_id)
        return {self.name: True}


class _Watcher:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat


async def _rated_table(sessions, play: PlayService) -> tuple[str, str, Any, Any]:  # type: ignore[no-untyped-def]
    a, b = await make_user(sessions), await make_user(sessions)
    match_id, token = await play.create_match(a.id, a.nickname, "open", 75, "draw", rated=True)
    assert token is not None
    return match_id, token, a, b


async def _row(sessions, match_id: str) -> MatchRow:  # type: ignore[no-untyped-def]
    async with sessions() as session:
        row = await session.get(MatchRow, match_id)
    assert row is not None
    return row


def test_the_default_hooks_are_ratings_then_coins() -> None:
    assert [type(h) for h in default_finish_hooks()] == [RatingsHook, CoinsHook]


def test_the_commit_path_imports_no_feature() -> None:
    tree = ast.parse(Path(kva.service.play.commit.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {f"{node.module}.{alias.name}" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert not [name for name in imported if "coins" in name or "ratings" in name]


async def test_given_hooks_run_in_order_in_the_transaction_and_fill_the_event(
        database, sessions, bot_pool) -> None:
    calls: list[tuple[str, str, str]] = []
    broker = MemoryBroker()
    play = make_play(database, broker, bot_executor=bot_pool,
                     finish_hooks=[_Recorder("one", calls), _Recorder("two", calls)])
    try:
        match_id, token, a, b = await _rated_table(sessions, play)
        await play.join_table(token, b.id, b.nickname, None, registered=True)
        assert calls == [("one", "started", "active"), ("two", "started", "active")]
        sub = await broker.subscribe(topic(match_id))
        play.watchers.add(match_id, _Watcher(0))
        await play.resign(match_id, b.id)
        assert calls[2:] == [("one", "finished", "finished"), ("two", "finished", "finished")]
        published = []
        while not sub._queue.empty():
            published.append(sub._queue.get_nowait())
        event = json.loads(published[-1]["states"]["0"])["event"]
        assert (event["one"], event["two"]) == (True, True) and "ratings" not in event
        await sub.close()
    finally:
        await play.stop()
    async with sessions() as session:  # the ratings hook was not given: nothing rated
        assert not await session.scalar(select(func.count()).select_from(RatingHistory)
                                        .where(RatingHistory.match_id == match_id))


async def test_a_failing_start_hook_leaves_the_table_waiting(database, sessions, bot_pool) -> None:
    calls: list[tuple[str, str, str]] = []
    play = make_play(database, bot_executor=bot_pool,
                     finish_hooks=[_Recorder("no", calls, "started")])
    try:
        match_id, token, _a, b = await _rated_table(sessions, play)
        with pytest.raises(RuntimeError):
            await play.join_table(token, b.id, b.nickname, None, registered=True)
    finally:
        await play.stop()
    row = await _row(sessions, match_id)
    assert (row.status, row.user_at(1)) == ("waiting", None)


async def test_a_failing_finish_hook_leaves_the_match_unfinished(
        database, sessions, bot_pool) -> None:
    calls: list[tuple[str, str, str]] = []
    play = make_play(database, bot_executor=bot_pool,
                     finish_hooks=[RatingsHook(), _Recorder("no", calls, "finished")])
    try:
        match_id, token, _a, b = await _rated_table(sessions, play)
        await play.join_table(token, b.id, b.nickname, None, registered=True)
        version = (await _row(sessions, match_id)).version
        with pytest.raises(RuntimeError):
            await play.resign(match_id, b.id)
    finally:
        await play.stop()
    row = await _row(sessions, match_id)
    assert (row.status, row.winner, row.version) == ("active", None, version)
    async with sessions() as session:  # the rating made before the failure rolled back too
        assert not await session.scalar(select(func.count()).select_from(RatingHistory)
                                        .where(RatingHistory.match_id == match_id))
