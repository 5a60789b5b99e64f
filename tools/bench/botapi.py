"""``kva bench botapi``: an action posted through the bot API against one sent on a WebSocket,
measured the same way: from sending the action to the opponent's WebSocket receiving the state
of the new version.

The bench starts a ``kva serve`` (SQLite in a temporary folder, or a fresh PostgreSQL database
with ``--db postgres``), or is pointed at one (``--url``, started with ``KVA_SEED_WAIT=0`` and a
high ``KVA_BOT_API_RATE``). It makes bot accounts through the settings page (register, make a
bot, create a token), then plays ``--matches`` whole matches in ``--slots`` concurrent slots,
alternating two kinds so that both run under the same load:

* ``ws``: two guests at a friend table, both on ``/ws/m/{id}``;
* ``api``: a guest challenges a bot from the Bots page, the bot accepts through the API and
  plays with ``POST /api/bot/match/{id}/action`` (one keep-alive connection, as a real bot
  would) while following ``GET /api/bot/match/{id}/stream``; the guest is on the WebSocket.

Every mover plays its first legal tile ``--think`` seconds after its turn comes. Printed:
p50/p95/p99/max of ws→ws (a WebSocket action to the opponent's WebSocket), api→ws (a posted
action to the opponent's WebSocket) and ws→api (a WebSocket action to the bot's stream), and
the ratio of the p95s that docs/performance.md reports (target: api→ws ≤ 2× ws→ws).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import websockets

from tools.bench.command import run_command
from tools.bench.server import (
    DEFAULT_PG,
    DEFAULT_REDIS,
    GENEROUS_LIMITS,
    HttpFailure,
    _healthy,
    http,
    percentile,
    started_servers,
)

PASSWORD = "bench-password-0123"
SeatA = TypeVar("SeatA", bound="Seat")
SeatB = TypeVar("SeatB", bound="Seat")


# ---------------------------------------------------------------------------------------------
# Clients


@dataclass
class Seat:
    """One seat's incoming states: the latest, and when each version arrived."""

    latest: dict[str, Any] | None = None
    arrived: dict[int, float] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: Why the incoming states stopped, if they did before the match ended.
    failure: str = ""

    def note(self, state: dict[str, Any]) -> None:
        now = time.perf_counter()
        if state.get("type") == "error":
            self.errors.append(state)
            self.changed.set()
        if state.get("type") != "state":
            return
        self.arrived.setdefault(int(state["version"]), now)
        if self.latest is None or state["version"] >= self.latest["version"]:
            self.latest = state
        self.changed.set()

    def my_play(self) -> tuple[int, dict[str, Any]] | None:
        s = self.latest
        if s is None or s["status"] != "active" or s["view"]["over"]:
            return None
        view = s["view"]
        if view["turn"] != s["you"]:
            return None
        plays = [a for a in view["legal"] if a.get("type") == "play"]
        return (int(s["version"]), plays[0]) if plays else None

    def newer_than(self, version: int) -> bool:
        """Whether a state past ``version`` came (the first may come later than the version
        after a move: a stream that opens late starts at the state of the moment)."""
        return self.latest is not None and self.latest["version"] > version

    async def first_state(self, timeout: float = 30.0) -> None:
        """Wait for the seat's first state (or its end): a real client connects before it
        plays, and a seat that starts late would miss the first move's version."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.latest is None and not self.closed and loop.time() < deadline:
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), deadline - loop.time())

    def describe(self) -> str:
        """What this seat last saw: for the report of a match that did not finish."""
        s = self.latest
        seen = "no state" if s is None else (
            f"v{s['version']} {s['status']} turn {s['view']['turn']} you {s['you']}"
            f"{' over' if s['view']['over'] else ''}")
        return (f"{type(self).__name__}: {seen}; {len(self.arrived)} versions"
                f"{'; closed' if self.closed else ''}{'; ' + self.failure if self.failure else ''}"
                f"{'; errors ' + json.dumps(self.errors[-2:]) if self.errors else ''}")

    @property
    def over(self) -> bool:
        return self.closed or (self.latest is not None and (
            self.latest["view"]["over"] or self.latest["status"] in ("finished", "cancelled")))


class WsSeat(Seat):
    """A guest on the match's WebSocket."""

    async def open(self, base_url: str, match_id: str, cookie: str) -> WsSeat:
        parts = urlsplit(base_url)
        self.ws = await websockets.connect(
            f"ws://{parts.netloc}/ws/m/{match_id}", max_size=2 ** 22,
            additional_headers={"Cookie": f"kva_session={cookie}",
                                "Origin": f"{parts.scheme}://{parts.netloc}"})
        self.task = asyncio.create_task(self._read())
        await self.ws.send(json.dumps({"type": "hello", "version": 0}))
        return self

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.note(json.loads(text))
        except websockets.ConnectionClosed as exc:
            self.failure = f"socket closed: {exc}"
        finally:
            self.closed = True
            self.changed.set()

    async def act(self, version: int, action: dict[str, Any]) -> None:
        await self.ws.send(json.dumps({"type": "action", "version": version, "action": action}))

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


