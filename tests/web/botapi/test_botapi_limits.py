"""The bot API's limits: the per-token rate limit, a bot that does not move in time loses
on time as a person would (its match stream counts as its presence), and challenges are
limited per address and per challenged bot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.settings.network import parse_trusted_proxies
from kva.storage.botapi import Challenge
from kva.storage.models import User
from tests.helpers.accounts_help import registered
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot


async def test_rate_limit_per_token(make_server: Callable[..., Any]) -> None:
    server = make_server(bot_api_rate="5/second")
    owner, _name, token = await new_bot(server.base_url)
    _owner2, _name2, token2 = await new_bot(server.base_url)
    api, other = ApiClient(server.base_url, token), ApiClient(server.base_url, token2)
    statuses = [(await api.http.get("/api/account")) for _ in range(8)]
    refused = [r for r in statuses if r.status_code == 429]
    assert refused and statuses[0].status_code == 200
    assert refused[0].json()["code"] == "rate_limited"
    assert int(refused[0].headers["Retry-After"]) >= 1
    assert (await other.http.get("/api/account")).status_code == 200  # per token
    await asyncio.sleep(1.2)
    assert (await api.http.get("/api/account")).status_code == 200
    for c in (api, other):
        await c.close()
    for v in (owner, _owner2):
        await v.__aexit__()


async def test_a_bot_that_does_not_move_loses_on_time(
        make_server: Callable[..., Any]) -> None:
    # a challenge is played with the standard clock: here 1 s a move + 1 s of reserve
    server = make_server(clock_presets=(("blitz", 10, 60), ("standard", 1, 1),
                                        ("relaxed", 45, 300)))
    owner, bot_name, token = await new_bot(server.base_url)
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    person, _ = await registered(server.base_url, "h")
    r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
    assert r.status_code == 303
    challenge = await events.wait_for(lambda m: m.get("type") == "challenge")
    r = await api.post(f"/api/challenge/{challenge['challenge']['id']}/accept")
    match_id = r.json()["match_id"]
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()  # present, idle
    first = await stream.wait_for(lambda m: m.get("type") == "state")
    assert first["clock"]["preset"] == "standard" and first["clock"]["per_move"] == 1
    sock = await person.connect(match_id)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not sock.state["view"]["over"]:
        assert loop.time() < deadline, "no time loss"
        if sock.my_turn():
            await sock.play_first_legal()
        await asyncio.sleep(0.05)
    view = sock.state["view"]
    assert view["forfeit_reason"] == "timeout" and view["winner"] == sock.state["you"]
    assert sock.state["clock"]["flagged"] == 1 - sock.state["you"]
    over = await events.wait_for(lambda m: m.get("type") == "match_over")
    assert over["match"]["reason"] == "time" and over["match"]["seat"] == 1
    await stream.wait_ended()
    await sock.close()
    await events.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()


async def test_the_match_stream_is_the_bots_presence(make_server: Callable[..., Any]) -> None:
    server = make_server(disconnect_grace=30.0)
    owner, bot_name, token = await new_bot(server.base_url)
    api = ApiClient(server.base_url, token)
    person, _ = await registered(server.base_url, "h")
    r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
    challenge_id = r.headers["location"].rsplit("/", 1)[1]
    r = await api.post(f"/api/challenge/{challenge_id}/accept")
    match_id = r.json()["match_id"]
    sock = await person.connect(match_id)
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    await stream.wait_for(lambda m: m.get("type") == "state")
    await stream.close()  # the bot's program went away
    away = await sock.wait_for(lambda m: m.get("type") == "presence" and m["seat"] == 1)
    assert away["online"] is False and 0 < away["claim_in"] <= 30
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    back = await sock.wait_for(lambda m: m.get("type") == "presence" and m["online"])
    assert back["seat"] == 1
    await stream.close()
    await sock.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()


async def test_open_streams_per_token_are_capped(make_server: Callable[..., Any]) -> None:
    from kva.web.botapi import MAX_STREAMS

    server = make_server(bot_api_rate="1000000/minute")
    owner, _name, token = await new_bot(server.base_url)
    api = ApiClient(server.base_url, token)
    streams = [await Stream(api, "/api/bot/stream").open() for _ in range(MAX_STREAMS)]
    await asyncio.sleep(0.2)
    r = await api.http.get("/api/bot/stream")
    assert r.status_code == 429 and r.json()["code"] == "too_many_streams"
    await streams[0].close()
    await asyncio.sleep(0.3)
    again = await Stream(api, "/api/bot/stream").open()
    assert again.status == 200
    for s in (*streams[1:], again):
        await s.close()
    await api.close()
    await owner.__aexit__()


async def test_unanswered_challenges_expire(make_server: Callable[..., Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from kva.service import botapi

    # Long enough that the challenges below are all still pending when the cap is checked,
    # even on a loaded machine; the wait below is measured from the last of them.
    ttl = 3.0
    monkeypatch.setattr(botapi, "CHALLENGE_TTL", timedelta(seconds=ttl))
    server = make_server(challenge_rate_ip="100/minute")  # the challenger's own cap meets first
    owner, bot_name, token = await new_bot(server.base_url)
    api = ApiClient(server.base_url, token)
    person, _ = await registered(server.base_url, "h")
    ids = []
    for _ in range(botapi.MAX_PENDING):
        r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
        assert r.status_code == 303
        ids.append(r.headers["location"].rsplit("/", 1)[1])
    last_made = time.monotonic()
    r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
    assert r.status_code == 429 and 'data-code="too_many_challenges"' in r.text
    await asyncio.sleep(max(0.0, last_made + ttl + 0.3 - time.monotonic()))
    r = await api.post(f"/api/challenge/{ids[0]}/accept")
    assert r.status_code == 409 and r.json()["code"] == "expired"
    assert (await api.http.get(f"/api/challenge/{ids[0]}")).json()["status"] == "expired"
    events = await Stream(api, "/api/bot/stream").open()
    r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
    assert r.status_code == 303  # the expired ones no longer count against the challenger
    fresh = await events.wait_for(lambda m: m.get("type") == "challenge")
    assert fresh["challenge"]["id"] == r.headers["location"].rsplit("/", 1)[1]
    assert all(m["challenge"]["id"] not in ids for m in events.messages)
    await events.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()


async def _pending_to(sessions: async_sessionmaker, nickname: str) -> int:
    async with sessions() as session:
        return int(await session.scalar(
            select(func.count()).select_from(Challenge).join(User, User.id == Challenge.target_id)
            .where(User.nickname == nickname, Challenge.status == "pending")) or 0)


async def _challenge_from(base_url: str, address: str, bot_name: str) -> httpx.Response:
    """A cookie-less visitor at ``address`` challenges ``bot_name`` from the Bots page."""
    async with httpx.AsyncClient(base_url=base_url,
                                 headers={"x-forwarded-for": address}) as http:
        return await http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})


async def test_a_flood_of_cookieless_challenges_from_one_address_is_stopped(
        make_server: Callable[..., Any], sessions: async_sessionmaker) -> None:
    server = make_server(trusted_proxies=parse_trusted_proxies("127.0.0.1"))
    owner, bot_name, _token = await new_bot(server.base_url)
    codes = [(await _challenge_from(server.base_url, "203.0.113.60", bot_name)).status_code
             for _ in range(40)]
    assert codes.count(303) == 10 and codes.count(429) == 30  # KVA_CHALLENGE_RATE_IP
    refused = await _challenge_from(server.base_url, "203.0.113.60", bot_name)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert 'data-code="rate_limited"' in refused.text and "too many challenges" in refused.text
    assert await _pending_to(sessions, bot_name) == 10
    assert (await _challenge_from(server.base_url, "198.51.100.60", bot_name)).status_code == 303
    await owner.__aexit__()


async def test_pending_challenges_to_one_bot_are_capped_whatever_the_address(
        make_server: Callable[..., Any], sessions: async_sessionmaker) -> None:
    server = make_server(trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                         challenges_per_target=5)
    owner, bot_name, _token = await new_bot(server.base_url)
    other_owner, other_bot, _token2 = await new_bot(server.base_url, "s")
    codes = [(await _challenge_from(server.base_url, f"203.0.113.{70 + i}", bot_name)
              ).status_code for i in range(8)]
    assert codes == [303] * 5 + [429] * 3
    refused = await _challenge_from(server.base_url, "203.0.113.90", bot_name)
    assert 'data-code="target_busy"' in refused.text
    assert await _pending_to(sessions, bot_name) == 5
    # The cap is the bot's own: another bot is still challenged, and the API says so too.
    assert (await _challenge_from(server.base_url, "203.0.113.91", other_bot)).status_code == 303
    _o3, _b3, token3 = await new_bot(server.base_url, "t")
    api = ApiClient(server.base_url, token3)
    r = await api.post(f"/api/challenge/{bot_name}", {"target": 75})
    assert r.status_code == 429 and r.json()["code"] == "target_busy"
    await api.close()
    for v in (owner, other_owner, _o3):
        await v.__aexit__()
