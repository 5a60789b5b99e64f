"""Abuse limits per client address: bot matches and guests created, analysis requests,
challenges to bots, and who may read a match's stake."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.storage.models import MatchRow, SessionRow, User
from kva.web.security import parse_trusted_proxies

BEHIND_PROXY = parse_trusted_proxies("127.0.0.1")


async def _count(sessions: async_sessionmaker, model: Any) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def _bot_match_from(base_url: str, address: str) -> httpx.Response:
    """One cookie-less ``POST /matches`` against a bot from ``address``."""
    async with httpx.AsyncClient(base_url=base_url,
                                 headers={"x-forwarded-for": address}) as http:
        return await http.post("/matches", data={"opponent": "bot:easy", "target": "75",
                                                 "bazaar": "draw"})


async def test_cookieless_bot_matches_from_one_address_are_limited_before_any_row(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server(trusted_proxies=BEHIND_PROXY, bot_match_create_rate_ip="10/minute")
    users, rows = await _count(sessions, User), await _count(sessions, SessionRow)
    matches = await _count(sessions, MatchRow)
    codes = [(await _bot_match_from(server.base_url, "203.0.113.9")).status_code
             for _ in range(60)]
    assert codes.count(303) == 10 and codes.count(429) == 50
    assert await _count(sessions, User) == users + 10
    assert await _count(sessions, SessionRow) == rows + 10
    assert await _count(sessions, MatchRow) == matches + 10
    refused = await _bot_match_from(server.base_url, "203.0.113.9")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "too many matches against bots" in refused.text
    assert "kva_session" not in refused.cookies
    assert (await _bot_match_from(server.base_url, "198.51.100.7")).status_code == 303


async def test_guests_created_per_address_are_limited_whatever_the_action(
    make_server: Callable[..., Any], sessions: async_sessionmaker
) -> None:
    server = make_server(trusted_proxies=BEHIND_PROXY, guest_create_rate_ip="3/minute")
    users = await _count(sessions, User)
    codes = []
    for _ in range(6):
        async with httpx.AsyncClient(base_url=server.base_url,
                                     headers={"x-forwarded-for": "203.0.113.10"}) as http:
            r = await http.post("/matches", data={"opponent": "friend", "target": "75",
                                                  "bazaar": "draw"})
            codes.append(r.status_code)
    assert codes == [303] * 3 + [429] * 3
    assert "Too many new visitors" in r.text and int(r.headers["retry-after"]) >= 1
    assert await _count(sessions, User) == users + 3
    # A visitor who already has a session is not a new guest: still served.
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"x-forwarded-for": "198.51.100.8"}) as http:
        first = await http.post("/matches", data={"opponent": "bot:easy", "target": "75",
                                                  "bazaar": "draw"})
        assert first.status_code == 303
