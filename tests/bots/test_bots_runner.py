"""Bots run off the event loop: the async runner returns the same legal choice as a direct call."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from kva.bots import make_bot
from kva.bots.runner import choose_in_executor, decide, shutdown
from tests.bots.botshelp import positions


def _choice_views(count: int) -> list:  # type: ignore[type-arg]
    return [v for _m, v in positions(seed=51, choices=count) if len(v.legal) > 1][:count]


async def test_choose_in_executor_matches_a_direct_call_in_a_thread_pool() -> None:
    views = _choice_views(20)
    with ThreadPoolExecutor(2) as pool:
        for i, view in enumerate(views):
            code = await choose_in_executor("normal", view, seed=i, executor=pool)
            assert code == make_bot("normal").choose(view, random.Random(i))


async def test_choose_in_executor_uses_worker_processes_by_default() -> None:
    views = _choice_views(4)
    try:
        codes = await asyncio.gather(*(choose_in_executor("hard", v, seed=7) for v in views))
    finally:
        shutdown()
    for view, code in zip(views, codes, strict=True):
        assert code in view.legal
        assert code == decide("hard", view, 7)


async def test_unknown_bots_and_views_without_a_turn_are_refused() -> None:
    view = _choice_views(1)[0]
    with pytest.raises(ValueError):
        await choose_in_executor("seer", view, seed=1)
    with pytest.raises(ValueError):
        await choose_in_executor("nobody", view, seed=1)