class ApiSeat(Seat):
    """A bot: its match stream, and one keep-alive connection for its actions."""

    async def open(self, base_url: str, match_id: str, token: str) -> ApiSeat:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.netloc = parts.netloc
        self.token = token
        self.match_id = match_id
        self.task = asyncio.create_task(self._read())
        self.conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        return self

    async def _read(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write((f"GET /api/bot/match/{self.match_id}/stream HTTP/1.1\r\n"
                          f"Host: {self.netloc}\r\nAuthorization: Bearer {self.token}\r\n\r\n")
                         .encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise HttpFailure(f"match stream refused: {head[:80]!r}")
            buffer = b""
            while True:  # chunked transfer: size line, data, CRLF
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    break
                buffer += await reader.readexactly(size)
                await reader.readexactly(2)
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if line.strip():
                        self.note(json.loads(line))
        except Exception as exc:
            self.failure = f"stream ended: {type(exc).__name__}: {exc}"
            if not isinstance(exc, (asyncio.IncompleteReadError, ConnectionError)):
                raise
        finally:
            self.closed = True
            self.changed.set()
            writer.close()

    async def act(self, version: int, action: dict[str, Any]) -> None:
        body = json.dumps({"version": version, "action": action}).encode()
        request = (f"POST /api/bot/match/{self.match_id}/action HTTP/1.1\r\n"
                   f"Host: {self.netloc}\r\nAuthorization: Bearer {self.token}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                   ).encode() + body
        if self.conn is None:
            self.conn = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.conn
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        answer = await reader.readexactly(length)
        if not head.startswith(b"HTTP/1.1 200"):
            self.errors.append(json.loads(answer))
            self.changed.set()

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task
        if self.conn is not None:
            self.conn[1].close()


# ---------------------------------------------------------------------------------------------
# Setting up


async def new_bot(base_url: str) -> tuple[str, str]:
    """Register an account, make it a bot, create a token: nickname and token."""
    name = f"b{secrets.token_hex(5)}"
    r = await http(base_url, "POST", "/register",
                   {"nickname": name, "password": PASSWORD, "next": "/"})
    cookie = r.cookie("kva_session")
    if r.status != 303 or not cookie:
        raise HttpFailure(f"register: {r.status}")
    r = await http(base_url, "POST", "/settings/bot/enable", {}, cookie=cookie)
    r = await http(base_url, "POST", "/settings/bot/tokens", {"label": "bench"}, cookie=cookie)
    found = re.search(rb'data-testid="bot-new-token">(kvab_[A-Za-z0-9_-]+)<', r.body)
    if found is None:
        raise HttpFailure(f"no token: {r.status}")
    return name, found.group(1).decode()


async def _guest_post(base_url: str, path: str, form: dict[str, str],
                      cookie: str | None = None) -> tuple[str, str]:
    r = await http(base_url, "POST", path, form, cookie=cookie)
    if r.status != 303:
        raise HttpFailure(f"POST {path.split('/')[1]}: {r.status}")
    return r.cookie("kva_session") or cookie or "", r.header("location") or ""


async def _connected(first: SeatA, second: SeatB) -> tuple[SeatA, SeatB]:
    """Both seats, once each has its first state: nobody moves before both are connected."""
    await asyncio.gather(first.first_state(), second.first_state())
    return first, second


async def ws_match(base_url: str) -> tuple[WsSeat, WsSeat]:
    """Two guests at a friend table, both connected."""
    host, location = await _guest_post(base_url, "/matches", {
        "opponent": "friend", "target": "75", "bazaar": "draw", "password": ""})
    match_id = location.rsplit("/", 1)[1]
    r = await http(base_url, "GET", f"/m/{match_id}", cookie=host)
    found = re.search(rb"/t/([A-Za-z0-9_-]+)", r.body)
    if found is None:
        raise HttpFailure("no table link")
    guest, _ = await _guest_post(base_url, f"/t/{found.group(1).decode()}", {"password": ""})
    return await _connected(await WsSeat().open(base_url, match_id, host),
                            await WsSeat().open(base_url, match_id, guest))


async def api_match(base_url: str, bot: str, token: str) -> tuple[WsSeat, ApiSeat]:
    """A guest challenges the bot; the bot accepts through the API."""
    guest, location = await _guest_post(base_url, f"/bots/{bot}/challenge",
                                        {"target": "75", "bazaar": "draw"})
    challenge_id = location.rsplit("/", 1)[1]
    r = await http(base_url, "POST", f"/api/challenge/{challenge_id}/accept",
                   extra_headers={"Authorization": f"Bearer {token}", "Content-Length": "0"})
    if r.status != 200:
        raise HttpFailure(f"accept: {r.status} {r.body[:200]!r}")
    match_id = json.loads(r.body)["match_id"]
    return await _connected(await WsSeat().open(base_url, match_id, guest),
                            await ApiSeat().open(base_url, match_id, token))


# ---------------------------------------------------------------------------------------------
# Playing and measuring


@dataclass
class Samples:
    ws_ws: list[float] = field(default_factory=list)
    api_ws: list[float] = field(default_factory=list)
    ws_api: list[float] = field(default_factory=list)
    errors: int = 0
    #: For each match that did not end by points in time: why, and what its seats last saw.
    stuck: list[str] = field(default_factory=list)


async def play(seats: tuple[Seat, Seat], kinds: tuple[str, str], samples: Samples,
               think: float, budget: float = 120.0) -> None:
    """Play the match to its end; each action's latency to the other seat."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget
    def failed(why: str) -> None:
        samples.errors += 1
        samples.stuck.append(f"{why}: " + " | ".join(
            f"{kind} {seat.describe()}" for kind, seat in zip(kinds, seats, strict=True)))

    while not all(s.over for s in seats):
        if loop.time() > deadline:
            return failed("not finished in time")
        for i, seat in enumerate(seats):
            move = seat.my_play()
            if move is None:
                continue
            version, action = move
            if think:
                await asyncio.sleep(think)
            other = seats[1 - i]
            t0 = time.perf_counter()
            await seat.act(version, action)  # type: ignore[attr-defined]
            while not other.newer_than(version) and not other.over:
                other.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(other.changed.wait(), 10)
                if loop.time() > deadline:
                    break
            if version + 1 in other.arrived:
                latency = (other.arrived[version + 1] - t0) * 1000
                key = f"{kinds[i]}_{kinds[1 - i]}"
                getattr(samples, key).append(latency)
            refused = len(seat.errors)
            while seat.latest is not None and seat.latest["version"] <= version \
                    and not seat.over and len(seat.errors) == refused:  # the mover's own view
                if loop.time() > deadline:
                    break
                seat.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(seat.changed.wait(), 1)
            if len(seat.errors) > refused:  # refused: counted, and the turn is tried again
                samples.errors += 1
                await asyncio.sleep(0.05)
            break
        else:
            waits = [asyncio.create_task(s.changed.wait()) for s in seats]
            for s in seats:
                s.changed.clear()
            await asyncio.wait(waits, timeout=0.05, return_when=asyncio.FIRST_COMPLETED)
            for w in waits:
                w.cancel()
    ended = [s.latest["view"].get("forfeit_reason") for s in seats if s.latest is not None]
    if any(ended) or any(s.closed and s.failure for s in seats):
        failed(f"ended by {next(filter(None, ended), 'a closed connection')}")


async def bench(base_url: str, matches: int, slots: int, think: float) -> Samples:
    samples = Samples()
    bots = [await new_bot(base_url) for _ in range(slots)]
    counter = iter(range(matches))

    async def slot(i: int) -> None:
        for k, _n in enumerate(counter):  # neighbouring slots play the other kind
            seats: tuple[Seat, Seat]
            if (k + i) % 2 == 0:
                seats, kinds = await ws_match(base_url), ("ws", "ws")
            else:
                seats, kinds = await api_match(base_url, *bots[i]), ("ws", "api")
            try:
                await play(seats, kinds, samples, think)
            finally:
                for s in seats:
                    await s.close()

    await asyncio.gather(*(slot(i) for i in range(slots)))
    return samples


def _stats(values: list[float]) -> str:
    if not values:
        return "n=    0  (no samples)"
    v = sorted(values)
    return (f"n={len(v):>5}  p50 {percentile(v, 0.50):6.1f} ms  p95 {percentile(v, 0.95):6.1f} ms"
            f"  p99 {percentile(v, 0.99):6.1f} ms  max {v[-1]:6.1f} ms")


@contextlib.contextmanager
def _server(args: argparse.Namespace) -> Iterator[str]:
    if args.url:
        if not _healthy(args.url):
            raise SystemExit(f"{args.url} does not answer /healthz")
        yield args.url
        return
    # Both paths without their per-client limits (the WebSocket's 10 messages/s, the API's
    # 30 requests/s): players here move faster than people, and the limits are not measured.
    limits = {**GENEROUS_LIMITS, "KVA_BOT_API_RATE": "1000000/minute", "KVA_SEED_WAIT": "0",
              "KVA_BOT_DELAY": "0", "KVA_WS_RATE": "1000000", "KVA_WS_BURST": "1000000",
              "KVA_WS_FLOOD": "1000000"}
    with started_servers(1, args.db, args.pg_url, DEFAULT_REDIS, 0.0, None, "warning",
                         limits=limits) as started:
        yield started.urls[0]


def run(args: argparse.Namespace) -> int:
    with _server(args) as url:
        started = time.perf_counter()
        try:
            samples = asyncio.run(asyncio.wait_for(
                bench(url, args.matches, args.slots, args.think), args.timeout))
        except TimeoutError:
            print(f"kva bench botapi: not finished within {args.timeout:g} s (a match or a "
                  "challenge never completed); no figures")
            return 1
        took = time.perf_counter() - started
    print(f"kva bench botapi: {args.matches} matches to 75, {args.slots} at once, "
          f"{args.db if not args.url else args.url}, think {args.think:g} s, {took:.0f} s")
    print(f"ws→ws   {_stats(samples.ws_ws)}")
    print(f"api→ws  {_stats(samples.api_ws)}")
    print(f"ws→api  {_stats(samples.ws_api)}")
    for seen in samples.stuck:
        print(f"failed match, {seen}")
    if samples.ws_ws and samples.api_ws:
        ratio = percentile(sorted(samples.api_ws), 0.95) / percentile(sorted(samples.ws_ws), 0.95)
        verdict = "within" if ratio <= 2.0 else "OVER"
        print(f"botapi: p95 api→ws is {ratio:.2f}× p95 ws→ws ({verdict} the 2× target); "
              f"errors {samples.errors}")
        return 0 if ratio <= 2.0 and not samples.errors else 1
    return 1


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of this benchmark, for ``prog`` (``kva bench botapi`` or the module)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Bot API action latency against the WebSocket's.")
    parser.add_argument("--url", help="a running kva serve (default: start one)")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get("KVA_TEST_DATABASE_URL")
                        or DEFAULT_PG)
    parser.add_argument("--matches", type=int, default=20, help="matches in all")
    parser.add_argument("--slots", type=int, default=2, help="matches at once")
    parser.add_argument("--think", type=float, default=0.02,
                        help="seconds a mover waits before acting")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="give up (exit 1) when the whole run takes longer")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.bench.botapi") -> int:
    """Run the benchmark with ``argv`` (the process's arguments when None); the exit status."""
    return run_command(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
