"""Domino Coin under faults: ``kva serve`` killed with SIGKILL between (and during) the steps
of a coin match: the table opened, the second player sitting down (the stakes move), moves
mid-hand, the final move (the escrow is paid). After each restart the audit passes, no escrow
is stranded and nothing is paid twice; the match ends with the winner up by the stake.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from sqlalchemy import func, select

from kva.storage.ledger import CoinAccount, CoinEntry
from kva.storage.models import MatchRow, User
from tests.helpers.accounts_help import registered
from tests.helpers.coins_help import run_audit
from tests.helpers.webhelp import SECRET, Socket, free_port

ROOT = Path(__file__).resolve().parents[2]


class Serve:
    def __init__(self, tmp: Path, database_url: str) -> None:
        self.tmp, self.database_url, self.port = tmp, database_url, free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tmp / "serve.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "KVA_DATABASE_URL": self.database_url, "KVA_SECRET_KEY": SECRET,
               "KVA_FORCED_DELAY": "0", "KVA_BOT_DELAY": "0", "KVA_SEED_WAIT": "0",
               "KVA_DATA_DIR": str(self.tmp / "var"), "KVA_BROKER_URL": "",
               "KVA_WS_RATE": "1000000", "KVA_WS_BURST": "1000000",
               "KVA_REGISTER_RATE_IP": "1000/minute", "KVA_LOGIN_RATE_IP": "1000/minute"}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kva", "serve", "--port", str(self.port)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 40
        while True:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base_url + "/healthz", timeout=1).text == "ok":
                    return
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


async def _crash_during(serve: Serve, request: object, delay: float) -> None:
    """Start ``request`` (an awaitable), SIGKILL the server ``delay`` s later, restart it."""
    task = asyncio.ensure_future(request)  # type: ignore[arg-type]
    await asyncio.sleep(delay)
    serve.kill9()
    with contextlib.suppress(Exception):
        await task
    serve.start()


async def _ledger(sessions, match_id: str, ids: list[int]) -> tuple[list[int], int, int, str]:  # type: ignore[no-untyped-def]
    """Both wallets, the escrow, the number of payouts and the match status, as stored."""
    report = await run_audit(sessions)
    assert report.ok, report.problems
    async with sessions() as session:
        wallets = [int(await session.scalar(select(CoinAccount.balance).where(
            CoinAccount.user_id == uid)) or 0) for uid in ids]
        escrow = int(await session.scalar(select(CoinAccount.balance).where(
            CoinAccount.match_id == match_id)) or 0)
        payouts = int(await session.scalar(select(func.count()).select_from(CoinEntry).where(
            CoinEntry.match_id == match_id, CoinEntry.kind == "payout")) or 0)
        status = str(await session.scalar(select(MatchRow.status).where(
            MatchRow.id == match_id)))
    return wallets, escrow, payouts, status


async def test_kill_9_between_and_during_every_step_of_a_coin_match(
        tmp_path: Path, database_url: str, sessions) -> None:  # type: ignore[no-untyped-def]
    serve = Serve(tmp_path, database_url)
    serve.start()
    try:
        host, host_name = await registered(serve.base_url, "gela")
        guest, guest_name = await registered(serve.base_url, "tako")
        async with sessions() as session:
            ids = [int(await session.scalar(select(User.id).where(User.nickname == n)))  # type: ignore[arg-type]
                   for n in (host_name, guest_name)]
        for v in (host, guest):  # the header asks for the balance: the wallet opens
            assert (await v.http.get("/wallet/balance.json")).json() == {"balance": 1000}
        # 1. The table: opened, then the server dies. Nothing moved.
        r = await host.http.post("/matches", data={"opponent": "open", "target": "75",
                                                   "bazaar": "draw", "stake": "100"})
        assert r.status_code == 303, r.text
        match_id = r.headers["location"].rsplit("/", 1)[1]
        serve.kill9()
        serve.start()
        wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
        assert status == "waiting" and escrow == 0 and wallets == [1000, 1000]

        # 2. The second player sits down; the server dies during the request, at several
        # moments. The stakes moved with the start, or neither did.
        for delay in (0.0, 0.02):
            await _crash_during(serve, guest.http.post(f"/lobby/{match_id}/join"), delay)
            wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
            assert (status, escrow, wallets) in (("waiting", 0, [1000, 1000]),
                                                 ("active", 200, [900, 900])), (status, wallets)
            if status == "active":
                break
        if status == "waiting":
            r = await guest.http.post(f"/lobby/{match_id}/join")
            assert r.status_code == 303, r.text
        wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
        assert (status, escrow, wallets, payouts) == ("active", 200, [900, 900], 0)

        # 3. Mid-hand: a few moves, the server dies during one.
        for crash in range(1):
            socks = [await v.connect(match_id) for v in (host, guest)]
            for s in socks:
                await s.wait_for(lambda m: m.get("type") == "state"
                                 and m["view"]["turn"] is not None)
            moved = 0
            for _ in range(40):
                mover = next((s for s in socks if s.my_turn()), None)
                if mover is None:
                    await asyncio.sleep(0.01)
                    continue
                if moved == 3:
                    st = mover.state
                    await _crash_during(serve, mover.send({
                        "type": "action", "version": st["version"],
                        "action": st["view"]["legal"][0]}), 0.002 * crash)
                    break
                await mover.play_first_legal()
                moved += 1
            for s in socks:
                with contextlib.suppress(Exception):
                    await s.close()
            wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
            assert (status, escrow, wallets, payouts) == ("active", 200, [900, 900], 0)

        # 4. The final move (a resignation): the server dies while it is being committed.
        for delay in (0.0, 0.01):
            sock = Socket(serve.base_url, match_id, guest.cookie)
            await sock.open()
            await sock.wait_for(lambda m: m.get("type") == "state")
            await _crash_during(serve, sock.send({"type": "resign"}), delay)
            with contextlib.suppress(Exception):
                await sock.close()
            wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
            assert (status, escrow, wallets, payouts) in (
                ("active", 200, [900, 900], 0), ("finished", 0, [1100, 900], 1)), status
            if status == "finished":
                break
        if status == "active":
            sock = Socket(serve.base_url, match_id, guest.cookie)
            await sock.open()
            await sock.wait_for(lambda m: m.get("type") == "state")
            await sock.send({"type": "resign"})
            await sock.wait_for(lambda m: m.get("type") == "state"
                                and m["status"] == "finished")
            await sock.close()
        # Restarted once more after the end: nothing is paid twice.
        serve.kill9()
        serve.start()
        wallets, escrow, payouts, status = await _ledger(sessions, match_id, ids)
        assert (status, escrow, wallets, payouts) == ("finished", 0, [1100, 900], 1)
        async with sessions() as session:
            row = await session.get(MatchRow, match_id)
            assert row is not None and row.record["meta"]["stake"] == 100
        r = await guest.http.get("/wallet")
        assert "900" in r.text and match_id in r.text
        for v in (host, guest):
            await v.http.aclose()
    finally:
        serve.stop()
