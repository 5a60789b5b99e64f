"""A quick pair whose match cannot start because a player cannot cover the stake is an
expected refusal: both searchers get ``insufficient`` (docs/coins.md) and the log says so at
INFO, without a traceback, in one process and across processes."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

import pytest

from kva.service.cluster.broker import RedisBroker
from kva.service.cluster.quickgame import RedisQuickGame
from kva.service.coins.wallets import CoinError
from kva.service.lobby.quickgame import MemoryQuickGame, QuickGameError
from tests.web.test_quick_game import FakePlay


class BrokePlay(FakePlay):
    """A play service whose second player cannot cover any stake."""

    async def create_match(self, *args: Any, **kwargs: Any) -> tuple[str, None]:
        raise CoinError("insufficient", "not enough coins", user_id=2)


def assert_logged_as_a_refusal(caplog: pytest.LogCaptureFixture) -> None:
    quick = [r for r in caplog.records  # either queue: in memory (lobby) or in Redis (cluster)
             if r.name in ("kva.service.lobby.quickgame", "kva.service.cluster.quickgame")]
    assert quick, "the refusal is logged"
    assert all(r.levelno == logging.INFO and r.exc_info is None for r in quick), [
        (r.levelname, r.getMessage()) for r in quick]


async def test_a_pair_that_cannot_cover_the_stake_is_an_info_refusal(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    quick = MemoryQuickGame(BrokePlay(), tick=3600)  # type: ignore[arg-type]
    a = await quick.join(1, "ana", 1500, 75, "draw", False, True, stake=10)
    b = await quick.join(2, "beka", 1500, 75, "draw", False, True, stake=10)
    for search in (a, b):
        with pytest.raises(QuickGameError) as err:
            await asyncio.wait_for(search.result, 5)
        assert err.value.code == "insufficient"
    assert_logged_as_a_refusal(caplog)
    await quick.stop()


async def test_a_shared_pair_that_cannot_cover_the_stake_is_an_info_refusal(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    broker = RedisBroker(redis_url)
    await broker.start()
    quick = RedisQuickGame(BrokePlay(), broker, redis_url,  # type: ignore[arg-type]
                           prefix=f"kva-test:{secrets.token_hex(4)}:")
    try:
        a = await quick.join(1, "ana", 1500, 75, "draw", False, True, stake=10)
        b = await quick.join(2, "beka", 1500, 75, "draw", False, True, stake=10)
        for search in (a, b):
            with pytest.raises(QuickGameError) as err:
                await asyncio.wait_for(search.result, 5)
            assert err.value.code == "insufficient"
        assert_logged_as_a_refusal(caplog)
    finally:
        await quick.stop()
        await broker.stop()
