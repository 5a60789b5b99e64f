"""Do analyses slow live bot turns? ``hard`` decisions in the server's bot pool (two spawned
workers at normal priority), timed from submission to answer, first with the analysis worker
idle, then with it kept busy by a queue of analysis decisions (its own niced worker process,
kva.service.analysis). Prints p50/p95/max in ms for both.

    .venv/bin/python -m tools.bench.analysis_priority [--decisions 40]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from kva.analysis.match import decisions
from kva.bots import make_bot
from kva.bots.runner import decide
from kva.rules import Match, PlayerView, player_view, write_record
from kva.service.analysis import _evaluate, make_analysis_executor
from kva.service.play.bot_moves import make_executor


def _views(count: int) -> list[PlayerView]:
    out: list[PlayerView] = []
    seed = 0
    while len(out) < count:
        seed += 1
        match = Match(target=175, rng=random.Random(seed))
        bots = [make_bot("normal"), make_bot("easy")]
        rng = random.Random(seed)
        while not match.over:
            p = match.turn
            assert p is not None
            view = player_view(match, p)
            if len(view.legal) > 1:
                out.append(view)
            match.apply(bots[p].choose(view, rng), player=p)
    return out[:count]


def _time_bots(pool: ProcessPoolExecutor, views: list[PlayerView]) -> list[float]:
    times: list[float] = []
    for i, view in enumerate(views):
        started = time.perf_counter()
        pool.submit(decide, "hard", view, i).result()
        times.append((time.perf_counter() - started) * 1000)
    return times


def _summary(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return (f"{label}: p50 {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms, "
            f"max {ordered[-1]:.0f} ms ({len(ordered)} decisions)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--no-nice", action="store_true",
                        help="the analysis worker at normal priority (for comparison)")
    args = parser.parse_args()
    views = _views(args.decisions)
    record_match = Match(target=175, rng=random.Random(99))
    rng = random.Random(5)
    while not record_match.over:
        record_match.apply(rng.choice(record_match.legal_codes()))
    work = list(decisions(write_record(record_match)))
    pool = make_executor(2)
    if args.no_nice:
        analysis = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    else:
        analysis = make_analysis_executor()
    analysis.submit(int).result()
    _time_bots(pool, views[:4])  # warm up
    idle = _time_bots(pool, views)
    stop = threading.Event()

    def keep_busy() -> None:
        i = 0
        while not stop.is_set():
            d = work[i % len(work)]
            analysis.submit(_evaluate, d.view, d.seed, 4000).result()
            i += 1

    busy_thread = threading.Thread(target=keep_busy, daemon=True)
    busy_thread.start()
    time.sleep(1.0)
    busy = _time_bots(pool, views)
    stop.set()
    busy_thread.join()
    print(_summary("hard in the bot pool, analysis idle", idle))
    how = "at normal priority" if args.no_nice else "niced"
    print(_summary(f"hard in the bot pool, analysis busy ({how})", busy))
    pool.shutdown()
    analysis.shutdown()


if __name__ == "__main__":
    main()
