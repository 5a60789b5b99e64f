"""Process tuning for a serving process: garbage collection off the latency tail.

A game server allocates many short-lived objects per action (views, JSON, SQL rows) and holds
a large, stable heap (modules, the app, the rules tables, the matches in memory). With the
default thresholds (700, 10, 10) the full collections walk that whole heap every few seconds:
pauses of 116-146 ms every 9-13 s at 125 live matches. After start-up,
:func:`tune_gc` moves everything alive into the permanent generation (``gc.freeze``, never
scanned again) and sets the thresholds: young collections often (short pauses), the older
generations only in a full collection every few minutes (:func:`collecting_old_garbage`).
Once per process: a second app started in the same process (tests) leaves it as the first set
it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator

log = logging.getLogger(__name__)

#: (generation 0 allocations, gen-0 runs per gen-1 run, gen-1 runs per full run). What a young
#: collection walks is mostly alive: the await chains of the sockets that moved since the last
#: one (coroutines, futures, frame parsers; every message makes its socket's anew) and the moves
#: just played, so its pause grows with the allocations between two of them. Measured in CPU
#: time per collection at 300 live matches (``kva bench server``): with 5,000,
#: a median of 14 ms and a p90 of 32 ms; with 1,000, 2.6 ms and 5.7 ms (max 10 ms), for ~1 % of
#: a core either way. The older generations are left to the full collection every
#: :data:`FULL_COLLECTION_EVERY` seconds: a gen-1 run walks every socket's chain promoted since
#: the last one (13,000 objects at 300 matches, 22 ms every 2.5 s with 10 gen-0 runs per gen-1
#: run; 45-116 ms with 20 at 2,000), and the cyclic garbage that outlives a young collection is
#: small now (kva.web.wsprotocol frees the connections' cycles), so a million runs each puts
#: them off for days.
THRESHOLDS: tuple[int, int, int] = (1_000, 1_000_000, 1_000_000)
_tuned: list[bool] = []
#: Seconds between two full collections (see :func:`collecting_old_garbage`; the setting
#: ``KVA_GC_FULL_EVERY`` of :class:`kva.config.Settings` passes another).
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

    With :data:`THRESHOLDS` the older generations are never collected on their own, so the
    reference cycles that outlive a young collection would pile up in them. Closed WebSockets
    are freed when they close (:mod:`kva.web.wsprotocol`), so what is left is at most ~1,300
    objects a minute (requests' tracebacks, SQLAlchemy statements). The frozen start-up heap is
    not walked, but every live match is: at 500 live matches a full collection stops the
    process for 200-280 ms, so it runs rarely (every 10 minutes by default): then one pause
    delays well under 1 % of the actions between two (300 s at 400 matches with one inside:
    p99 33 ms)."""

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
