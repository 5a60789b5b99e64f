"""``kva bench server``: whole matches between WebSocket clients against real servers, ramped.

The bench starts ``kva serve`` processes itself (``--start N``: SQLite in an empty temporary
folder, or a fresh PostgreSQL database that is dropped afterwards; with N > 1 the processes share
the database and a Redis broker) or is pointed at running ones (``--url``). For each step of the
ramp (``--matches 50,100,200``) it keeps that many friend matches live: each match is two fresh
guests, one opening a closed table (``POST /matches``) and the other joining it by its link
(``POST /t/{token}``), both on ``/ws/m/{id}``, each playing a random legal move ``--think``
seconds (± ``--jitter``) after its turn comes, to the match's end; then the slot opens the next
match, with two more fresh guests (``--players new``, the default) or with the same two players,
whose sessions carry over as a browser's cookie does (``--players returning``: people who play
match after match, so no guest is created after a slot's first match).

With several servers, ``--spread player`` puts the two players of a match on different processes
(round robin); ``--spread match`` (the default) creates and joins the match on any
process (round robin) but connects both players' sockets to the process nginx's
``hash $match_id consistent`` picks for the match (:func:`nginx_chash`), as docs/deployment.md
routes them: that process takes the match's lease at the first ``hello``.

Measured per client action (forced draws and passes that the server applies are not client
actions and are not counted): from sending it to the actor receiving the state of the new version
(action→actor) and to the opponent receiving it (action→opponent); actions per second; errors
(error frames, sockets that close under a player, HTTP failures, matches that stall); server CPU
(of one core, the processes and their children, from ``/proc/<pid>/stat``) and RSS (the largest
sum seen, from ``/proc/<pid>/status``); and the bench's own CPU, since a saturated client
inflates every latency.

The last line is the headline: the largest step whose p99 action→opponent is within ``--slo-ms``
with no errors. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlencode, urlsplit

from kva.settings.routing import HashRing
from tools.bench.command import run_command
from tools.bench.cpu_quota import CpuQuota, CpuQuotaError, limit_share, process_share_name

#: Where ``--db postgres`` creates its database (the bench's own, dropped afterwards).
DEFAULT_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
#: The broker several started processes share.
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
#: Per-address limits that one load generator on 127.0.0.1 would hit, raised for the servers
#: the bench starts itself (every bench client is a different guest, so per-player limits stay
#: as configured). Servers given with ``--url`` must be started with such settings by hand.
GENEROUS_LIMITS: dict[str, str] = {
    "KVA_TABLE_CREATE_RATE_IP": "1000000/minute",
    "KVA_TABLE_PASSWORD_RATE_IP": "1000000/minute",
    "KVA_REGISTER_RATE_IP": "1000000/minute",
    "KVA_GUEST_CREATE_RATE_IP": "1000000/minute",
    "KVA_BOT_MATCH_CREATE_RATE_IP": "1000000/minute",
    "KVA_LOGIN_RATE_IP": "1000000/minute",
    "KVA_WS_PER_CLIENT": "1000000",
    "KVA_WS_PER_MATCH": "1000",
}
#: A match slot with no message on either socket for this long counts a ``stall`` and moves on.
STALL_S = 20.0


# ---------------------------------------------------------------------------------------------
# Measurements


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p`` percentile (0 < p ≤ 1) of ``sorted_values``; NaN when empty."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-int(p * 1000) * len(sorted_values) // 1000))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class Recorder:
    """What the clients saw during the current window."""

    actor: list[float] = field(default_factory=list)
    opponent: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    matches_started: int = 0
    matches_finished: int = 0
    #: Guests the server made for the players (two per match, or, with returning players,
    #: two per slot's first match).
    new_guests: int = 0
    #: Where each action→opponent sample is written as it comes (``--trace``), or None.
    trace: TextIO | None = None
    #: Whether samples now fall in a measured window (else in a warm-up).
    measuring: bool = False
    #: When the current window opened (``time.perf_counter``): only actions sent since count.
    since: float = 0.0

    def in_window(self, t0: float) -> bool:
        """Whether an action sent at ``t0`` is measured: sent since the window opened, and
        answered before it closed (one sent earlier is a warm-up sample, even if its state
        comes inside the window)."""
        return self.measuring and t0 >= self.since

    def actor_sample(self, t0: float, now: float) -> None:
        """Record an action→actor latency (the action sent at ``t0``, its state back at
        ``now``) if :meth:`in_window`."""
        if self.in_window(t0):
            self.actor.append(now - t0)

    def opponent_sample(self, t0: float, now: float) -> None:
        """Record an action→opponent latency: the action was sent at ``t0`` and the opponent
        had its state at ``now`` (``time.perf_counter``, the machine's monotonic clock, which a
        probe in a server process can share). In the trace, one line per sample: the send time
        in seconds, the latency in milliseconds, ``m`` (measured) or ``w`` (warm-up), so that a
        tail can be seen as bursts (a stall: many actions sent close together, all slow) or
        spread out (a queue). Only samples :meth:`in_window` are kept."""
        measured = self.in_window(t0)
        if measured:
            self.opponent.append(now - t0)
        if self.trace is not None:
            self.trace.write(f"{t0:.4f} {1000 * (now - t0):.2f} {'m' if measured else 'w'}\n")

    def reset(self) -> None:
        """Open a window now: what was recorded so far is dropped."""
        self.since = time.perf_counter()
        self.actor.clear()
        self.opponent.clear()
        self.errors.clear()
        self.matches_started = 0
        self.matches_finished = 0
        self.new_guests = 0


#: Think times waited after the load generator's collection before a window opens.
SETTLE_THINKS = 3.0


def _proc_ticks_and_rss(pid: int) -> tuple[int, int] | None:
    """CPU ticks (user + system) and RSS in KiB of ``pid``; None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
    rss = 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
            break
    return ticks, rss


