"""Process tuning for a serving process: garbage collection off the latency tail.

A game server allocates many short-lived objects per action (views, JSON, SQL rows) and holds
a large, stable heap (modules, the app, the rules tables, the matches in memory). With the
default thresholds (700, 10, 10) the full collections walk that whole heap every few seconds:
pauses of 116-146 ms every 9-13 s at 125 live matches (issue 14). After start-up,
:func:`tune_gc` moves everything alive into the permanent generation (``gc.freeze``, never
scanned again) and raises the thresholds, so the older generations are collected rarely.
Reference cycles are still collected, only less often. Once per process: a second app started
in the same process (tests) leaves it as the first set it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator

log = logging.getLogger(__name__)

#: (generation 0 allocations, gen-0 runs per gen-1 run, gen-1 runs per full run). A young
#: collection's pause grows with the cyclic garbage it frees (HTTP requests through the
#: middleware leave task groups, cancel scopes and tracebacks behind): with 50,000, single
#: young collections took 40-76 ms at 300-400 live matches; with 5,000 (and 200 young runs
#: per gen-1 run, so gen-1 and full collections stay as rare: every 1M and 100M allocations)
#: they took 12-37 ms, at the same CPU (docs/performance.md, "Third session").
THRESHOLDS: tuple[int, int, int] = (5_000, 200, 100)
_tuned: list[bool] = []
#: Seconds between two full collections (see :func:`collecting_old_garbage`; the setting
#: ``KVA_GC_FULL_EVERY`` of :class:`kva.web.settings.Settings` passes another).
FULL_COLLECTION_EVERY = 600.0


def tune_gc(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect once, freeze what start-up left alive, and raise the thresholds (the first
    call in a process; later ones do nothing)."""
    if _tuned:
        return
    _tuned.append(True)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


@contextlib.asynccontextmanager
async def collecting_old_garbage(every: float = FULL_COLLECTION_EVERY) -> AsyncIterator[None]:
    """While the app runs, a full collection every ``every`` seconds.

    Generations are triggered by the net growth of tracked objects, and a server's net growth
    is small: with :data:`THRESHOLDS` a full collection would come after 100 million of it,
    in practice never, so the reference cycles that outlived a young collection piled up in the
    old generation: RSS climbed ~14 MiB every 30 s at 100 live matches, round after round of
    the same load. Most of it was closed WebSockets (each held its deflate contexts in a cycle
    until a full collection), which are now freed when they close
    (:mod:`kva.web.wsprotocol`); what is left is at most ~1,300 objects a minute (requests'
    tracebacks, SQLAlchemy statements). The frozen start-up heap is not walked, but every live
    match is: at 500 live matches a full collection stops the process for 200-280 ms, so it
    runs rarely (every 10 minutes by default): then one pause delays well under 1 % of the
    actions between two (300 s at 400 matches with one inside: p99 33 ms; docs/performance.md,
    "Fifth session")."""

    async def collect() -> None:
        while True:
            await asyncio.sleep(every)
            started = time.perf_counter()
            freed = gc.collect()
            log.debug("full collection: %d objects freed in %.1f ms", freed,
                      1000 * (time.perf_counter() - started))

    task = asyncio.create_task(collect(), name="kva-full-collections")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
