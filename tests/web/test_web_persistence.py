"""Durability: ``kva serve`` killed with SIGKILL mid-hand comes back exactly where it was,
bot turns included, and the time it was down is not charged to the player on turn. The real
command in a subprocess, on a temporary SQLite file."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from kva.service.play.liveness import INTERVAL_S
from kva.web.services import services
from tests.helpers.webhelp import SECRET, ServerThread, Visitor, free_port, play_out

ROOT = Path(__file__).resolve().parents[2]


class ServeProcess:
    """``python -m kva serve`` on a free port, startable again on the same database."""

    def __init__(self, tmp: Path, database_url: str) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.database_url = database_url
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tmp / "serve.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, bot_delay: float = 0.0) -> None:
        env = {**os.environ, "KVA_DATABASE_URL": self.database_url, "KVA_SECRET_KEY": SECRET,
               "KVA_FORCED_DELAY": "0", "KVA_BOT_DELAY": str(bot_delay), "KVA_SEED_WAIT": "0",
               "KVA_DATA_DIR": str(self.tmp / "var"), "KVA_BROKER_URL": "",
               "KVA_WS_RATE": "1000000", "KVA_WS_BURST": "1000000"}  # tests play at full speed
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kva", "serve", "--port", str(self.port)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(self.base_url + "/healthz", timeout=1).text == "ok":
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, self.log.read_text()[-3000:]
            time.sleep(0.1)

    def kill9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def serve(tmp_path: Path, database_url: str) -> Iterator[ServeProcess]:
    proc = ServeProcess(tmp_path, database_url)
    yield proc
    proc.stop()


def _same_position(before: dict, after: dict) -> None:
    assert after["version"] == before["version"]
    assert after["view"] == before["view"]
    assert after["status"] == before["status"]
    assert after["players"] == before["players"]


async def test_kill_9_mid_hand_and_continue(serve: ServeProcess) -> None:
    serve.start()
    async with Visitor(serve.base_url) as me:
        match_id = await me.new_match("bot:normal", target=175)
        sock = await me.connect(match_id)
        for _ in range(3):  # some moves of my own (the bot answers each)
            while not sock.my_turn():
                await sock.wait_state(sock.state["version"] + 1)
            reply = await sock.play_first_legal()
            assert reply["type"] == "state"
            await asyncio.sleep(0.05)  # let the bot's answer arrive
        while not sock.my_turn():
            await sock.wait_state(sock.state["version"] + 1)
        before = sock.state
        assert before["view"]["moves"], "mid-hand: tiles are on the board"
        serve.kill9()
        await sock.wait_closed()  # the client sees the connection drop
        serve.start()
        again = await me.connect(match_id)
        _same_position(before, again.state)
        # ... and it goes on from there, to the very end.
        await play_out([again], budget=120)
        assert again.state["view"]["over"]
        record = await me.http.get(f"/m/{match_id}/record.json")
        assert record.status_code == 200
        from kva.rules import verify_record
        verify_record(record.json())
        await again.close()


async def test_a_bot_turn_interrupted_by_kill_9_is_played_after_restart(
    serve: ServeProcess,
) -> None:
    serve.start(bot_delay=30.0)  # the bot is "thinking" when the server dies
    async with Visitor(serve.base_url) as me:
        match_id = await me.new_match("bot:easy", target=75)
        sock = await me.connect(match_id)
        if not sock.my_turn():  # the bot opens: it waits 30 s; kill now
            waiting = sock.state
        else:
            reply = await sock.play_first_legal()
            assert reply["type"] == "state"
            waiting = reply
        assert waiting["view"]["turn"] == 1 - waiting["you"]
        serve.kill9()
        serve.start(bot_delay=0.0)
        again = await me.connect(match_id)
        moved = await again.wait_state(waiting["version"] + 1, timeout=15)
        assert moved["view"]["turn"] == moved["you"] or moved["view"]["over"] or any(
            m["p"] == 1 - moved["you"] for m in moved["view"]["moves"])
        # the state that was stored before the kill is the one the bot moved from
        assert moved["version"] > waiting["version"]
        await again.close()


async def test_matches_beyond_the_memory_cache_reload_from_the_database(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server()
    play = services(server.app).play
    play.cache_size = 2
    async with Visitor(server.base_url) as me:
        ids = [await me.new_match("friend") for _ in range(4)]
        live = play._live
        assert len(live) <= 2  # the oldest were dropped from memory...
        for match_id in ids:  # ...and each is still there, from the database
            sock = await me.connect(match_id)
            assert sock.state["status"] == "waiting" and sock.state["you"] == 0
            await sock.close()


async def test_a_server_killed_and_down_past_the_turn_gives_the_player_on_turn_it_back(
    serve: ServeProcess, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 8 s in all for a turn: the test waits out an outage longer than the turn and then the
    # flag, so a short turn is its time; 8 s still leaves a loaded machine's restart (which
    # must load the match before the turn runs out) well inside it
    monkeypatch.setenv("KVA_CLOCK_PRESETS", "blitz=4+4")
    serve.start()
    async with Visitor(serve.base_url) as me:
        r = await me.http.post("/matches", data={"opponent": "bot:easy", "target": "75",
                                                 "bazaar": "draw", "clock": "blitz"})
        assert r.status_code == 303
        match_id = r.headers["location"].rsplit("/", 1)[1]
        sock = await me.connect(match_id)
        while (sock.state["clock"] or {}).get("seat") != sock.state["you"]:
            await sock.wait_state(sock.state["version"] + 1)
        before, seen = sock.state, time.monotonic()
        assert before["clock"]["preset"] == "blitz" and before["clock"]["per_move"] == 4
        serve.kill9()  # about 8 s left for the player on turn
        served_ms = 1000 * (time.monotonic() - seen)
        await sock.wait_closed()
        await asyncio.sleep(10)  # down longer than the whole turn
        restarted = time.monotonic()
        serve.start()
        again = await me.connect(match_id)
        served_ms += 1000 * (time.monotonic() - restarted)  # at most: it loads it on start
        clock = again.state["clock"]
        assert again.state["version"] == before["version"] and clock["seat"] == before["you"]
        # the outage is given back: what is left is what there was, less the time a process
        # served the match and at most one liveness interval (the process died up to that
        # long after it last said it lived)
        left = before["clock"]["running_ms"]
        least = left - served_ms - INTERVAL_S * 1000 - 300
        assert least <= clock["running_ms"] <= left, (clock, left, least)
        # nobody moves: the restarted server flags the player when that time runs out
        end = await again.wait_state(before["version"] + 1, timeout=15)
        assert end["status"] == "finished" and end["clock"]["flagged"] == before["you"]
        assert end["view"]["winner"] == 1 - before["you"]
        await again.close()
