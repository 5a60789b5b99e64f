"""Server CPU of one friend match's setup and end, phase by phase.

Starts one ``kva serve`` (pinned to core 0; this client on core 1), then, for ``N`` matches one
after another and one phase at a time: POST /matches (a guest, its session, a table, the match),
the game page, the join (a second guest), both sockets with their ``hello``, both kva-fair/1
seeds until the deal, a resignation until the finished state, and closing the sockets. Prints
the server's CPU per match for each phase (ticks of /proc/<pid>/stat before and after it).

    .venv/bin/python -m tools.bench.new_match 150                 # SQLite
    .venv/bin/python -m tools.bench.new_match 150 --db postgres   # PostgreSQL on 127.0.0.1

The server's seed wait is 30 s here: on a busy machine more than the default 5 s can pass
between a join and its sockets, and the server would deal the match itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from tools.bench.server import _proc_ticks_and_rss, http, started_servers

TICKS = os.sysconf("SC_CLK_TCK")


async def measure(url: str, pid: int, count: int) -> dict[str, float]:
    from websockets.asyncio.client import ClientConnection, connect

    results: dict[str, float] = {}

    def cpu() -> float:
        got = _proc_ticks_and_rss(pid)
        assert got is not None, "the server is gone"
        return got[0] / TICKS

    async def phase(name: str, step: Callable[[Any], Awaitable[Any]],
                    items: Sequence[Any]) -> list[Any]:
        await asyncio.sleep(0.3)
        before = cpu()
        out = [await step(item) for item in items]
        await asyncio.sleep(0.3)  # the server's work after the last answer
        results[name] = 1000 * (cpu() - before) / len(items)
        return out

    async def create(_: int) -> tuple[str, str]:
        r = await http(url, "POST", "/matches",
                       {"opponent": "friend", "target": "75", "bazaar": "draw"})
        found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.header("location") or "")
        cookie = r.cookie("kva_session")
        assert found is not None and cookie, f"POST /matches {r.status}"
        return cookie, found.group(1)

    async def page(made: tuple[str, str]) -> str:
        cookie, match_id = made
        reply = await http(url, "GET", f"/m/{match_id}", cookie=cookie)
        token = re.search(rb'https?://[^"/\s]+/t/([A-Za-z0-9_-]{8,64})', reply.body)
        assert token is not None, f"GET /m/id {reply.status}"
        return token.group(1).decode()

    async def join(token: str) -> str:
        cookie = (await http(url, "POST", f"/t/{token}", {})).cookie("kva_session")
        assert cookie, "join refused"
        return cookie

    async def sockets(pair: tuple[tuple[str, str], str]) -> list[ClientConnection]:
        (host_cookie, match_id), guest_cookie = pair
        opened = []
        for cookie in (host_cookie, guest_cookie):
            ws = await connect(url.replace("http", "ws", 1) + f"/ws/m/{match_id}",
                               origin=url,  # type: ignore[arg-type]  # a str is an Origin
                               additional_headers={"Cookie": f"kva_session={cookie}"},
                               proxy=None)
            await ws.send(json.dumps({"type": "hello", "version": 0}))
            await ws.recv()
            opened.append(ws)
        return opened

    async def until(ws: ClientConnection, done: Callable[[dict[str, Any]], bool]) -> None:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if message.get("type") == "state" and done(message):
                return

    async def seeds(pair: list[ClientConnection]) -> None:
        for ws in pair:
            await ws.send(json.dumps({"type": "seed", "seed": os.urandom(16).hex()}))
        for ws in pair:
            await until(ws, lambda m: m.get("status") == "active" and bool(m["view"]["hand"]))

    async def resign(pair: list[ClientConnection]) -> None:
        await pair[0].send(json.dumps({"type": "resign"}))
        for ws in pair:
            await until(ws, lambda m: m.get("status") == "finished")

    async def close(pair: list[ClientConnection]) -> None:
        for ws in pair:
            await ws.close()

    made = await phase("POST /matches", create, range(count))
    tokens = await phase("GET /m/{id}", page, made)
    guests = await phase("POST /t/{token} (join)", join, tokens)
    pairs = await phase("2 sockets + hello", sockets, list(zip(made, guests, strict=True)))
    await phase("2 seeds -> dealt", seeds, pairs)
    await phase("resign -> finished", resign, pairs)
    await phase("close 2 sockets", close, pairs)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, nargs="?", default=150, help="matches (default 150)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-url", default="postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("count must be at least 1")
    os.environ["KVA_SEED_WAIT"] = "30"
    with started_servers(1, args.db, args.pg_url, "redis://127.0.0.1:6379/0", 0.6, pin={0},
                         log_level="warning") as started:
        os.sched_setaffinity(0, {1})
        results = asyncio.run(measure(started.urls[0], started.pids[0], args.count))
    for name, ms in results.items():
        print(f"{ms:7.2f} ms  {name}")
    print(f"{sum(results.values()):7.2f} ms  total server CPU per match ({args.db})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