def _descendants(roots: Sequence[int]) -> list[int]:
    """``roots`` and every process below them (bot workers and the like)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found = [pid for pid in roots if pid in parent]
    frontier = list(found)
    while frontier:
        children = [pid for pid, ppid in parent.items() if ppid in frontier]
        found.extend(children)
        frontier = children
    return found


class ProcessSampler:
    """CPU ticks and RSS of the server processes (and their children), sampled every second.

    CPU ticks are summed per process over the window (a process that ends keeps what it used
    up to its last sample), so the figure is the share of one core the servers used."""

    def __init__(self, pids: Sequence[int]) -> None:
        self.pids = list(pids)
        self._last: dict[int, int] = {}
        self.ticks = 0
        self.max_rss_kib = 0
        self.processes = 0
        self._started = time.perf_counter()

    def sample(self) -> None:
        if not self.pids:
            return
        rss_total = 0
        tree = _descendants(self.pids)
        self.processes = max(self.processes, len(tree))
        for pid in tree:
            got = _proc_ticks_and_rss(pid)
            if got is None:
                continue
            ticks, rss = got
            self.ticks += ticks - self._last.get(pid, ticks)
            self._last[pid] = ticks
            rss_total += rss
        self.max_rss_kib = max(self.max_rss_kib, rss_total)

    def reset(self) -> None:
        self.sample()
        self.ticks = 0
        self.max_rss_kib = 0
        self.processes = 0
        self._started = time.perf_counter()

    def cpu_percent(self) -> float | None:
        if not self.pids:
            return None
        elapsed = time.perf_counter() - self._started
        return 100.0 * self.ticks / os.sysconf("SC_CLK_TCK") / elapsed if elapsed > 0 else None


# ---------------------------------------------------------------------------------------------
# HTTP (a few form posts per match: plain asyncio, nothing a plain install lacks)


@dataclass
class HttpReply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name), None)

    def cookie(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == "set-cookie" and value.startswith(name + "="):
                return value[len(name) + 1:].split(";", 1)[0]
        return None


class HttpFailure(Exception):
    """An HTTP request that did not get the answer a player expects."""


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return bytes(out)


async def http(base_url: str, method: str, path: str, form: dict[str, str] | None = None,
               cookie: str | None = None, timeout: float = 15.0,
               extra_headers: dict[str, str] | None = None) -> HttpReply:
    """One HTTP/1.1 request (``Connection: close``) with the ``Origin`` of ``base_url`` (and
    any ``extra_headers``, such as ``X-Forwarded-For``)."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    body = urlencode(form).encode() if form is not None else b""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close",
             "Accept-Language: en", f"Origin: {parts.scheme}://{parts.netloc}"]
    if cookie:
        lines.append(f"Cookie: kva_session={cookie}")
    lines += [f"{name}: {value}" for name, value in (extra_headers or {}).items()]
    if form is not None:
        lines += ["Content-Type: application/x-www-form-urlencoded",
                  f"Content-Length: {len(body)}"]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    async def exchange() -> bytes:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(request)
            await writer.drain()
            return await reader.read()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    raw = await asyncio.wait_for(exchange(), timeout)
    head, _, payload = raw.partition(b"\r\n\r\n")
    head_lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(head_lines[0].split()[1])
    except (IndexError, ValueError):
        raise HttpFailure(f"{method} {path.split('/')[1] or '/'}: no answer") from None
    headers = []
    for line in head_lines[1:]:
        key, _, value = line.partition(":")
        headers.append((key.strip().lower(), value.strip()))
    reply = HttpReply(status, headers, payload)
    if (reply.header("transfer-encoding") or "").lower() == "chunked":
        reply.body = _dechunk(payload)
    return reply


# ---------------------------------------------------------------------------------------------
# Clients


@dataclass
class Pending:
    """A client action in flight."""

    version: int
    actor: int
    t0: float
    actor_done: bool = False
    opponent_done: bool = False


def made_by(msg: dict[str, Any], version: int, seat: int) -> bool:
    """Whether state ``msg`` is the one ``seat``'s action at ``version`` made: the next version,
    with that player's action as its event (Georgian: its tile, or inside the hand or match end
    it caused; Kozel: the ``action`` event, or the ``match_end`` it caused)."""
    event = msg.get("event") or {}
    if event.get("kind") in ("hand_end", "match_end") and "move" in event:
        event = event.get("move") or {}
    return (msg.get("version") == version + 1
            and event.get("kind") in ("open", "play", "action", "match_end")
            and event.get("p") == seat)


