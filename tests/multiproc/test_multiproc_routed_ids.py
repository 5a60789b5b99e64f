"""Two ``kva serve`` processes behind nginx that know its upstream list (``KVA_UPSTREAMS``):
every match a process creates gets an id that nginx's consistent hash sends back to that
process, so its page and sockets come to its owner and nothing is handed over."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.multiproc.multiproc_help import (
    ROUTE_HEADER,
    UPSTREAM_HEADER,
    Nginx,
    ServeProcess,
    behind_nginx,
)


@pytest.fixture
def two_routed_processes(serve_env: dict[str, str], nginx_binary: str,
                         tmp_path: Path) -> Iterator[tuple[Nginx, list[ServeProcess]]]:
    processes = [ServeProcess(serve_env, tmp_path / f"serve-{n}.log") for n in "ab"]
    upstreams = ",".join(f"127.0.0.1:{p.port}" for p in processes)
    for process in processes:  # each names itself by its KVA_HOST:KVA_PORT default
        process.env = {**serve_env, "KVA_UPSTREAMS": upstreams,
                       # the counters are in the test Redis, shared with the other tests
                       "KVA_TABLE_CREATE_RATE_IP": "1000/minute"}
    with behind_nginx(processes, nginx_binary, tmp_path) as both:
        yield both

async def test_matches_created_on_a_process_are_routed_back_to_it(
    two_routed_processes: tuple[Nginx, list[ServeProcess]],
) -> None:
    nginx, processes = two_routed_processes
    async with httpx.AsyncClient(base_url=nginx.base_url) as visitor:
        assert (await visitor.get("/quick", params={"target": "75"})).status_code == 200
        cookie = visitor.cookies["kva_session"]
    for name, process in zip("ab", processes, strict=True):
        async with httpx.AsyncClient(base_url=nginx.base_url, cookies={"kva_session": cookie},
                                     headers={ROUTE_HEADER: name}) as creator, \
                httpx.AsyncClient(base_url=nginx.base_url,
                                  cookies={"kva_session": cookie}) as anyone:
            for _ in range(4):
                r = await creator.post("/matches", data={"opponent": "friend", "target": "75",
                                                         "bazaar": "draw", "password": ""})
                assert r.status_code == 303, r.text[:300]
                assert r.headers[UPSTREAM_HEADER] == f"127.0.0.1:{process.port}"
                found = re.fullmatch(r"/m/([A-Za-z0-9_-]+)", r.headers["location"])
                assert found
                page = await anyone.get(f"/m/{found.group(1)}")  # no route header: the hash
                assert page.status_code == 200
                assert page.headers[UPSTREAM_HEADER] == f"127.0.0.1:{process.port}"
