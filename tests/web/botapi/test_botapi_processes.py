"""The bot API across two server processes' worth of apps sharing the database and a Redis
broker: a bot on one process, the person on the other, a whole match; the bot's events cross
the broker; a token revoked on one process ends its streams on the other at once; a new bot's
name is marked on both."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers.accounts_help import registered
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot


async def test_bot_on_one_process_person_on_another(make_server: Callable[..., Any]) -> None:
    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    a, b = make_server(REDIS_URL), make_server(REDIS_URL)
    owner, bot_name, token = await new_bot(a.base_url)
    assert 'data-testid="bot-mark"' in (await owner.http.get(f"{b.base_url}/u/{bot_name}")).text
    api = ApiClient(b.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    person, _ = await registered(a.base_url, "h")
    r = await person.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
    assert r.status_code == 303, r.text
    challenge = await events.wait_for(lambda m: m.get("type") == "challenge")
    r = await api.post(f"/api/challenge/{challenge['challenge']['id']}/accept")
    assert r.status_code == 200, r.text
    match_id = r.json()["match_id"]
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    sock = await person.connect(match_id)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not (stream.states and stream.states[-1]["view"]["over"]):
        assert loop.time() < deadline, "match not over in time"
        if sock.my_turn():
            await sock.play_first_legal()
            continue
        s = stream.states[-1] if stream.states else None
        view = s["view"] if s else None
        if s and view and s["status"] == "active" and view["turn"] == s["you"]:
            plays = [x for x in view["legal"] if x["type"] == "play"]
            if plays:
                r = await api.post(f"/api/bot/match/{match_id}/action",
                                   {"version": s["version"], "action": plays[0]})
                assert r.status_code in (200, 409), r.text
                if r.status_code == 200:
                    await stream.wait_for(lambda m, v=s["version"]: m["version"] > v)
                continue
        await asyncio.sleep(0.005)
    over = await events.wait_for(lambda m: m.get("type") == "match_over")
    assert over["match"]["id"] == match_id
    await sock.wait_state(stream.states[-1]["version"])
    # Revoked on process a: the event stream on process b ends at once.
    page = (await owner.http.get("/settings/bot")).text
    token_id = re.search(r'data-token-id="(\d+)" data-revoked="false"', page).group(1)  # type: ignore[union-attr]
    started = loop.time()
    assert (await owner.http.post(f"/settings/bot/tokens/{token_id}/revoke")).status_code == 303
    end = await events.wait_for(lambda m: m.get("type") == "error", timeout=5)
    assert end["code"] == "revoked" and loop.time() - started < 5
    assert (await api.http.get("/api/account")).status_code == 401
    await sock.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()