@dataclass(frozen=True)
class TableKind:
    """What differs between the games the bench plays: the table it opens (the home form's
    fields), how many players fill it, and when a view asks its player to choose."""

    game: str
    seats: int
    form: dict[str, str]

    @classmethod
    def of(cls, game: str, seats: int, target: int) -> TableKind:
        if game == "kozel":
            return cls(game, seats, {"opponent": "friend", "game": "kozel",
                                     "seats": str(seats), "fish": "all"})
        return cls(game, 2, {"opponent": "friend", "target": str(target), "bazaar": "draw"})

    def chooses(self, view: dict[str, Any]) -> bool:
        """Whether the seat on turn has a choice to send: a forced draw, pass or knock is the
        server's own (Georgian: the legal list then holds no tile; Kozel: ``view.forced``)."""
        legal = view.get("legal") or []
        if self.game == "kozel":
            return bool(legal) and view.get("forced") is None
        return any(a.get("type") == "play" for a in legal)


class Player:
    """One guest's socket to one match: answers its turns, records what it receives."""

    def __init__(self, game: Game, seat_hint: int, ws: Any) -> None:
        self.game = game
        self.index = seat_hint
        self.ws = ws
        self.you: int | None = None
        self.version = -1
        self.acted_on = -1
        self.seed_sent = False

    async def read(self) -> None:
        """Read until the match ends or the socket closes."""
        import websockets

        game = self.game
        try:
            while not game.done.is_set():
                try:
                    text = await asyncio.wait_for(self.ws.recv(), STALL_S)
                except TimeoutError:
                    if not game.done.is_set() and game.last_message < time.perf_counter() - STALL_S:
                        game.fail("stall")
                    continue
                now = time.perf_counter()
                game.last_message = now
                self.handle(json.loads(text), now)
        except websockets.ConnectionClosed:
            if not game.done.is_set() and not game.closing:
                game.fail("disconnect")

    def handle(self, msg: dict[str, Any], now: float) -> None:
        game = self.game
        kind = msg.get("type")
        if kind == "error":
            game.bench.rec.errors[f"error:{msg.get('code')}"] += 1
            for v, pending in list(game.pending.items()):
                if pending.actor == self.you:
                    del game.pending[v]
            return
        if kind != "state":
            return
        version = int(msg["version"])
        if version <= self.version:
            return
        self.version = version
        self.you = msg.get("you")
        for v, pending in list(game.pending.items()):
            if v >= version:
                continue
            if not (pending.actor_done or pending.opponent_done) \
                    and not made_by(msg, pending.version, pending.actor):
                game.bench.rec.errors["wrong_state"] += 1
            if pending.actor == self.you:
                if not pending.actor_done:
                    pending.actor_done = True
                    game.bench.rec.actor_sample(pending.t0, now)
            elif not pending.opponent_done:
                pending.opponent_done = True
                game.bench.rec.opponent_sample(pending.t0, now)
            if pending.actor_done and pending.opponent_done:
                del game.pending[v]
        fair = msg.get("fair")
        if (isinstance(fair, dict) and not self.seed_sent and self.you is not None
                and fair.get("commitment") and (fair.get("client_seeds") or [None, None])[
                    self.you] is None):
            # kva-fair/1: like a browser, send a client seed once the commitment is seen.
            self.seed_sent = True
            frame = json.dumps({"type": "seed", "seed": secrets.token_hex(16)})
            game.tasks.append(asyncio.create_task(self._send(frame)))
        view = msg["view"]
        if msg.get("status") in ("finished", "cancelled") or view.get("over"):
            game.finish(self.index)
            return
        legal = view.get("legal") or []
        if (msg.get("status") == "active" and view.get("turn") == self.you
                and self.you is not None
                and game.bench.table.chooses(view)
                and self.acted_on < version):
            self.acted_on = version
            delay = game.bench.think_delay()
            asyncio.get_running_loop().call_later(delay, self.act, version,
                                                  game.bench.rng.choice(legal))

    def act(self, version: int, action: dict[str, Any]) -> None:
        game = self.game
        if game.done.is_set() or self.version != version or self.you is None:
            return
        frame = json.dumps({"type": "action", "version": version, "action": action})
        game.pending[version] = Pending(version, self.you, time.perf_counter())
        game.tasks.append(asyncio.create_task(self._send(frame)))

    async def _send(self, frame: str) -> None:
        import websockets

        try:
            await self.ws.send(frame)
        except websockets.ConnectionClosed:
            if not self.game.done.is_set() and not self.game.closing:
                self.game.fail("disconnect")


