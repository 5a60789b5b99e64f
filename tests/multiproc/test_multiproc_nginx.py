"""Two ``kva serve`` processes (one fresh PostgreSQL database, one Redis) behind a real nginx:
two players routed to different processes are paired by quick game into one match and play
it over WebSockets through nginx, every move reaching the other process's player."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import httpx
import pytest
import websockets

from tests.multiproc.multiproc_help import (
    ROUTE_HEADER,
    UPSTREAM_HEADER,
    Nginx,
    RoutedSocket,
    ServeProcess,
    play_first_legal,
)

QUICK = {"target": "175", "bazaar": "draw"}


async def test_a_quick_game_between_players_on_two_processes_behind_nginx(
    two_processes_behind_nginx: tuple[Nginx, list[ServeProcess]],
) -> None:
    nginx, processes = two_processes_behind_nginx
    ports = {name: p.port for name, p in zip("ab", processes, strict=True)}
    ws_base = nginx.base_url.replace("http://", "ws://")
    clients = {name: httpx.AsyncClient(base_url=nginx.base_url, headers={ROUTE_HEADER: name})
               for name in "ab"}
    sockets: list[RoutedSocket] = []
    try:
        # Each player's pages come from their own process (nginx names the one that answered).
        for name, client in clients.items():
            page = await client.get("/quick", params=QUICK)
            assert page.status_code == 200, page.text[:500]
            assert page.headers[UPSTREAM_HEADER] == f"127.0.0.1:{ports[name]}"
            assert client.cookies.get("kva_session"), "no guest session after /quick"
        # Without the route header nginx balances over both processes.
        seen = set()
        async with httpx.AsyncClient(base_url=nginx.base_url) as anyone:
            for _ in range(4):
                seen.add((await anyone.get("/healthz")).headers[UPSTREAM_HEADER])
        assert seen == {f"127.0.0.1:{p}" for p in ports.values()}

        def headers(name: str) -> dict[str, str]:
            # A browser's Origin: the public site, which each process only recognises as its
            # own through nginx's X-Forwarded-Proto/Host (KVA_TRUSTED_PROXIES=127.0.0.1).
            return {ROUTE_HEADER: name, "Origin": nginx.base_url,
                    "Cookie": f"kva_session={clients[name].cookies['kva_session']}"}

        query = "&".join(f"{k}={v}" for k, v in QUICK.items()) + "&rated=0"
        # Another site's page is refused at the handshake, through nginx as directly.
        with pytest.raises(websockets.InvalidStatus) as refused:
            await RoutedSocket(f"{ws_base}/ws/quick?{query}",
                               {**headers("a"), "Origin": "https://evil.example"}).open()
        assert refused.value.response.status_code == 403
        quick = {name: RoutedSocket(f"{ws_base}/ws/quick?{query}", headers(name))
                 for name in "ab"}
        await quick["a"].open()
        sockets.append(quick["a"])
        await quick["a"].wait_for(lambda m: m.get("type") == "waiting")
        started = time.monotonic()
        await quick["b"].open()
        sockets.append(quick["b"])
        for name in "ab":
            assert quick[name].upstream == f"127.0.0.1:{ports[name]}"  # different processes
        paired = {name: await quick[name].wait_for(lambda m: m.get("type") == "paired")
                  for name in "ab"}
        pairing_ms = 1000 * (time.monotonic() - started)
        match_id = paired["a"]["match_id"]
        assert paired["b"]["match_id"] == match_id

        # Both open the match on their own process, through nginx.
        game = {name: RoutedSocket(f"{ws_base}/ws/m/{match_id}", headers(name))
                for name in "ab"}
        for name in "ab":
            await game[name].open()
            sockets.append(game[name])
            assert game[name].upstream == f"127.0.0.1:{ports[name]}"
            await game[name].send({"type": "hello", "version": 0})
            await game[name].wait_for(lambda m: m.get("type") == "state")
        for name in "ab":
            await game[name].wait_for(
                lambda m: m.get("type") == "state" and m["status"] == "active"
                and m["view"].get("turn") is not None)
        assert {game[n].state["you"] for n in "ab"} == {0, 1}

        # Play moves: each one made on one process reaches the player on the other.
        moves, lags = 0, []
        deadline = time.monotonic() + 60
        while moves < 6 and time.monotonic() < deadline:
            movers = [n for n in "ab" if game[n].my_turn()]
            if not movers:
                await asyncio.sleep(0.05)
                continue
            mover, other = movers[0], "b" if movers[0] == "a" else "a"
            s = game[mover].state
            sent = time.monotonic()
            await game[mover].send({"type": "action", "version": s["version"],
                                    "action": s["view"]["legal"][0]})
            reply = await game[mover].wait_for(
                lambda m, v=s["version"]: (m.get("type") == "state" and m["version"] > v)
                or m.get("type") == "error")
            assert reply["type"] == "state", reply
            seen_there = await game[other].wait_for(
                lambda m, v=reply["version"]: m.get("type") == "state" and m["version"] >= v)
            lags.append(1000 * (time.monotonic() - sent))
            assert seen_there["view"]["board"] == reply["view"]["board"]
            moves += 1
        assert moves >= 4, f"only {moves} moves were played"
        print(f"\npaired across processes in {pairing_ms:.0f} ms; {moves} moves, "
              f"action→opponent through nginx: max {max(lags):.0f} ms")
    finally:
        for sock in sockets:
            await sock.close()
        for client in clients.values():
            await client.aclose()


#: A three-seat Kozel table, as the quick page's form asks for it.
KOZEL_QUICK = {"game": "kozel", "seats": "3", "fish": "all"}


async def _kozel_table_across_processes(nginx: Nginx, routes: list[str]
                                        ) -> tuple[str, list[RoutedSocket]]:
    """Guests routed to ``routes`` (one process name each) search for :data:`KOZEL_QUICK`
    together; the match they are seated at, and each one's socket on it, dealt."""
    ws_base = nginx.base_url.replace("http://", "ws://")
    cookies = []
    for route in routes:
        async with httpx.AsyncClient(base_url=nginx.base_url,
                                     headers={ROUTE_HEADER: route}) as client:
            page = await client.get("/quick", params=KOZEL_QUICK)
            assert page.status_code == 200 and 'data-testid="quick-kozel"' in page.text
            cookies.append(client.cookies["kva_session"])
    headers = [{ROUTE_HEADER: route, "Origin": nginx.base_url, "Cookie": f"kva_session={c}"}
               for route, c in zip(routes, cookies, strict=True)]
    query = "&".join(f"{k}={v}" for k, v in KOZEL_QUICK.items())
    quick = [await RoutedSocket(f"{ws_base}/ws/quick?{query}", h).open() for h in headers]
    try:
        paired = [await s.wait_for(lambda m: m.get("type") == "paired") for s in quick]
    finally:
        for sock in quick:
            await sock.close()
    assert len({p["match_id"] for p in paired}) == 1, paired
    match_id = paired[0]["match_id"]
    game = [await RoutedSocket(f"{ws_base}/ws/m/{match_id}", h).open() for h in headers]
    for sock in game:
        await sock.send({"type": "hello", "version": 0})
    for sock in game:
        await sock.wait_for(lambda m: m.get("type") == "state" and m["status"] == "active"
                            and m["view"].get("turn") is not None)
    return match_id, game


