"""Two ``kva serve`` processes behind nginx routing a match's page and socket by a consistent
hash of the match id (docs/deployment.md): a friend match created on one process whose
players' sockets land on the other is handed over to that process at the first ``hello``, and
then no action is forwarded between the processes."""

from __future__ import annotations

import re
import time

import httpx

from tests.multiproc.multiproc_help import (
    ROUTE_HEADER,
    UPSTREAM_HEADER,
    Nginx,
    RoutedSocket,
    ServeProcess,
    play_first_legal,
)
from tools.bench.server import nginx_chash


def _counters(text: str) -> dict[str, str]:
    """The ``key=value`` pairs of ``/healthz?verbose``."""
    return dict(pair.split("=", 1) for pair in text.split()[1:])


async def test_a_friend_matchs_players_meet_on_its_hashed_process_which_takes_the_lease(
    two_processes_behind_nginx: tuple[Nginx, list[ServeProcess]],
) -> None:
    nginx, processes = two_processes_behind_nginx
    by_addr = {f"127.0.0.1:{p.port}": (name, p) for name, p in zip("ab", processes, strict=True)}
    ws_base = nginx.base_url.replace("http://", "ws://")
    cookies: dict[str, str] = {}
    for who in ("host", "guest"):
        async with httpx.AsyncClient(base_url=nginx.base_url) as client:
            assert (await client.get("/quick", params={"target": "75"})).status_code == 200
            cookies[who] = client.cookies["kva_session"]

    async def counters(process: ServeProcess) -> dict[str, str]:
        async with httpx.AsyncClient(base_url=process.base_url) as client:
            r = await client.get("/healthz", params={"verbose": "1"})
        assert r.status_code == 200 and r.text.startswith("ok"), r.text
        return _counters(r.text)

    # Friend matches created on process a until one hashes to process b (half of them do):
    # its players' sockets then meet on b while a created it (and holds its lease).
    match_id, token, hashed = "", "", ""
    async with httpx.AsyncClient(base_url=nginx.base_url, cookies={"kva_session": cookies["host"]},
                                 headers={ROUTE_HEADER: "a"}) as host:
        for _ in range(16):
            r = await host.post("/matches", data={"opponent": "friend", "target": "75",
                                                  "bazaar": "draw", "password": ""})
            assert r.status_code == 303, r.text[:300]
            found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
            assert found
            async with httpx.AsyncClient(base_url=nginx.base_url,
                                         cookies={"kva_session": cookies["host"]}) as anyone:
                page = await anyone.get(f"/m/{found.group(1)}")  # no route header: the hash
                again = await anyone.get(f"/m/{found.group(1)}")
            assert page.status_code == 200
            # The hash is consistent: the same match, the same process, the one that
            # kva bench server --spread match predicts.
            assert page.headers[UPSTREAM_HEADER] == again.headers[UPSTREAM_HEADER]
            urls = [f"http://{addr}" for addr in by_addr]
            assert nginx_chash(found.group(1), urls) == f"http://{page.headers[UPSTREAM_HEADER]}"
            assert nginx_chash(found.group(1), urls[::-1]) == nginx_chash(found.group(1), urls)
            if by_addr[page.headers[UPSTREAM_HEADER]][0] == "b":
                match_id, hashed = found.group(1), page.headers[UPSTREAM_HEADER]
                link = re.search(r'/t/([A-Za-z0-9_-]+)" data-testid="share-link"', page.text)
                assert link
                token = link.group(1)
                break
    assert match_id, "no friend match hashed to process b in 16 tries"
    a, b = processes
    # The guest joins through process a too (the owner: nothing forwarded).
    async with httpx.AsyncClient(base_url=nginx.base_url, cookies={"kva_session": cookies["guest"]},
                                 headers={ROUTE_HEADER: "a"}) as guest:
        assert (await guest.get(f"/t/{token}")).status_code == 303
    before = {name: await counters(p) for name, p in (("a", a), ("b", b))}
    assert int(before["a"]["held"]) >= 1

    sockets = {}
    try:
        for who in ("host", "guest"):
            sock = await RoutedSocket(f"{ws_base}/ws/m/{match_id}", {
                "Origin": nginx.base_url, "Cookie": f"kva_session={cookies[who]}"}).open()
            sockets[who] = sock
            assert sock.upstream == hashed  # both players on the match's process
            await sock.send({"type": "hello", "version": 0})
            await sock.wait_for(lambda m: m.get("type") == "state")
        for sock in sockets.values():
            await sock.wait_for(lambda m: m.get("type") == "state" and m["status"] == "active"
                                and m["view"].get("turn") is not None)
        moves = 0
        deadline = time.monotonic() + 60
        while moves < 6 and time.monotonic() < deadline:
            reply = await play_first_legal(sockets.values())
            if reply is None:
                continue
            for sock in sockets.values():
                await sock.wait_for(
                    lambda m, v=reply["version"]: m.get("type") == "state"
                    and m["version"] >= v)
            moves += 1
        assert moves >= 4, f"only {moves} moves were played"
        after = {name: await counters(p) for name, p in (("a", a), ("b", b))}
        print(f"\ncounters before the sockets {before}, after {moves} moves {after}")
        # a handed the lease to b at the first hello; b made every move itself.
        assert int(after["a"]["handed_off"]) == int(before["a"]["handed_off"]) + 1
        for name in "ab":
            assert after[name]["forwarded"] == before[name]["forwarded"], (name, before, after)
        assert int(after["a"]["served"]) == int(before["a"]["served"])
        assert int(after["b"]["held"]) >= 1
    finally:
        for sock in sockets.values():
            await sock.close()