class Game:
    """One match between two bench clients, from opening the table to its end."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench
        self.pending: dict[int, Pending] = {}
        self.done = asyncio.Event()
        self.closing = False
        self.failed: str | None = None
        self.last_message = time.perf_counter()
        self.tasks: list[asyncio.Task[None]] = []
        self.over_seen: set[int] = set()

    def fail(self, what: str) -> None:
        if not self.done.is_set():
            self.failed = what
            self.bench.rec.errors[what] += 1
            self.done.set()

    def finish(self, seat: int) -> None:
        """``seat``'s socket saw the end; the match is done once every seat's has."""
        self.over_seen.add(seat)
        if len(self.over_seen) == self.bench.table.seats and not self.done.is_set():
            self.bench.rec.matches_finished += 1
            self.done.set()

    async def play(self, host_url: str, guest_url: str,
                   players: list[str | None] | None = None) -> None:
        """Create the match on ``host_url``, join it on ``guest_url`` (every other seat, one
        player each); the sockets go there too (``--spread player``) or all to the match's
        hashed process (``--spread match``). ``players``: the players' session cookies (None:
        a new guest), updated with the sessions the server gives them, so the slot's next
        match can reuse them."""
        from websockets.asyncio.client import connect

        bench = self.bench
        seats = bench.table.seats
        if players is None:
            players = [None] * seats
        before = list(players)
        r = await http(host_url, "POST", "/matches", bench.table.form, cookie=players[0])
        host_cookie = players[0] = r.cookie("kva_session") or players[0]
        bench.rec.new_guests += players[0] != before[0]
        found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.header("location") or "")
        if r.status != 303 or not host_cookie or not found:
            raise HttpFailure(f"POST /matches {r.status}")
        match_id = found.group(1)
        page = await http(host_url, "GET", f"/m/{match_id}", cookie=host_cookie)
        token = re.search(rb'https?://[^"/\s]+/t/([A-Za-z0-9_-]{8,64})', page.body)
        if page.status != 200 or token is None:
            raise HttpFailure(f"GET /m/{{id}} {page.status}"
                              + ("" if page.status != 200 else " no table link"))
        for seat in range(1, seats):
            joined = await http(guest_url, "POST", f"/t/{token.group(1).decode()}", {},
                                cookie=players[seat])
            players[seat] = joined.cookie("kva_session") or players[seat]
            bench.rec.new_guests += players[seat] != before[seat]
            if joined.status != 303 or not players[seat]:
                raise HttpFailure(f"POST /t/{{token}} {joined.status}")
        bench.rec.matches_started += 1
        sockets = []
        if bench.spread == "match":
            host_url = guest_url = nginx_chash(match_id, bench.urls)
        try:
            for seat, (url, cookie) in enumerate(
                    [(host_url, host_cookie)] + [(guest_url, players[s]) for s in range(1, seats)]):
                ws_url = url.replace("http://", "ws://", 1) + f"/ws/m/{match_id}"
                origin = url.rstrip("/")
                ws = await connect(ws_url, origin=origin,  # type: ignore[arg-type]
                                   additional_headers={"Cookie": f"kva_session={cookie}"},
                                   max_size=2 ** 22, proxy=None, open_timeout=15)
                sockets.append(ws)
                player = Player(self, seat, ws)
                await ws.send(json.dumps({"type": "hello", "version": 0}))
                self.tasks.append(asyncio.create_task(player.read()))
            await self.done.wait()
        finally:
            self.closing = True
            self.done.set()
            for ws in sockets:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)


#: New matches opened per second at most when a step adds them.
OPEN_RATE = 20


class Bench:
    """The ramp: match slots, each playing match after match, and the measurement windows."""

    def __init__(self, urls: Sequence[str], think: float, jitter: float, target: int,
                 sampler: ProcessSampler, seed: int | None, spread: str = "match",
                 returning: bool = False, game: str = "georgian", seats: int = 2) -> None:
        self.urls = list(urls)
        #: The game and table every slot plays.
        self.table = TableKind.of(game, seats, target)
        self.spread = spread
        #: Whether a slot's players keep their sessions from match to match.
        self.returning = returning
        self.think = think
        self.jitter = jitter
        self.target = target
        self.sampler = sampler
        self.rec = Recorder()
        self.rng = random.Random(seed)
        self.stopping = False
        self.slots: list[asyncio.Task[None]] = []

    def think_delay(self) -> float:
        return self.think * (1.0 + self.jitter * (2.0 * self.rng.random() - 1.0))

    async def slot(self, index: int, start_delay: float) -> None:
        await asyncio.sleep(start_delay)
        host_url = self.urls[index % len(self.urls)]
        guest_url = self.urls[(index + 1) % len(self.urls)]
        players: list[str | None] = [None] * self.table.seats
        while not self.stopping:
            if not self.returning:
                players = [None] * self.table.seats
            try:
                await Game(self).play(host_url, guest_url, players)
            except asyncio.CancelledError:
                raise
            except HttpFailure as exc:
                self.rec.errors[f"http {exc}"] += 1
                await asyncio.sleep(1.0)
            except (OSError, TimeoutError) as exc:
                self.rec.errors["connect" if not isinstance(exc, TimeoutError) else "timeout"] \
                    += 1
                await asyncio.sleep(1.0)
            except Exception as exc:  # a refused handshake and the like
                self.rec.errors[type(exc).__name__] += 1
                await asyncio.sleep(1.0)

    async def owner_counters(self) -> dict[str, int] | None:
        """The match-owner counters of ``/healthz?verbose`` summed over the servers (None:
        a server without owners, or one that does not say)."""
        total: dict[str, int] = {"forwarded": 0, "handed_off": 0}
        for url in self.urls:
            try:
                r = await http(url, "GET", "/healthz?verbose=1")
            except Exception:
                return None
            pairs = dict(p.split("=", 1) for p in r.body.decode().split()[1:] if "=" in p)
            if r.status != 200 or not all(k in pairs for k in total):
                return None
            for key in total:
                total[key] += int(pairs[key])
        return total

    async def sample_forever(self) -> None:
        while True:
            self.sampler.sample()
            await asyncio.sleep(1.0)

    async def run(self, steps: Sequence[int], duration: float, warmup: float,
                  report: Any) -> list[StepResult]:
        results = []
        sampling = asyncio.create_task(self.sample_forever())
        try:
            for matches in steps:
                new = range(len(self.slots), matches)
                # New matches open over about one think time, not all at once, and at most
                # OPEN_RATE a second: a server creating hundreds of tables in one second
                # falls behind and chooses the late client seeds itself (`illegal` errors).
                spread = max(min(max(self.think, 1.0), 5.0), len(new) / OPEN_RATE)
                for i in new:
                    start = spread * (i - new.start) / max(1, len(new))
                    self.slots.append(asyncio.create_task(self.slot(i, start)))
                await asyncio.sleep(spread + warmup)
                # The load generator's own collection pauses would count as server latency
                # (its full collections took 100-560 ms at 450 matches): it collects before
                # the window and not during it; its garbage is mostly freed by reference
                # counting anyway. That collection holds every client at once, so the
                # players whose think time ran out meanwhile all act together when it ends
                # (at 1,000 matches ~530 actions within 0.1 s, p99 86 ms against 38 ms
                # without them): the window opens once the think times' jitter has spread
                # them out again.
                gc.collect()
                gc.freeze()
                gc.disable()
                await asyncio.sleep(SETTLE_THINKS * max(self.think, 0.1))
                self.rec.reset()
                self.rec.measuring = True
                self.sampler.reset()
                owners0 = await self.owner_counters()
                cpu0 = os.times()
                t0 = time.perf_counter()
                await asyncio.sleep(duration)
                elapsed = time.perf_counter() - t0
                cpu1 = os.times()
                self.rec.measuring = False
                gc.enable()
                gc.unfreeze()
                self.sampler.sample()
                client_cpu = 100.0 * ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) \
                    / elapsed
                result = StepResult.of(matches, elapsed, self.rec, self.sampler, client_cpu)
                owners1 = await self.owner_counters()
                if owners0 is not None and owners1 is not None:
                    result.forwarded = owners1["forwarded"] - owners0["forwarded"]
                    result.handed_off = owners1["handed_off"] - owners0["handed_off"]
                results.append(result)
                report(result)
        finally:
            self.stopping = True
            sampling.cancel()
            for task in self.slots:
                task.cancel()
            await asyncio.gather(sampling, *self.slots, return_exceptions=True)
        return results


@dataclass
class StepResult:
    """One step of the ramp (latencies in milliseconds)."""

    matches: int
    seconds: float
    actions: int
    opponent_samples: int
    actions_per_s: float
    actor_ms: dict[str, float]
    opponent_ms: dict[str, float]
    errors: int
    error_kinds: dict[str, int]
    matches_started: int
    matches_finished: int
    server_cpu_percent: float | None
    server_rss_mib: float | None
    server_processes: int
    client_cpu_percent: float
    #: Changes forwarded between processes and leases handed over during the step (match
    #: owners: several processes on Redis; None otherwise).
    forwarded: int | None = None
    handed_off: int | None = None
    #: Guests the server made for the bench's players during the step.
    new_guests: int = 0

    @classmethod
    def of(cls, matches: int, seconds: float, rec: Recorder, sampler: ProcessSampler,
           client_cpu: float) -> StepResult:
        def summary(values: list[float]) -> dict[str, float]:
            ordered = sorted(values)
            return {name: round(1000 * percentile(ordered, p), 2) for name, p in
                    (("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))}

        return cls(
            matches=matches, seconds=round(seconds, 2), actions=len(rec.actor),
            opponent_samples=len(rec.opponent),
            actions_per_s=round(len(rec.actor) / seconds, 1),
            actor_ms=summary(rec.actor), opponent_ms=summary(rec.opponent),
            errors=sum(rec.errors.values()), error_kinds=dict(rec.errors),
            matches_started=rec.matches_started, matches_finished=rec.matches_finished,
            new_guests=rec.new_guests,
            server_cpu_percent=(None if (cpu := sampler.cpu_percent()) is None
                                else round(cpu, 1)),
            server_rss_mib=round(sampler.max_rss_kib / 1024, 1) if sampler.pids else None,
            server_processes=sampler.processes,
            client_cpu_percent=round(client_cpu, 1),
        )


def _ms(value: float) -> str:
    return "-" if value != value else f"{value:.1f}"  # NaN: no samples


HEADER = (f"{'matches':>7} {'actions':>7} {'act/s':>6} {'errors':>6}  "
          f"{'actor p50':>9} {'p95':>6} {'p99':>6} {'max':>6}  "
          f"{'opp. p50':>8} {'p95':>6} {'p99':>6} {'max':>6}  "
          f"{'CPU':>5} {'RSS MiB':>7} {'bench CPU':>9}")


def row(r: StepResult) -> str:
    cpu = "-" if r.server_cpu_percent is None else f"{r.server_cpu_percent:.0f}%"
    rss = "-" if r.server_rss_mib is None else f"{r.server_rss_mib:.0f}"
    a, o = r.actor_ms, r.opponent_ms
    line = (f"{r.matches:>7} {r.actions:>7} {r.actions_per_s:>6.1f} {r.errors:>6}  "
            f"{_ms(a['p50']):>9} {_ms(a['p95']):>6} {_ms(a['p99']):>6} {_ms(a['max']):>6}  "
            f"{_ms(o['p50']):>8} {_ms(o['p95']):>6} {_ms(o['p99']):>6} {_ms(o['max']):>6}  "
            f"{cpu:>5} {rss:>7} {r.client_cpu_percent:>8.0f}%")
    if r.error_kinds:
        line += "  (" + ", ".join(f"{k} {v}" for k, v in sorted(r.error_kinds.items())) + ")"
    if r.forwarded is not None:
        line += f"  [forwarded {r.forwarded}, handed over {r.handed_off}]"
    return line


def headline(label: str, results: Sequence[StepResult], slo_ms: float) -> str:
    """The headline: the largest step with p99 action→opponent ≤ ``slo_ms`` and no errors."""
    good = [r for r in results if r.actions and r.errors == 0
            and r.opponent_ms["p99"] <= slo_ms]
    if not good:
        tried = ", ".join(str(r.matches) for r in results) or "no"
        return (f"headline: {label}: none of {tried} matches kept p99 action→opponent "
                f"≤ {slo_ms:g} ms with no errors")
    best = max(good, key=lambda r: r.matches)
    cpu = "" if best.server_cpu_percent is None else f", CPU {best.server_cpu_percent:.0f}%"
    rss = "" if best.server_rss_mib is None else f", RSS {best.server_rss_mib:.0f} MiB"
    return (f"headline: {label}: {best.matches} matches, p99 action→opponent "
            f"{best.opponent_ms['p99']:.1f} ms, {best.actions_per_s:.0f} actions/s, "
            f"{best.errors} errors{cpu}{rss}")


# ---------------------------------------------------------------------------------------------
# Servers the bench starts itself


def nginx_chash(key: str, urls: Sequence[str]) -> str:
    """The URL among ``urls`` that nginx's ``hash <key> consistent;`` picks for ``key`` when
    the upstream lists them as ``server <host:port>;`` (:class:`kva.settings.routing.HashRing`)."""
    servers = [urlsplit(url).netloc for url in urls]
    return urls[servers.index(HashRing(servers).server_of(key))]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url + "/healthz", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


async def _pg_admin(url: str, statement: str) -> None:
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    u = make_url(url)
    conn = await asyncpg.connect(user=u.username, password=u.password,
                                 host=u.host or "127.0.0.1", port=u.port or 5432,
                                 database=u.database or "postgres")
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@dataclass
class Started:
    urls: list[str]
    pids: list[int]
    label: str


@contextlib.contextmanager
def started_servers(count: int, db: str, pg_url: str, redis_url: str, forced_delay: float,
                    pin: set[int] | None, log_level: str,
                    limits: dict[str, str] | None = None,
                    redis_alone: bool = False, routed_ids: bool = True,
                    cpu_share: float | None = None) -> Iterator[Started]:
    """``count`` ``kva serve`` processes on free ports sharing one fresh database (and the
    Redis broker when there are several, or ``redis_alone``). With several and ``routed_ids``,
    each knows the others as nginx's upstreams would list them (``KVA_UPSTREAMS``), so the
    matches it creates get ids that the hash sends back to it (docs/deployment.md). With
    ``cpu_share``, each process may use at most that share of one CPU
    (:mod:`tools.bench.cpu_quota`).

    ``limits`` are the environment variables that replace :data:`GENEROUS_LIMITS` (``{}``:
    production's defaults, apart from what the caller's environment sets)."""
    from sqlalchemy.engine import make_url

    workdir = Path(tempfile.mkdtemp(prefix="kva-bench-"))
    pg_name = None
    processes: list[subprocess.Popen[bytes]] = []
    quotas: list[CpuQuota] = []
    try:
        if db == "postgres":
            pg_name = f"kva_bench_{secrets.token_hex(6)}"
            asyncio.run(_pg_admin(pg_url, f'CREATE DATABASE "{pg_name}"'))
            database_url = make_url(pg_url).set(database=pg_name).render_as_string(
                hide_password=False)
        else:
            database_url = f"sqlite+aiosqlite:///{workdir / 'kva.sqlite3'}"
        env = {**os.environ, **(GENEROUS_LIMITS if limits is None else limits),
               "KVA_DATABASE_URL": database_url, "KVA_DATA_DIR": str(workdir),
               "KVA_SECRET_KEY": secrets.token_urlsafe(32),
               "KVA_FORCED_DELAY": f"{forced_delay:g}"}
        if count > 1 or redis_alone:
            env["KVA_BROKER_URL"] = redis_url
        else:
            env.pop("KVA_BROKER_URL", None)
        urls = []

        def pin_me() -> None:
            if pin:
                os.sched_setaffinity(0, pin)

        ports = [free_port() for _ in range(count)]
        env.pop("KVA_UPSTREAMS", None)
        env.pop("KVA_UPSTREAM_SELF", None)
        if count > 1 and routed_ids:
            env["KVA_UPSTREAMS"] = ",".join(f"127.0.0.1:{p}" for p in ports)
        for i, port in enumerate(ports):  # one after another: each applies the migrations
            url = f"http://127.0.0.1:{port}"
            log = (workdir / f"server-{i}.log").open("wb")
            cmd = [sys.executable, "-m", "kva", "serve", "--host", "127.0.0.1", "--port",
                   str(port), "--log-level", log_level]
            if "KVA_UPSTREAMS" in env:
                env["KVA_UPSTREAM_SELF"] = f"127.0.0.1:{port}"
            proc = subprocess.Popen(cmd, env=dict(env), stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=pin_me if pin else None)
            log.close()
            processes.append(proc)
            if cpu_share is not None:
                quotas.append(limit_share(process_share_name(proc.pid), cpu_share))
                quotas[-1].add(proc.pid)
            deadline = time.monotonic() + 60
            while not _healthy(url):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = (workdir / f"server-{i}.log").read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"kva serve did not become healthy:\n{tail}")
                time.sleep(0.2)
            urls.append(url)
        kind = "sqlite" if db == "sqlite" else "postgres"
        label = f"{kind} {count} process" + ("es" if count > 1 else "") + (
            " on redis" if count > 1 or redis_alone else "") + (
            f", {cpu_share:g} CPU each" if cpu_share is not None else "")
        yield Started(urls, [p.pid for p in processes], label)
    finally:
        for proc in processes:
            proc.terminate()
        for proc in processes:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for quota in quotas:
            quota.remove()
        if pg_name is not None:
            with contextlib.suppress(Exception):
                asyncio.run(_pg_admin(pg_url, f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)'))
        shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The command


def _cpus(text: str | None) -> set[int] | None:
    """``"0"``, ``"0,1"`` or ``"0-3"`` as a set of CPU numbers."""
    if not text:
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def _share(text: str) -> float:
    try:
        share = float(text)
    except ValueError:
        share = 0.0
    if not 0 < share <= 64:
        raise argparse.ArgumentTypeError("--cpu-share takes a share of one CPU, like 0.5")
    return share


def _steps(text: str) -> list[int]:
    steps = [int(s) for s in text.split(",") if s.strip()]
    if not steps or any(s < 1 for s in steps):
        raise argparse.ArgumentTypeError("--matches takes counts like 50,100,200")
    return sorted(steps)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the bench as Ctrl-C does (``KeyboardInterrupt``, exit 130): the servers
    it started are stopped and its database dropped on the way out, not left running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace) -> int:
    """Start (or reach) the servers, run the ramp, print the table and the headline."""
    with _terminate_as_interrupt():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    urls = [u.strip().rstrip("/") for item in args.url or [] for u in item.split(",")
            if u.strip()]
    if urls and args.start:
        print("kva bench server: give --url or --start, not both", file=sys.stderr)
        return 2
    if urls and args.cpu_share is not None:
        print("kva bench server: --cpu-share limits the servers the bench starts, not --url",
              file=sys.stderr)
        return 2
    steps = args.matches
    with contextlib.ExitStack() as stack:
        trace: TextIO | None = None
        if args.trace:
            try:
                trace = stack.enter_context(open(args.trace, "w", encoding="utf-8"))
            except OSError as exc:
                print(f"kva bench server: cannot write --trace {args.trace}: {exc.strerror}",
                      file=sys.stderr)
                return 2
        if urls:
            down = [u for u in urls if not _healthy(u)]
            if down:
                print(f"kva bench server: no kva server answers /healthz at {', '.join(down)}",
                      file=sys.stderr)
                return 1
            label = args.label or f"{len(urls)} server{'s' if len(urls) > 1 else ''} at --url"
            pids = list(args.pid or [])
        else:
            try:
                started = stack.enter_context(started_servers(
                    args.start or 1, args.db, args.pg_url, args.redis_url, args.forced_delay,
                    _cpus(args.pin_server), args.server_log_level,
                    redis_alone=args.broker == "redis", routed_ids=not args.plain_ids,
                    cpu_share=args.cpu_share))
            except CpuQuotaError as exc:
                print(f"kva bench server: --cpu-share: {exc}", file=sys.stderr)
                return 1
            urls, pids, label = started.urls, started.pids, args.label or started.label
        client_cpus = _cpus(args.pin_client)
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)
        if len(urls) > 1:
            label += f", spread by {args.spread}"
        if args.players == "returning":
            label += ", returning players"
        if args.game == "kozel":
            label += f", Kozel at {args.seats} seats"
        print(f"kva bench server: {label}; {', '.join(urls)}; steps {steps} matches, "
              f"{args.duration:g} s each after {args.warmup:g} s warm-up; think "
              f"{args.think:g} s ±{args.jitter * 100:.0f}%; "
              + (f"target {args.target}" if args.game == "georgian" else "fish rule all")
              + ("" if args.url else f"; forced delay {args.forced_delay:g} s"), flush=True)
        print(HEADER, flush=True)
        bench = Bench(urls, args.think, args.jitter, args.target, ProcessSampler(pids),
                      args.seed, args.spread, returning=args.players == "returning",
                      game=args.game, seats=args.seats)
        bench.rec.trace = trace
        results = asyncio.run(bench.run(steps, args.duration, args.warmup,
                                        lambda r: print(row(r), flush=True)))
    line = headline(label, results, args.slo_ms)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "label": label, "urls": urls, "think": args.think, "jitter": args.jitter,
            "target": args.target, "duration": args.duration, "warmup": args.warmup,
            "forced_delay": None if args.url else args.forced_delay, "slo_ms": args.slo_ms,
            "steps": [asdict(r) for r in results], "headline": line,
        }, indent=2, ensure_ascii=False) + "\n")
    print(line, flush=True)
    return 0


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of this benchmark, for ``prog`` (``kva bench server`` or the module)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Ramp live friend matches between WebSocket clients against kva serve "
                    "processes and print action latencies, actions/s, errors, server CPU and "
                    "RSS per step; the last line is the headline (docs/performance.md).")
    where = p.add_argument_group("servers")
    where.add_argument("--url", action="append", metavar="URL",
                       help="a running server (repeat or comma-separate for several "
                            "processes: the two players of a match use different ones)")
    where.add_argument("--pid", action="append", type=int, metavar="PID",
                       help="with --url: a server process whose CPU and RSS to report")
    where.add_argument("--start", type=int, metavar="N",
                       help="start N kva serve processes (default 1 without --url)")
    where.add_argument("--spread", choices=["match", "player"], default="match",
                       help="with several servers: both players of a match on the process "
                            "nginx's hash of its id picks (match: docs/deployment.md), or "
                            "each on another (player: round robin)")
    where.add_argument("--plain-ids", action="store_true",
                       help="several started servers do not know each other as nginx's "
                            "upstreams (KVA_UPSTREAMS): new matches get plain random ids and "
                            "are handed over to the process their sockets land on")
    where.add_argument("--broker", choices=["auto", "redis"], default="auto",
                       help="auto: Redis with several started servers, in memory with one; "
                            "redis: one started server on Redis too (match owners on), to "
                            "tell what Redis costs from what a second process costs")
    where.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite",
                       help="database of started servers: a fresh SQLite file, or a fresh "
                            "PostgreSQL database dropped afterwards")
    where.add_argument("--pg-url", default=DEFAULT_PG,
                       help=f"PostgreSQL server for --db postgres (default {DEFAULT_PG})")
    where.add_argument("--redis-url", default=DEFAULT_REDIS,
                       help=f"broker of several started processes (default {DEFAULT_REDIS})")
    where.add_argument("--forced-delay", type=float, default=0.6,
                       help="KVA_FORCED_DELAY of started servers (default 0.6, production's)")
    where.add_argument("--cpu-share", type=_share, metavar="F",
                       help="each started server may use at most F of one CPU (a cgroup "
                            "of its own with a CPU quota; needs root): two processes at 0.5 "
                            "on one core against one at 0.5 show on a 2-core machine what "
                            "two cores do against one")
    where.add_argument("--server-log-level", default="warning",
                       choices=["critical", "error", "warning", "info", "debug"])
    load = p.add_argument_group("load")
    load.add_argument("--matches", type=_steps, default=[50, 100, 200], metavar="N,N,...",
                      help="live matches per step of the ramp (default 50,100,200)")
    load.add_argument("--think", type=float, default=1.0,
                      help="seconds from a player's turn to its action (default 1.0)")
    load.add_argument("--jitter", type=float, default=0.5,
                      help="think time varies uniformly by ± this fraction (default 0.5)")
    load.add_argument("--duration", type=float, default=30.0, help="seconds measured per step")
    load.add_argument("--warmup", type=float, default=5.0,
                      help="seconds after a step's new matches open before measuring")
    load.add_argument("--game", choices=["georgian", "kozel"], default="georgian",
                      help="the game of every table (default georgian)")
    load.add_argument("--seats", type=int, default=4, choices=[2, 3, 4],
                      help="players at each Kozel table (default 4; Georgian has 2)")
    load.add_argument("--target", type=int, default=75, choices=[75, 175, 255, 355],
                      help="match target (default 75: short matches, so tables keep opening)")
    load.add_argument("--players", choices=["new", "returning"], default="new",
                      help="each match between two new guests (default), or a slot's two "
                           "players keep their sessions from match to match")
    load.add_argument("--seed", type=int, default=None, help="seed of the players' choices")
    load.add_argument("--pin-server", metavar="CPUS", help="CPUs of started servers (0,1 or 0-1)")
    load.add_argument("--pin-client", metavar="CPUS", help="CPUs of the bench itself")
    out = p.add_argument_group("output")
    out.add_argument("--slo-ms", type=float, default=50.0,
                     help="p99 action→opponent a step must keep for the headline (default 50)")
    out.add_argument("--label", help="what the headline calls the servers")
    out.add_argument("--json", metavar="FILE", help="write every step's figures as JSON")
    out.add_argument("--trace", metavar="FILE",
                     help="write every action→opponent sample as it comes: the action's send "
                          "time (s, monotonic clock), its latency (ms), m (measured) or w "
                          "(warm-up); bursts of slow actions sent close together are a stall")
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python -m tools.bench.server") -> int:
    """Run the benchmark with ``argv`` (the process's arguments when None); the exit status."""
    return run_command(build_parser(prog), run, argv)


if __name__ == "__main__":
    sys.exit(main())
