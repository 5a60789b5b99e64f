"""Wall time of ``hard`` decisions through the server's own worker pool, two at once.

    .venv/bin/python -m tools.bench.bot_pool [--decisions 200] [--level hard]

Positions with a real choice come from seeded matches (greedy and random play mixed); they are
sent in pairs through :func:`kva.service.play.bot_moves.choose` on
:func:`kva.service.play.bot_moves.make_executor`
(two spawned workers, as the server runs them), so two matches think at the same time, and the
wall time of each decision, from submission to answer, is reported as p50 / p95 / max.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from kva.bots.simple import view_greedy
from kva.rules import TARGETS, Match, PlayerView, player_view
from kva.service.play.bot_moves import choose, make_executor


def views(count: int, seed: int = 2) -> list[PlayerView]:
    rng = random.Random(seed)
    out: list[PlayerView] = []
    while len(out) < count:
        match = Match(rng.choice(TARGETS), "draw", random.Random(rng.getrandbits(32)))
        while not match.over and len(out) < count:
            seat = match.turn
            assert seat is not None
            view = player_view(match, seat)
            if len(view.legal) > 1:
                out.append(view)
            code = view_greedy(view) if rng.random() < 0.7 else rng.choice(view.legal)
            match.apply(code, player=seat)
    return out


async def main(decisions: int, level: str) -> None:
    pool = make_executor(2)
    times: list[float] = []

    async def one(view: PlayerView, seed: int) -> None:
        start = time.perf_counter()
        await choose(level, view, seed, executor=pool)
        times.append((time.perf_counter() - start) * 1000.0)

    try:
        batch = views(decisions)
        await one(batch[0], 0)  # warm the workers (imports, tables) before timing
        times.clear()
        for i in range(0, len(batch), 2):
            await asyncio.gather(*(one(v, i + k) for k, v in enumerate(batch[i : i + 2])))
    finally:
        pool.shutdown()
    times.sort()
    p50 = times[len(times) // 2]
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"{level}: {len(times)} decisions, two at a time through the server pool: "
          f"wall p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--level", default="hard")
    args = parser.parse_args()
    asyncio.run(main(args.decisions, args.level))
