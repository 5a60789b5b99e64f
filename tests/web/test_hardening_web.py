"""Issue 8 over HTTP: no rows for pages that merely render, limited table-password guesses and
table creation, trusted proxies, per-address login limits, one player whatever the case or
look-alikes, and whole-origin checks."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import Any

import httpx
import uvicorn
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.settings.network import parse_trusted_proxies
from kva.storage.models import SessionRow, User
from tests.helpers.accounts_help import PASSWORD, login, register, registered
from tests.helpers.webhelp import ServerThread, Visitor


async def _count(sessions: async_sessionmaker, model: Any) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


def _plain_server(database_url: str, **settings: Any) -> ServerThread:
    """A server like ``kva serve``: uvicorn believes no forwarded header itself."""
    server = ServerThread(database_url, **settings)
    config = uvicorn.Config(server.app, host="127.0.0.1", port=server.port, log_level="warning",
                            lifespan="on", proxy_headers=False)
    server.server = uvicorn.Server(config)
    server.thread = threading.Thread(target=server.server.run, daemon=True)
    return server


async def test_pages_that_merely_render_create_no_rows(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server()
    users, rows = await _count(sessions, User), await _count(sessions, SessionRow)
    paths = ["/", "/lobby", "/help", "/ratings", "/no-such-page", "/u/nobody-here",
             "/login", "/register", "/t/no-such-table", "/m/nomatch"]
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for i in range(50):
            http.cookies.clear()
            r = await http.get(paths[i % len(paths)])
            assert r.status_code in (200, 404), (r.status_code, paths[i % len(paths)])
            assert "kva_session" not in r.cookies
    assert await _count(sessions, User) == users
    assert await _count(sessions, SessionRow) == rows
    # Acting does create the guest, once, with its cookie.
    async with Visitor(server.base_url) as v:
        await v.new_match("bot:easy")
        assert v.cookie
        await v.new_match("bot:easy")
    assert await _count(sessions, User) == users + 1


async def test_table_password_guesses_are_limited(make_server: Callable[..., Any]) -> None:
    server = make_server(table_password_rate_table="3/minute")
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend", password="s3cret-table")
        token = await host.share_token(match_id)
        for i in range(3):
            async with Visitor(server.base_url) as guesser:
                r = await guesser.http.post(f"/t/{token}", data={"password": f"guess{i}"})
                assert r.status_code == 403
        async with Visitor(server.base_url) as guesser:
            r = await guesser.http.post(f"/t/{token}", data={"password": "guess9"})
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
            assert "Too many password attempts" in r.text


async def test_the_right_table_password_opens_the_table_after_others_guessed_wrong(
    database_url: str
) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_password_rate_table="3/minute").start()
    try:
        async with Visitor(server.base_url) as host:
            match_id = await host.new_match("friend", password="s3cret-table")
            token = await host.share_token(match_id)
        codes = []
        for i in range(6):
            async with Visitor(server.base_url) as guesser:
                guesser.http.headers["x-forwarded-for"] = f"203.0.113.{i}"
                r = await guesser.http.post(f"/t/{token}", data={"password": f"guess{i}"})
                codes.append(r.status_code)
                if i == 0:
                    r = await guesser.http.post(f"/t/{token}", data={"password": "again"})
                    assert r.status_code == 403
                    for _ in range(2):
                        r = await guesser.http.post(f"/t/{token}", data={"password": "more"})
                    assert r.status_code == 429  # a guesser who failed here is refused
        assert codes == [403] * 6
        async with Visitor(server.base_url) as friend:
            friend.http.headers["x-forwarded-for"] = "198.51.100.7"
            r = await friend.http.post(f"/t/{token}", data={"password": "s3cret-table"})
            assert r.status_code == 303 and r.headers["location"] == f"/m/{match_id}"
    finally:
        server.stop()


async def test_open_tables_per_player_and_tables_per_minute_are_capped(
    make_server: Callable[..., Any]
) -> None:
    server = make_server(max_open_tables=2, table_create_rate_ip="4/minute")
    async with Visitor(server.base_url) as v:
        await v.new_match("open")
        await v.new_match("open")
        r = await v.http.post("/matches", data={"opponent": "open", "target": "75",
                                                "bazaar": "draw", "password": ""})
        assert r.status_code == 429 and "open tables waiting" in r.text
        await v.new_match("friend")  # the fourth table this minute (the refused one counted)
        r = await v.http.post("/matches", data={"opponent": "friend", "target": "75",
                                                "bazaar": "draw", "password": ""})
        assert r.status_code == 429 and "Retry-After" in r.headers
        await v.new_match("bot:easy")  # bot matches are not tables


async def _attempts_until_refused(base_url: str, forwarded: list[str]) -> list[int]:
    codes = []
    for address in forwarded:
        async with httpx.AsyncClient(base_url=base_url,
                                     headers={"x-forwarded-for": address}) as http:
            r = await http.post("/login", data={"nickname": "someone", "password": "x" * 8})
            codes.append(r.status_code)
    return codes


async def test_forwarded_addresses_count_only_behind_a_trusted_proxy(database_url: str) -> None:
    addresses = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    off = _plain_server(database_url, login_rate_ip="2/minute").start()
    on = _plain_server(database_url, login_rate_ip="2/minute",
                       trusted_proxies=parse_trusted_proxies("127.0.0.1")).start()
    try:
        # Off (the default): the header is ignored, every attempt is the proxy's own.
        assert await _attempts_until_refused(off.base_url, addresses) == [400, 400, 429]
        # On: each forwarded client has its own counter.
        assert await _attempts_until_refused(on.base_url, addresses) == [400, 400, 400]
    finally:
        off.stop()
        on.stop()


async def test_an_attacker_does_not_lock_the_owner_out(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           login_rate_nickname_ip="3/minute").start()
    try:
        owner, name = await registered(server.base_url)
        await owner.__aexit__()
        attacker = {"x-forwarded-for": "203.0.113.66"}
        async with httpx.AsyncClient(base_url=server.base_url, headers=attacker) as http:
            codes = [(await http.post("/login", data={"nickname": name, "password": f"no{i}"}
                                      )).status_code for i in range(5)]
        assert codes == [400, 400, 400, 429, 429]
        async with Visitor(server.base_url) as v:
            v.http.headers["x-forwarded-for"] = "198.51.100.1"
            r = await login(v, name.upper())  # another address, and any case
            assert r.status_code == 303
    finally:
        server.stop()


async def test_one_player_whatever_the_case_or_look_alikes(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    digits = f"{secrets.randbelow(10 ** 6):06d}"
    latin = f"pace{digits}"
    async with Visitor(server.base_url) as owner:
        assert (await register(owner, latin)).status_code == 303
        page = await owner.http.get(f"/u/{latin.upper()}")
        assert page.status_code == 200 and latin in page.text
    async with Visitor(server.base_url) as forger:
        cyrillic = "\u0440\u0430\u0441\u0435" + digits  # "расе" + the same digits
        r = await register(forger, cyrillic)
        assert r.status_code == 400 and 'data-code="nickname_taken"' in r.text or \
            "taken" in r.text
        r = await register(forger, "\u3164\u3164\u3164\u3164")
        assert r.status_code == 400
        r = await register(forger, f"n\u0456n\u043e{digits}")
        assert r.status_code == 400 and "one alphabet" in r.text
        r = await register(forger, f"gu\u0435st-{digits}")
        assert r.status_code == 400
    assert PASSWORD


async def test_a_form_posted_from_another_scheme_or_port_is_refused(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    port = server.port
    async with Visitor(server.base_url) as v:
        for origin in (f"https://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"):
            r = await v.http.post("/matches", data={"opponent": "bot:easy", "target": "75"},
                                  headers={"origin": origin})
            assert r.status_code == 403, origin
        r = await v.http.post("/matches", data={"opponent": "bot:easy", "target": "75"},
                              headers={"origin": f"http://127.0.0.1:{port}"})
        assert r.status_code == 303


async def _login_from(base_url: str, address: str, name: str, password: str = PASSWORD,
                      device: str | None = None) -> httpx.Response:
    cookies = {"kva_device": device} if device is not None else {}
    async with httpx.AsyncClient(base_url=base_url, headers={"x-forwarded-for": address},
                                 cookies=cookies) as http:
        return await http.post("/login", data={"nickname": name, "password": password})


async def test_the_owners_known_device_passes_the_nickname_ceiling(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           login_rate_nickname="3/hour").start()
    try:
        owner, name = await registered(server.base_url)
        other, other_name = await registered(server.base_url)
        r = await login(owner, name)
        assert r.status_code == 303
        device = owner.http.cookies.get("kva_device")
        other_device = other.http.cookies.get("kva_device")
        await owner.__aexit__()
        await other.__aexit__()
        assert device and other_device and device != other_device
        for i in range(3):  # guessers spread over addresses use up the nickname's ceiling
            r = await _login_from(server.base_url, f"203.0.113.{i}", name, f"wrong{i}xx")
            assert r.status_code == 400
        fresh = "198.51.100.9"
        r = await _login_from(server.base_url, fresh, name)
        assert r.status_code == 429 and "Too many" in r.text
        r = await _login_from(server.base_url, fresh, name, device=other_device)
        assert r.status_code == 429  # another account's device is no exemption
        r = await _login_from(server.base_url, fresh, name, device=device[:-2] + "xx")
        assert r.status_code == 429  # nor is a forged one
        r = await _login_from(server.base_url, fresh, name, device=device)
        assert r.status_code == 303
    finally:
        server.stop()


async def test_a_copied_device_cookie_stops_counting_at_logout(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           login_rate_nickname="3/hour").start()
    try:
        owner, name = await registered(server.base_url)
        assert (await login(owner, name)).status_code == 303
        copied = owner.http.cookies.get("kva_device")
        assert copied
        for i in range(3):  # guessers spread over addresses use up the nickname's ceiling
            r = await _login_from(server.base_url, f"203.0.113.{i}", name, f"wrong{i}xx")
            assert r.status_code == 400
        # While the owner is signed in on that browser, the cookie (and a copy) is known…
        assert (await _login_from(server.base_url, "198.51.100.20", name, device=copied)
                ).status_code == 303
        # …and logging out there ends it, for the copy too.
        assert (await owner.http.post("/logout")).status_code == 303
        r = await _login_from(server.base_url, "198.51.100.21", name, device=copied)
        assert r.status_code == 429 and 'data-code="rate_limited"' in r.text
    finally:
        await owner.__aexit__()
        server.stop()
