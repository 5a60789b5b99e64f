"""Abuse limits per client address: bot matches and guests created, analysis requests,
challenges to bots, and who may read a match's stake."""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.bots import make_bot
from kva.rules import Match, player_view, write_record
from kva.service import analysis
from kva.settings.network import parse_trusted_proxies
from kva.storage.models import MatchRow, MatchSeat, SessionRow, User
from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import Visitor

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


class _Stalled(Executor):
    """An analysis worker that never answers: queued jobs stay queued for the whole test."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return Future()


async def _finished_matches(sessions: async_sessionmaker, count: int) -> list[str]:
    """``count`` finished bot matches (one real record each) that anyone may watch."""
    doc = _record(8)
    ids = [f"ab{secrets.token_hex(8)}" for _ in range(count)]
    async with sessions() as session:
        for match_id in ids:
            session.add(MatchRow(id=match_id, status="finished", target=75, bazaar="draw",
                                 seats=[MatchSeat(seat=0, bot="easy"),
                                        MatchSeat(seat=1, bot="greedy")],
                                 record=doc, winner=0,
                                 end_reason="target"))
        await session.commit()
    return ids


def _record(seed: int) -> dict[str, Any]:
    match = Match(target=75, rng=random.Random(seed))
    bots = [make_bot("easy"), make_bot("greedy")]
    rng = random.Random(seed)
    while not match.over:
        p = match.turn
        assert p is not None
        match.apply(bots[p].choose(player_view(match, p), rng), player=p)
    return write_record(match)


async def _ask_analysis(base_url: str, address: str, match_id: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url,
                                 headers={"x-forwarded-for": address}) as http:
        return await http.post(f"/m/{match_id}/analysis")


async def test_an_analysis_flood_from_one_address_is_refused_and_the_queue_stays_bounded(
    make_server: Callable[..., Any], sessions: async_sessionmaker, monkeypatch: Any
) -> None:
    monkeypatch.setattr(analysis, "make_analysis_executor", _Stalled)
    server = make_server(trusted_proxies=BEHIND_PROXY, analysis_queue=5)
    ids = await _finished_matches(sessions, 61)
    users, rows = await _count(sessions, User), await _count(sessions, SessionRow)
    codes = []
    for match_id in ids[:60]:
        r = await _ask_analysis(server.base_url, "203.0.113.20", match_id)
        codes.append(r.status_code)
        assert r.status_code in (202, 429, 503)
        assert "kva_session" not in r.cookies
        if r.status_code != 202:
            assert int(r.headers["retry-after"]) >= 1 and r.json()["message"]
        assert server.app.state.analysis.pending() <= 5
    assert codes.count(202) == 1 and codes.count(429) == 59
    assert await _count(sessions, User) == users  # cookie-less requests create nobody
    assert await _count(sessions, SessionRow) == rows
    honest = await _ask_analysis(server.base_url, "198.51.100.20", ids[60])
    assert honest.status_code == 202 and honest.json() == {
        "status": "queued", "done": 0, "total": 0, "ahead": 1}


async def test_a_full_analysis_queue_answers_503_and_a_queued_match_is_joined(
    make_server: Callable[..., Any], sessions: async_sessionmaker, monkeypatch: Any
) -> None:
    monkeypatch.setattr(analysis, "make_analysis_executor", _Stalled)
    server = make_server(trusted_proxies=BEHIND_PROXY, analysis_queue=3)
    ids = await _finished_matches(sessions, 4)
    for i, match_id in enumerate(ids[:3]):
        r = await _ask_analysis(server.base_url, f"203.0.113.{30 + i}", match_id)
        assert r.status_code == 202
    full = await _ask_analysis(server.base_url, "203.0.113.40", ids[3])
    assert full.status_code == 503 and int(full.headers["retry-after"]) >= 1
    assert full.json()["message"] == "The analysis queue is full. Try again in a few minutes."
    joined = await _ask_analysis(server.base_url, "203.0.113.41", ids[1])
    assert joined.status_code == 202 and joined.json()["ahead"] == 1
    assert server.app.state.analysis.pending() == 3


async def test_analysis_requests_per_address_are_rate_limited(
    make_server: Callable[..., Any], sessions: async_sessionmaker, monkeypatch: Any
) -> None:
    monkeypatch.setattr(analysis, "make_analysis_executor", _Stalled)
    server = make_server(trusted_proxies=BEHIND_PROXY, analysis_rate_ip="3/minute")
    [match_id] = await _finished_matches(sessions, 1)
    codes = [(await _ask_analysis(server.base_url, "203.0.113.50", match_id)).status_code
             for _ in range(4)]
    assert codes == [202, 202, 202, 429]
    refused = await _ask_analysis(server.base_url, "203.0.113.50", match_id)
    assert "too many analyses" in refused.json()["message"]


async def test_a_registered_player_has_one_analysis_of_their_own_in_the_queue(
    make_server: Callable[..., Any], sessions: async_sessionmaker, monkeypatch: Any
) -> None:
    monkeypatch.setattr(analysis, "make_analysis_executor", _Stalled)
    server = make_server()
    first, second = await _finished_matches(sessions, 2)
    player, _name = await registered(server.base_url)
    async with player:
        assert (await player.http.post(f"/m/{first}/analysis")).status_code == 202
        r = await player.http.post(f"/m/{second}/analysis")
        assert r.status_code == 429 and "still in the queue" in r.json()["message"]
        assert (await player.http.post(f"/m/{first}/analysis")).status_code == 202  # joins


async def test_registered_players_on_one_address_share_its_one_analysis_place(
    make_server: Callable[..., Any], sessions: async_sessionmaker, monkeypatch: Any
) -> None:
    monkeypatch.setattr(analysis, "make_analysis_executor", _Stalled)
    server = make_server(trusted_proxies=BEHIND_PROXY)
    ids = await _finished_matches(sessions, 7)
    codes = []
    for match_id in ids[:6]:
        player, _name = await registered(server.base_url)
        async with player:
            player.http.headers["x-forwarded-for"] = "203.0.113.60"
            r = await player.http.post(f"/m/{match_id}/analysis")
            codes.append(r.status_code)
    assert codes == [202] + [429] * 5
    assert server.app.state.analysis.pending() == 1
    other = await _ask_analysis(server.base_url, "198.51.100.60", ids[6])
    assert other.status_code == 202


async def test_a_private_matchs_stake_is_hidden_from_those_who_may_not_see_it(
    make_server: Callable[..., Any]
) -> None:
    server = make_server()
    host, _host_name = await registered(server.base_url, "gela")
    friend, _friend_name = await registered(server.base_url, "tako")
    r = await host.http.post("/matches", data={"opponent": "friend", "target": "75",
                                               "bazaar": "draw", "stake": "100",
                                               "password": "s3cret-table"})
    assert r.status_code == 303, r.text
    match_id = r.headers["location"].rsplit("/", 1)[1]
    token = await host.share_token(match_id)
    assert (await friend.http.post(f"/t/{token}",
                                   data={"password": "s3cret-table"})).status_code == 303
    async with Visitor(server.base_url) as outsider, Visitor(server.base_url) as watcher:
        assert (await outsider.http.get(f"/m/{match_id}")).status_code == 403
        hidden = await outsider.http.get(f"/wallet/match/{match_id}.json")
        # The stake's figure is nowhere on the page (a guest's name such as guest-52100 in
        # its header is no leak).
        assert hidden.status_code == 404
        assert "100" not in re.sub(r"guest-\d+", "", hidden.text)
        unknown = await outsider.http.get("/wallet/match/nosuchmatch.json")
        assert unknown.status_code == 404  # a private match looks like no match at all
        # Who gave the password watches the match, and sees its stake as its page does.
        assert (await watcher.http.post(f"/t/{token}",
                                        data={"password": "s3cret-table"})).status_code == 303
        seen = await watcher.http.get(f"/wallet/match/{match_id}.json")
        assert seen.status_code == 200 and seen.json()["stake"] == 100
        for player in (host, friend):
            mine = (await player.http.get(f"/wallet/match/{match_id}.json")).json()
            assert mine == {"stake": 100, "delta": -100, "paid": False, "escrow": 200}
    for v in (host, friend):
        await v.__aexit__()
