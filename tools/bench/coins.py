"""``kva bench coins``: what the Domino Coin ledger adds to starting and finishing a match.

It plays pairs of matches through the play service on a fresh database (a temporary SQLite
file, or ``--db postgres`` on a fresh database of the PostgreSQL server at ``--pg-url``): one
casual table and one coin table, interleaved so both see the same machine. Each match is
started by its second player sitting down (``join_table``: the transaction that moves both
stakes into escrow) and finished by a resignation (``resign``: the transaction that pays the
escrow to the winner). It prints p50/p95 of both steps with and without a stake, the
difference, and whether ``kva coins audit`` passes afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kva.service.cluster.broker import MemoryBroker
from kva.service.coins import wallets as coins
from kva.service.coins.audit import audit
from kva.service.play import PlayService
from kva.storage.db import Database
from kva.storage.migrate import upgrade
from kva.storage.models import User
from tools.bench.command import run_command

DEFAULT_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _pg_database(admin_url: str, create: bool, name: str) -> None:
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    u = make_url(admin_url)
    conn = await asyncpg.connect(user=u.username, password=u.password,
                                 host=u.host or "127.0.0.1", port=u.port or 5432,
                                 database=u.database or "postgres")
    try:
        await conn.execute(f"CREATE DATABASE {name}" if create
                           else f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await conn.close()


async def bench(url: str, matches: int) -> dict[str, list[float]]:
    """Time starts and finishes of ``matches`` casual and ``matches`` coin matches (ms)."""
    database = Database(url)
    engine = database.engine
    await upgrade(engine)
    sessions = database.sessions
    times: dict[str, list[float]] = {"start": [], "start_coin": [], "finish": [],
                                     "finish_coin": [], "ledger_start": [],
                                     "ledger_finish": []}
    timing = [False]

    def timed(fn: Any, key: str) -> Any:  # the ledger's own calls, inside the transaction
        async def call(session: Any, match_id: str) -> Any:
            t0 = time.perf_counter()
            try:
                return await fn(session, match_id)
            finally:
                spent = (time.perf_counter() - t0) * 1000
                if timing[0] and await coins.stake_of(session, match_id):
                    times[key].append(spent)
        return call

    originals = (coins.start_match, coins.finish_match)
    coins.start_match = timed(originals[0], "ledger_start")
    coins.finish_match = timed(originals[1], "ledger_finish")
    with ThreadPoolExecutor(max_workers=1) as pool:
        play = PlayService(database, MemoryBroker(), forced_delay=0, bot_delay=0,
                           bot_executor=pool)
        try:
            async with sessions() as session, session.begin():
                users = [User(nickname=f"bench{secrets.token_hex(4)}", kind="registered")
                         for _ in range(2 * matches)]
                session.add_all(users)
            async with sessions() as session, session.begin():  # opened once per account
                for user in users:
                    await coins.ensure_wallet(session, user)
            for i in range(2 * matches):
                a, b = users[(2 * i) % len(users)], users[(2 * i + 1) % len(users)]
                stake = 10 if i % 2 else 0
                suffix = "_coin" if stake else ""
                match_id, token = await play.create_match(a.id, a.nickname, "open", 75, "draw",
                                                          stake=stake)
                assert token is not None
                timing[0] = i >= 4  # the first ones warm caches
                t0 = time.perf_counter()
                await play.join_table(token, b.id, b.nickname, None, registered=True)
                t1 = time.perf_counter()
                await play.resign(match_id, b.id if i % 4 < 2 else a.id)
                t2 = time.perf_counter()
                if i >= 4:  # the first ones warm caches and open wallets
                    times["start" + suffix].append((t1 - t0) * 1000)
                    times["finish" + suffix].append((t2 - t1) * 1000)
            async with sessions() as session:
                report = await audit(session)
            if not report.ok:
                raise SystemExit("audit failed: " + "; ".join(report.problems))
        finally:
            coins.start_match, coins.finish_match = originals
            await play.stop()
            await engine.dispose()
    return times


def report(label: str, times: dict[str, list[float]]) -> str:
    lines = [f"{label}: {len(times['start_coin'])} coin and {len(times['start'])} casual "
             "matches; ms per step, the ledger's cost is the difference"]
    lines.append(f"{'step':<8} {'casual p50':>11} {'p95':>7} {'coin p50':>9} {'p95':>7} "
                 f"{'+p50':>7} {'+p95':>7}")
    for step in ("start", "finish"):
        plain, coin = times[step], times[step + "_coin"]
        p50, p95 = _pct(plain, 0.5), _pct(plain, 0.95)
        c50, c95 = _pct(coin, 0.5), _pct(coin, 0.95)
        lines.append(f"{step:<8} {p50:>11.2f} {p95:>7.2f} {c50:>9.2f} {c95:>7.2f} "
                     f"{c50 - p50:>+7.2f} {c95 - p95:>+7.2f}")
    for step in ("start", "finish"):
        own = times["ledger_" + step]
        lines.append(f"ledger's own calls in the {step} transaction: p50 {_pct(own, 0.5):.2f} "
                     f"ms, p95 {_pct(own, 0.95):.2f} ms")
    lines.append(f"mean {statistics.fmean(times['start_coin'] + times['finish_coin']):.2f} ms "
                 f"per coin step; audit ok")
    return "\n".join(lines)


async def _run(args: argparse.Namespace) -> int:
    # every resignation here is "suspicious" (0 moves): the warnings are not the point
    logging.getLogger("kva.service.coins.wallets").setLevel(logging.ERROR)
    if args.db == "postgres":
        name = f"kva_bench_coins_{secrets.token_hex(4)}"
        await _pg_database(args.pg_url, True, name)
        try:
            base = args.pg_url.rsplit("/", 1)[0]
            times = await bench(f"{base}/{name}", args.matches)
        finally:
            await _pg_database(args.pg_url, False, name)
        print(report("PostgreSQL", times))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        times = await bench(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}", args.matches)
    print(report("SQLite", times))
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of this benchmark, for ``prog`` (``kva bench coins`` or the module)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The ledger's cost to starting and finishing a match.")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-url", default=DEFAULT_PG,
                        help="a PostgreSQL server's admin database (a fresh one is made)")
    parser.add_argument("--matches", type=int, default=200,
                        help="coin matches (and as many casual ones)")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.bench.coins") -> int:
    """Run the benchmark with ``argv`` (the process's arguments when None); the exit status."""
    return run_command(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