async def test_a_kozel_quick_table_of_three_plays_across_two_processes_behind_nginx(
    two_processes_behind_nginx: tuple[Nginx, list[ServeProcess]],
) -> None:
    """Three guests, two on process a and one on b, search for a three-seat Kozel table: the
    shared (Redis) queue seats them at one match, which each plays over their own process
    through nginx. Every move reaches the players on both processes, who then agree on the
    line, the scores and how many tiles each holds, and each is sent only their own tiles."""
    nginx, processes = two_processes_behind_nginx
    routes = ["a", "b", "a"]
    _match_id, game = await _kozel_table_across_processes(nginx, routes)
    try:
        ports = {name: p.port for name, p in zip("ab", processes, strict=True)}
        assert [s.upstream for s in game] == [f"127.0.0.1:{ports[r]}" for r in routes]
        assert sorted(s.state["you"] for s in game) == [0, 1, 2]
        moves = 0
        deadline = time.monotonic() + 90
        while moves < 6:
            assert time.monotonic() < deadline, f"only {moves} moves were played"
            reply = await play_first_legal(game)
            if reply is None:
                continue
            for sock in game:  # the move reached every player, on either process
                await sock.wait_for(lambda m, v=reply["version"]: m.get("type") == "state"
                                    and m["version"] >= v)
            moves += 1
        latest = max(s.state["version"] for s in game)
        views = [(await s.wait_for(lambda m: m.get("type") == "state"
                                   and m["version"] == latest))["view"] for s in game]
        shared = [(v["line"], v["score"], v["held"], v["turn"]) for v in views]
        assert shared.count(shared[0]) == 3, shared
        hands = [set(v["tiles"]) for v in views]
        for view, hand in zip(views, hands, strict=True):
            assert len(hand) == view["held"][view["seat"]]
        assert not (hands[0] & hands[1] or hands[0] & hands[2] or hands[1] & hands[2])
    finally:
        for sock in game:
            await sock.close()


