"""The clock across processes: two ``kva serve`` processes behind nginx, a quick game between
players routed to different processes; the player on move lets their clock run out and loses
on time, the same for both players (the match's owner flags it; the other hears it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.multiproc.multiproc_help import (
    ROUTE_HEADER,
    Nginx,
    RoutedSocket,
    ServeProcess,
    behind_nginx,
)

QUICK = {"target": "75", "bazaar": "draw"}


@pytest.fixture
def short_clocks_behind_nginx(serve_env: dict[str, str], nginx_binary: str,
                              tmp_path: Path) -> Iterator[tuple[Nginx, list[ServeProcess]]]:
    """Two processes whose ``standard`` clock (a quick game's) is 1 s a move + 1 s reserve."""
    env = {**serve_env, "KVA_CLOCK_PRESETS": "standard=1+1"}
    processes = [ServeProcess(env, tmp_path / f"serve-{n}.log") for n in "ab"]
    with behind_nginx(processes, nginx_binary, tmp_path) as both:
        yield both


async def test_a_player_who_lets_the_clock_run_out_loses_on_two_processes(
    short_clocks_behind_nginx: tuple[Nginx, list[ServeProcess]],
) -> None:
    nginx, processes = short_clocks_behind_nginx
    ws_base = nginx.base_url.replace("http://", "ws://")
    clients = {name: httpx.AsyncClient(base_url=nginx.base_url, headers={ROUTE_HEADER: name})
               for name in "ab"}
    sockets: list[RoutedSocket] = []
    try:
        for client in clients.values():
            assert (await client.get("/quick", params=QUICK)).status_code == 200

        def headers(name: str) -> dict[str, str]:
            return {ROUTE_HEADER: name, "Origin": nginx.base_url,
                    "Cookie": f"kva_session={clients[name].cookies['kva_session']}"}

        query = "&".join(f"{k}={v}" for k, v in QUICK.items()) + "&rated=0"
        quick = {name: RoutedSocket(f"{ws_base}/ws/quick?{query}", headers(name))
                 for name in "ab"}
        for name in "ab":
            await quick[name].open()
            sockets.append(quick[name])
        paired = {name: await quick[name].wait_for(lambda m: m.get("type") == "paired")
                  for name in "ab"}
        match_id = paired["a"]["match_id"]
        assert quick["a"].upstream != quick["b"].upstream  # one player on each process
        game = {name: RoutedSocket(f"{ws_base}/ws/m/{match_id}", headers(name))
                for name in "ab"}
        for name in "ab":
            await game[name].open()
            sockets.append(game[name])
            await game[name].send({"type": "hello", "version": 0})
        running = await game["a"].wait_for(
            lambda m: m.get("type") == "state" and (m.get("clock") or {}).get("seat")
            is not None)
        seat = running["clock"]["seat"]
        assert running["clock"]["preset"] == "standard"
        assert 0 < running["clock"]["running_ms"] <= 2_000
        started = time.monotonic()
        # Nobody moves: the running player's 1 s a move and 1 s of reserve run out.
        ends = {name: await game[name].wait_for(
            lambda m: m.get("type") == "state" and m["status"] == "finished", timeout=20)
            for name in "ab"}
        waited = time.monotonic() - started
        for end in ends.values():
            assert end["clock"]["flagged"] == seat and end["clock"]["left"][seat] == 0
            assert end["view"]["winner"] == 1 - seat
            assert end["view"]["forfeit_reason"] == "timeout"
        assert ends["a"]["event"] is None or ends["a"]["event"]["reason"] == "time"
        assert waited < 6, f"flagged {waited:.1f} s after a state that said 2 s were left"
        record = await clients["a"].get(f"/m/{match_id}/record.json")
        assert record.status_code == 200
        assert record.json()["meta"]["end"] == "time"
        print(f"\nflagged {waited:.2f} s after the first running state (2 s of time)")
    finally:
        for sock in sockets:
            await sock.close()
        for client in clients.values():
            await client.aclose()
