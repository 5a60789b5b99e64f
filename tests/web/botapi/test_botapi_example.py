"""examples/bot_client.py, run as its own process against a real ``kva serve``: it accepts a
person's challenge and plays the whole match against them (a WebSocket client), then plays a
whole match against another copy of itself that challenged it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kva.rules import verify_record
from tests.helpers.accounts_help import registered
from tests.helpers.servers import Server, serving
from tests.helpers.webhelp import play_out
from tests.web.botapi.botapi_help import new_bot

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "examples" / "bot_client.py"


@pytest.fixture
def kva_serve(tmp_path: Path, pg_database: str | None) -> Iterator[Server]:
    env = {**os.environ, "KVA_SECRET_KEY": "botapi-example-secret-0123456789abcdef",
           "KVA_FORCED_DELAY": "0", "KVA_BOT_DELAY": "0", "KVA_BROKER_URL": "",
           "KVA_SEED_WAIT": "0.2", "KVA_LOGIN_RATE_IP": "1000/minute",
           "KVA_REGISTER_RATE_IP": "1000/minute", "PYTHONUNBUFFERED": "1",
           # the test's person plays as fast as the bot answers: no per-socket rate limit
           "KVA_WS_RATE": "1000", "KVA_WS_BURST": "1000", "KVA_WS_FLOOD": "100000",
           "KVA_DATA_DIR": str(tmp_path / "var"),
           "KVA_DATABASE_URL": pg_database or f"sqlite+aiosqlite:///{tmp_path / 'kva.db'}"}
    with serving(env, tmp_path / "server.log") as srv:
        yield srv


def client(srv: Server, token: str, *args: str, log: Path) -> subprocess.Popen[bytes]:
    """The example bot as a separate process, with nothing but the standard library."""
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-I", str(CLIENT), "--url", srv.base_url,
                                 "--token", token, *args], stdout=out, stderr=subprocess.STDOUT,
                                cwd="/")


async def wait_exit(proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while proc.poll() is None:
        if loop.time() > deadline:
            proc.kill()
            raise AssertionError(f"bot client still running:\n{log.read_text()[-3000:]}")
        await asyncio.sleep(0.1)
    assert proc.returncode == 0, log.read_text()[-3000:]


async def test_example_client_plays_a_person_and_another_bot(kva_serve: Server,
                                                             tmp_path: Path) -> None:
    url = kva_serve.base_url
    owner_a, bot_a, token_a = await new_bot(url)
    owner_b, _bot_b, token_b = await new_bot(url)
    log_a, log_b = tmp_path / "bot_a.log", tmp_path / "bot_b.log"
    proc_a = client(kva_serve, token_a, "--matches", "2", log=log_a)
    try:
        # A person challenges the bot from the Bots page and waits on the challenge page.
        person, _name = await registered(url, "h")
        r = await person.http.post(f"/bots/{bot_a}/challenge", data={"target": "75",
                                                                     "rated": "1"})
        assert r.status_code == 303, r.text
        waiting = r.headers["location"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:
            r = await person.http.get(waiting)
            if r.status_code == 303:
                break
            assert loop.time() < deadline, f"not accepted:\n{log_a.read_text()}"
            await asyncio.sleep(0.2)
        match_id = r.headers["location"].rsplit("/", 1)[1]
        sock = await person.connect(match_id)
        await play_out([sock], budget=180)
        assert sock.state["view"]["over"]
        await sock.close()
        # Another copy of the client challenges the first one: a casual bot-against-bot match.
        proc_b = client(kva_serve, token_b, "--challenge", bot_a, "--matches", "1",
                        "--no-accept", log=log_b)
        await wait_exit(proc_b, log_b, 180)
        await wait_exit(proc_a, log_a, 60)
    finally:
        if proc_a.poll() is None:
            proc_a.kill()
    records = (await owner_a.http.get(f"/u/{bot_a}/records.json")).json()
    assert len(records) == 2, records
    for record in records:
        verify_record(record)
    rated = sorted(bool(r.get("rated", r.get("meta", {}).get("rated"))) for r in records)
    assert rated == [False, True], [r.get("meta") for r in records]
    for v in (owner_a, owner_b, person):
        await v.__aexit__()
