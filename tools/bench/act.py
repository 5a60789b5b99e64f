"""Micro-benchmark of the cost of an action: ``PlayService.act`` throughput, one process.

``--matches`` matches between two guests play random legal actions as fast as the service takes
them (a match that ends is replaced by a new one), for ``--duration`` seconds, on a fresh SQLite
file (or ``--db URL``: a PostgreSQL database, whose tables it creates and leaves). Each seat has
``--sockets`` simulated sockets that relay the states the service publishes the way
``kva/web/ws.py`` does (pick the viewer's state, encode it to JSON text), so publishing and
per-socket encoding are part of the cost; ``--spectators`` adds that many spectator sockets per
match. Prints actions per second and the latency percentiles of one ``act`` call.

    nice -n 5 .venv/bin/python -m tools.bench.act --matches 25 --duration 15
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from kva.rules import action_to_json
from kva.service.cluster.broker import MemoryBroker, Subscription
from kva.service.errors import PlayError
from kva.service.play import PlayService, topic, viewer_key
from kva.storage import repo
from kva.storage.db import Database
from kva.storage.migrate import upgrade


class _Viewer:
    """A simulated socket, as the service's watchers see it."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat


async def _socket(sub: Subscription, seat: int | None, sink: list[int]) -> None:
    """One viewer's relay: what ws.py does per socket with a published message."""
    key = viewer_key(seat)
    async for message in sub:
        states = message.get("states")
        state = states.get(key) if isinstance(states, dict) else None
        if state is None:
            continue
        text = state if isinstance(state, str) else json.dumps(
            state, ensure_ascii=False, separators=(",", ":"))
        sink[0] += len(text)


async def _play(service: PlayService, sessions: Any, broker: MemoryBroker, args: Any,
                deadline: float, lat: list[float], count: list[int], rng: random.Random,
                sink: list[int]) -> None:
    while time.perf_counter() < deadline:
        a = await repo.create_guest(sessions)
        b = await repo.create_guest(sessions)
        match_id, _ = await service.create_match(a.id, a.nickname, "player", 175, "draw",
                                                 opponent_user=(b.id, b.nickname))
        subs: list[Subscription] = []
        relays: list[asyncio.Task[None]] = []
        viewers = [0] * args.sockets + [1] * args.sockets + [None] * args.spectators
        watchers = getattr(service, "watchers", None)
        sockets = [_Viewer(seat) for seat in viewers]
        for viewer in sockets:
            sub = await broker.subscribe(topic(match_id))
            subs.append(sub)
            relays.append(asyncio.create_task(_socket(sub, viewer.seat, sink)))
            if watchers is not None and not args.all_views:
                watchers.add(match_id, viewer)
        ids = (a.id, b.id)
        for _ in range(200):  # dealt once both kva-fair/1 client seeds are in
            live = service._live.get(match_id)
            if live is None or live.match is not None:
                break
            await asyncio.sleep(0.005)
        try:
            while time.perf_counter() < deadline:
                live = service._live.get(match_id)
                if live is None or live.match is None or live.match.over:
                    break
                seat = live.match.turn
                assert seat is not None
                code = rng.choice(live.match.legal_codes())
                t0 = time.perf_counter()
                try:
                    await service.act(match_id, ids[seat], live.version, action_to_json(code))
                except PlayError as exc:
                    if exc.code != "stale":
                        raise
                    continue
                lat.append(time.perf_counter() - t0)
                count[0] += 1
                await asyncio.sleep(0)  # let the relays run, as the event loop would
        finally:
            for task in relays:
                task.cancel()
            for sub in subs:
                await sub.close()
            for viewer in sockets:
                if watchers is not None and not args.all_views:
                    watchers.discard(match_id, viewer)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=25)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--sockets", type=int, default=1, help="sockets per seat")
    parser.add_argument("--spectators", type=int, default=0, help="spectator sockets per match")
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tune-gc", action="store_true",
                        help="kva.web.runtime.tune_gc after start-up, as kva serve does")
    parser.add_argument("--all-views", action="store_true",
                        help="build every viewer's state, watched or not (what that costs)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        database = Database(url)
        engine = database.engine
        await upgrade(engine)
        sessions = database.sessions
        broker = MemoryBroker()
        service = PlayService(database, broker, forced_delay=3600, bot_delay=3600,
                              rng_factory=random.Random)
        if args.all_views and getattr(service, "watchers", None) is not None:
            service._committer.watchers = None
        await service.start()
        if args.tune_gc:
            from kva.web.runtime import tune_gc

            tune_gc()
        pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        started: list[float] = [0.0]

        def _gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                pauses[info["generation"]].append(time.perf_counter() - started[0])

        gc.callbacks.append(_gc)
        lat: list[float] = []
        count = [0]
        sink = [0]
        rng = random.Random(args.seed)
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        deadline = t0 + args.duration
        await asyncio.gather(*(
            _play(service, sessions, broker, args, deadline, lat, count, rng, sink)
            for _ in range(args.matches)))
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        gc.callbacks.remove(_gc)
        await service.stop()
        with contextlib.suppress(Exception):
            await engine.dispose()
    lat.sort()
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [0.0] * 99
    print(f"{count[0] / elapsed:,.0f} actions/s ({count[0]} in {elapsed:.1f} s, "
          f"{args.matches} matches); act p50 {q[49] * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms, "
          f"max {lat[-1] * 1000:.1f} ms; CPU {cpu * 1000 / max(count[0], 1):.4f} ms per action")
    print("gc pauses: " + "; ".join(
        f"gen{g} {len(p)} runs, max {max(p, default=0) * 1000:.1f} ms, "
        f"total {sum(p) * 1000:.0f} ms" for g, p in pauses.items()))


if __name__ == "__main__":
    asyncio.run(main())
