"""kill -9 one of two ``kva serve`` processes (one PostgreSQL database, one Redis) while matches
are being played, their players spread over both: every match the killed process owned is
taken over by the other once its lease runs out, the clients whose sockets died reconnect to
the survivor and play on, and every match ends with a record that verifies, one journal row per
version and each move applied once (issue 14: nothing lost)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from kva.rules import verify_record
from kva.storage.db import create_engine
from tests.multiproc.multiproc_help import RoutedSocket, ServeProcess

#: Matches played at once (half created on each process; each has a player on each).
MATCHES = 4
#: Moves every match makes before the kill.
BEFORE_KILL = 6


class Player:
    """A browser: its guest session, the process it prefers, and a socket that reconnects (to
    a live process, with backoff) like kva/web/static/socket.js."""

    def __init__(self, cookie: str, home: ServeProcess, servers: list[ServeProcess]) -> None:
        self.cookie = cookie
        self.home = home
        self.servers = servers
        self.sock: RoutedSocket | None = None
        self.reconnects = 0
        self.versions: list[int] = []  # every state version received, in order
        self.errors: list[str] = []

    def _server(self) -> ServeProcess:
        if self.home.process is not None and self.home.process.poll() is None:
            return self.home
        return next(s for s in self.servers
                    if s.process is not None and s.process.poll() is None)

    async def connect(self, match_id: str) -> RoutedSocket:
        delay = 0.1
        while True:
            url = self._server().base_url.replace("http://", "ws://") + f"/ws/m/{match_id}"
            try:
                sock = await RoutedSocket(url, {"Cookie": f"kva_session={self.cookie}"}).open()
                await sock.send({"type": "hello", "version": 0})
                await sock.wait_for(lambda m: m.get("type") == "state", 20)
                self.sock = sock
                return sock
            except (OSError, AssertionError, Exception):
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    def latest(self) -> dict[str, Any]:
        assert self.sock is not None
        return self.sock.state


async def _guest(server: ServeProcess) -> str:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        assert (await client.get("/quick", params={"target": "75"})).status_code == 200
        return str(client.cookies["kva_session"])


async def _friend_match(host: str, guest: str, created: ServeProcess,
                        joined: ServeProcess) -> str:
    """A closed table opened on ``created`` and joined through ``joined``."""
    async with httpx.AsyncClient(base_url=created.base_url,
                                 cookies={"kva_session": host}) as client:
        r = await client.post("/matches", data={"opponent": "friend", "target": "75",
                                                "bazaar": "draw", "password": ""})
        assert r.status_code == 303, r.text[:300]
        found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
        assert found
        match_id = found.group(1)
        page = await client.get(f"/m/{match_id}")
        token = re.search(r'/t/([A-Za-z0-9_-]+)" data-testid="share-link"', page.text)
        assert token
    async with httpx.AsyncClient(base_url=joined.base_url,
                                 cookies={"kva_session": guest}) as client:
        assert (await client.get(f"/t/{token.group(1)}")).status_code == 303
    return match_id


def _playable(state: dict[str, Any]) -> bool:
    view = state["view"]
    return (state["status"] == "active" and not view["over"] and view["turn"] == state["you"]
            and any(a["type"] == "play" for a in view["legal"]))


async def _play(match_id: str, players: list[Player], moved: list[int], rng: random.Random,
                done: asyncio.Event) -> dict[str, Any]:
    """Play ``match_id`` to its end; returns the final state. ``moved[0]`` counts the moves
    this loop made."""
    for p in players:
        await p.connect(match_id)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for p in players:
            assert p.sock is not None
            if p.sock.closed:  # its process died: reconnect to a live one, say hello
                p.reconnects += 1
                await p.connect(match_id)
        states = [p.latest() for p in players]
        if any(s["view"]["over"] for s in states):
            done.set()
            return max(states, key=lambda s: s["version"])
        movers = [p for p in players if _playable(p.latest())]
        if not movers:
            await asyncio.sleep(0.02)
            continue
        await asyncio.sleep(0.1)  # a player's think time (sockets allow 10 frames/s)
        mover = movers[0]
        state = mover.latest()
        assert mover.sock is not None
        sock = mover.sock
        start = len(sock.messages)
        with contextlib.suppress(Exception):
            await sock.send({"type": "action", "version": state["version"],
                             "action": rng.choice([a for a in state["view"]["legal"]
                                                   if a["type"] == "play"])})
        with contextlib.suppress(AssertionError):  # a closed socket reconnects above
            reply = await sock.wait_for(
                lambda m, v=state["version"], n=start, got=sock.messages: any(
                    x is m for x in got[n:]) and (
                    (m.get("type") == "state" and m["version"] > v) or m.get("type") == "error"),
                20)
            if reply.get("type") == "error":
                mover.errors.append(reply["code"])
                await sock.send({"type": "hello", "version": state["version"]})
                await asyncio.sleep(0.05)
            else:
                moved[0] += 1
    raise AssertionError(f"match {match_id} did not end in time: " + "; ".join(
        f"{p.home.port}: v{p.latest()['version']} turn {p.latest()['view']['turn']} you "
        f"{p.latest()['you']} legal {p.latest()['view']['legal']} errors {p.errors}"
        for p in players))


async def _stored(url: str, match_id: str) -> tuple[dict[str, Any], int, list[tuple[int, str]]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            row = (await conn.execute(text(
                "SELECT record, version, status FROM matches WHERE id = :id"),
                {"id": match_id})).one()
            journal = [(int(r[0]), str(r[1])) for r in await conn.execute(text(
                "SELECT seq, change FROM match_actions WHERE match_id = :id ORDER BY seq"),
                {"id": match_id})]
    finally:
        await engine.dispose()
    assert row[2] == "finished", row[2]
    record = row[0] if isinstance(row[0], dict) else json.loads(row[0])
    return record, int(row[1]), journal


async def test_kill_9_one_process_its_matches_continue_on_the_other(
    serve_env: dict[str, str], tmp_path: Path
) -> None:
    # (tables are opened from one address, as the other multi-process tests do: the limit on
    # table creation per address, shared in Redis, is not what this test is about)
    env = {**serve_env, "KVA_FORCED_DELAY": "0", "KVA_DISCONNECT_GRACE": "120",
           "KVA_TABLE_CREATE_RATE_IP": "1000000/minute"}
    a = ServeProcess(env, tmp_path / "a.log").start()
    b = ServeProcess(env, tmp_path / "b.log").start()
    servers = [a, b]
    tasks: list[asyncio.Task[dict[str, Any]]] = []
    try:
        games: list[tuple[str, list[Player]]] = []
        for i in range(MATCHES):
            created, other = (a, b) if i % 2 == 0 else (b, a)
            host, guest = await _guest(created), await _guest(other)
            match_id = await _friend_match(host, guest, created, other)
            games.append((match_id, [Player(host, created, servers),
                                     Player(guest, other, servers)]))
        counts = [[0] for _ in games]
        dones = [asyncio.Event() for _ in games]
        tasks = [asyncio.create_task(_play(mid, players, counts[i], random.Random(i), dones[i]))
                 for i, (mid, players) in enumerate(games)]
        deadline = time.monotonic() + 60
        while min(c[0] for c in counts) < BEFORE_KILL and time.monotonic() < deadline:
            if any(t.done() for t in tasks):
                break
            await asyncio.sleep(0.05)
        assert a.process is not None
        a.process.kill()  # under load: no release, no goodbye
        a.process.wait(timeout=10)
        killed = time.monotonic()
        finals = await asyncio.wait_for(asyncio.gather(*tasks), 300)
        print(f"\nall {MATCHES} matches ended {time.monotonic() - killed:.1f} s after the kill; "
              f"moves by clients {[c[0] for c in counts]}; reconnects "
              f"{[[p.reconnects for p in players] for _m, players in games]}; errors "
              f"{[[p.errors for p in players] for _m, players in games]}")
        for (match_id, players), final in zip(games, finals, strict=True):
            # the players of process a reconnected to b and played on
            assert any(p.reconnects for p in players if p.home is a)
            record, version, journal = await _stored(env["KVA_DATABASE_URL"], match_id)
            verify_record(record)
            # one journal row per version after the first: nothing lost, nothing twice
            assert [seq for seq, _c in journal] == list(range(2, version + 1))
            moves = sum(len(hand["moves"]) for hand in record["hands"])
            assert moves == sum(1 for _s, change in journal if '"m"' in change)
            assert final["version"] == version
            for p in players:  # no client was sent one version twice on one socket
                assert p.sock is not None
                seen = [m["version"] for m in p.sock.messages if m.get("type") == "state"]
                assert seen == sorted(set(seen)) or len(seen) == len(set(seen)) + 1
                assert set(p.errors) <= {"stale"}, p.errors
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t
        a.stop()
        b.stop()
