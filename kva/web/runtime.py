"""Process tuning for a serving process: garbage collection off the latency tail.

A game server allocates many short-lived objects per action (views, JSON, SQL rows) and holds
a large, stable heap (modules, the app, the rules tables, the matches in memory). With the
default thresholds (700, 10, 10) the full collections walk that whole heap every few seconds:
pauses of 116-146 ms every 9-13 s at 125 live matches (issue 14). After start-up,
:func:`tune_gc` moves everything alive into the permanent generation (``gc.freeze``, never
scanned again) and raises the thresholds, so young collections run less often and full ones
rarely. Reference cycles are still collected, only less often. Once per process: a second
app started in the same process (tests) leaves it as the first set it.
"""

from __future__ import annotations

import gc

#: (generation 0 allocations, gen-0 runs per gen-1 run, gen-1 runs per full run).
THRESHOLDS: tuple[int, int, int] = (50_000, 20, 100)
_tuned: list[bool] = []


def tune_gc(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect once, freeze what start-up left alive, and raise the thresholds (the first
    call in a process; later ones do nothing)."""
    if _tuned:
        return
    _tuned.append(True)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