async def test_kva_serve_with_two_workers_pairs_a_quick_game(
    serve_env: dict[str, str], tmp_path: Path
) -> None:
    server = ServeProcess(serve_env, tmp_path / "workers.log", "--workers", "2").start()
    try:
        assert "2 processes" in server.log_tail()
        ws_base = server.base_url.replace("http://", "ws://")
        query = "target=75&bazaar=pass-only&rated=0"
        sockets = []
        for _ in range(2):  # whichever worker each connection lands on
            async with httpx.AsyncClient(base_url=server.base_url) as client:
                assert (await client.get("/quick", params={"target": "75"})).status_code == 200
                cookie = client.cookies["kva_session"]
            sock = await RoutedSocket(f"{ws_base}/ws/quick?{query}",
                                      {"Cookie": f"kva_session={cookie}"}).open()
            sockets.append(sock)
        try:
            ids = {(await s.wait_for(lambda m: m.get("type") == "paired"))["match_id"]
                   for s in sockets}
            assert len(ids) == 1
        finally:
            for sock in sockets:
                await sock.close()
    finally:
        server.stop()


async def test_a_killed_process_players_are_away_and_its_searches_gone(
    serve_env: dict[str, str], tmp_path: Path
) -> None:
    """kill -9 one of two processes: its player's opponent, on the other process, is told they
    are away (from when the dead process stopped answering) and may claim the win; a search
    that was waiting on the dead process is never paired."""
    env = {**serve_env, "KVA_DISCONNECT_GRACE": "1"}
    a = ServeProcess(env, tmp_path / "a.log").start()
    b = ServeProcess(env, tmp_path / "b.log").start()
    sockets: list[RoutedSocket] = []
    try:
        cookies = {}
        for name, server in (("ana", a), ("beka", b), ("gela", a), ("dato", b)):
            async with httpx.AsyncClient(base_url=server.base_url) as client:
                assert (await client.get("/quick", params={"target": "75"})).status_code == 200
                cookies[name] = client.cookies["kva_session"]

        async def socket(server: ServeProcess, path: str, who: str) -> RoutedSocket:
            url = server.base_url.replace("http://", "ws://") + path
            sock = await RoutedSocket(url, {"Cookie": f"kva_session={cookies[who]}"}).open()
            sockets.append(sock)
            return sock

        quick = "/ws/quick?target=75&bazaar=draw&rated=0"
        qa, qb = await socket(a, quick, "ana"), await socket(b, quick, "beka")
        match_id = (await qa.wait_for(lambda m: m.get("type") == "paired"))["match_id"]
        assert (await qb.wait_for(lambda m: m.get("type") == "paired"))["match_id"] == match_id
        ga, gb = (await socket(a, f"/ws/m/{match_id}", "ana"),
                  await socket(b, f"/ws/m/{match_id}", "beka"))
        for g in (ga, gb):
            await g.send({"type": "hello", "version": 0})
            await g.wait_for(lambda m: m.get("type") == "state")
        ana_seat = ga.state["you"]
        # gela waits for a pass-only quick game on process a.
        lonely = "/ws/quick?target=75&bazaar=pass-only&rated=0"
        qg = await socket(a, lonely, "gela")
        await qg.wait_for(lambda m: m.get("type") == "waiting")

        assert a.process is not None
        a.process.kill()  # no clean shutdown: nothing is said to anybody
        a.process.wait(timeout=10)
        killed = time.monotonic()
        away = await gb.wait_for(lambda m: m.get("type") == "presence"
                                 and m["seat"] == ana_seat and m["online"] is False, 30)
        print(f"\nthe killed process's player was away for the other process after "
              f"{time.monotonic() - killed:.1f} s (claim_in {away['claim_in']})")
        await asyncio.sleep(1.1)
        await gb.send({"type": "claim_win"})
        end = await gb.wait_for(lambda m: m.get("type") == "state" and m["view"]["over"], 15)
        assert end["event"]["kind"] == "forfeit" and end["event"]["reason"] == "abandon"
        assert end["view"]["winner"] == 1 - ana_seat
        # gela's search died with process a: dato, searching the same on b, waits alone.
        qd = await socket(b, lonely, "dato")
        await qd.wait_for(lambda m: m.get("type") == "waiting")
        await asyncio.sleep(1.5)
        assert not any(m.get("type") == "paired" for m in qd.messages)
    finally:
        for sock in sockets:
            with contextlib.suppress(Exception):
                await sock.close()
        a.stop()
        b.stop()
