"""The analysis queue: one job per match, stored once done and served from the database, a
broken record does not stop the queue, and the worker process yields the CPU to live bots."""

from __future__ import annotations

import os
import random
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kva.analysis.match import analyse
from kva.bots import make_bot
from kva.rules import Match, player_view, write_record
from kva.service.analysis import NICE, AnalysisService, make_analysis_executor

PLAYOUTS = 200


def _record(seed: int) -> dict[str, Any]:
    match = Match(target=75, rng=random.Random(seed))
    bots = [make_bot("easy"), make_bot("greedy")]
    rng = random.Random(seed)
    while not match.over:
        p = match.turn
        assert p is not None
        match.apply(bots[p].choose(player_view(match, p), rng), player=p)
    return write_record(match)


async def test_queue_stores_once_and_survives_a_broken_record(sessions: Any) -> None:
    executor = ThreadPoolExecutor(1)
    service = AnalysisService(sessions, executor, playouts=PLAYOUTS)
    good, broken = f"an{secrets.token_hex(6)}", f"an{secrets.token_hex(6)}"
    doc = _record(8)
    try:
        assert service.status(good) == {"status": "none"}
        service.request(broken, {"format": "nonsense"})
        first = service.request(good, doc)
        again = service.request(good, doc)
        assert first["status"] == again["status"] == "queued" and again["ahead"] == 1
        await service.wait(broken)
        assert service.status(broken)["status"] == "failed"
        await service.wait(good)
        stored = await service.stored(good)
        assert stored == analyse(doc, playouts=PLAYOUTS)
        assert service.status(good) == {"status": "none"}  # served from the database now
        assert await service.stored(broken) is None
    finally:
        await service.stop()
        executor.shutdown()


def test_the_analysis_worker_runs_below_the_live_bots_priority() -> None:
    base = os.nice(0)
    executor = make_analysis_executor()
    try:
        assert executor.submit(os.nice, 0).result(timeout=60) == min(19, base + NICE)
    finally:
        executor.shutdown()
