"""The bot API over HTTP against a server in this process: accounts and tokens, challenges,
a whole match between a person (WebSocket) and a bot (API), the seat's view and nothing
more on the match stream, and every refusal as a JSON error with its HTTP status."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import websockets

from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import ServerThread, Socket, Visitor
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot
from tests.web.test_web_secrecy import check_fair, check_messages, positions


def greedy(view: dict[str, Any]) -> dict[str, Any] | None:
    plays = [a for a in view["legal"] if a["type"] == "play"]
    return plays[0] if plays else None


async def start_match(api: ApiClient, person: Visitor, person_name: str,
                      bot_events: Stream, rated: bool = False) -> str:
    """The person challenges the bot from the Bots page; the bot accepts; the match id."""
    bots_page = await person.http.get("/bots")
    assert bots_page.status_code == 200
    r = await person.http.post(f"/bots/{bot_events.path_name}/challenge",
                               data={"target": "75", "bazaar": "draw",
                                     "rated": "1" if rated else ""})
    assert r.status_code == 303, r.text
    challenge_url = r.headers["location"]
    event = await bot_events.wait_for(lambda m: m.get("type") == "challenge")
    assert event["challenge"]["challenger"] == {"name": person_name, "bot": False}
    assert event["challenge"]["rated"] is rated
    r = await api.post(f"/api/challenge/{event['challenge']['id']}/accept")
    assert r.status_code == 200, r.text
    match_id = str(r.json()["match_id"])
    started = await bot_events.wait_for(lambda m: m.get("type") == "match_start")
    assert started["match"]["id"] == match_id and started["match"]["seat"] == 1
    page = await person.http.get(challenge_url)
    assert page.status_code == 303 and page.headers["location"] == f"/m/{match_id}"
    return match_id


async def test_person_against_api_bot_whole_match(server: ServerThread) -> None:
    owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    events.path_name = bot_name  # type: ignore[attr-defined]
    listing = (await person.http.get("/bots")).text
    assert f'data-nickname="{bot_name}"' in listing
    match_id = await start_match(api, person, person_name, events, rated=True)
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    sock = await person.connect(match_id)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not (stream.states and stream.states[-1]["view"]["over"]):
        assert loop.time() < deadline, "match not over in time"
        if sock.my_turn():
            await sock.play_first_legal()
            continue
        if stream.states:
            s = stream.states[-1]
            action = greedy(s["view"]) if s["view"]["turn"] == s["you"] else None
            if action is not None and s["status"] == "active":
                r = await api.post(f"/api/bot/match/{match_id}/action",
                                   {"version": s["version"], "action": action})
                assert r.status_code in (200, 409), r.text
                if r.status_code == 200:
                    await stream.wait_for(lambda m, v=s["version"]: m["version"] > v)
                continue
        await asyncio.sleep(0.005)
    await stream.wait_ended()
    over = await events.wait_for(lambda m: m.get("type") == "match_over")
    assert over["match"]["id"] == match_id
    record = (await person.http.get(f"/m/{match_id}/record.json")).json()
    truths = positions(record)
    final = stream.states[-1]["version"]
    first_action = final - len(truths) + 2
    # The bot's stream holds the seat's view exactly: the checks of the WebSocket secrecy
    # test, line by line, and the same message shape as the WebSocket's states.
    assert check_messages(stream, truths, record, first_action) > 5  # type: ignore[arg-type]
    check_fair(stream, record, [])  # type: ignore[arg-type]
    await sock.wait_state(final)
    assert all(s["you"] == 1 for s in stream.states)
    ws_states = {m["version"]: m for m in sock.states}
    for line in stream.states:
        assert set(line) == set(ws_states.get(line["version"], line))
    versions = [m["version"] for m in stream.states]
    assert versions == sorted(set(versions))
    assert sock.state["view"]["over"]
    # Rated between a bot and a person: both ratings moved, as for anyone.
    ratings = stream.states[-1]["event"]["ratings"]
    assert len(ratings) == 2 and all(r["before"] != r["after"] for r in ratings)
    # The bot is marked as a bot wherever its name shows.
    for path in (f"/m/{match_id}", "/ratings", f"/u/{bot_name}", f"/u/{person_name}"):
        page = (await person.http.get(path)).text
        assert 'data-testid="bot-mark"' in page, path
    await events.close()
    await sock.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()


async def test_refusals_and_security(server: ServerThread) -> None:
    owner_a, name_a, token_a = await new_bot(server.base_url)
    owner_b, name_b, token_b = await new_bot(server.base_url)
    a, b = ApiClient(server.base_url, token_a), ApiClient(server.base_url, token_b)
    nobody = ApiClient(server.base_url, "kvab_nope")
    # No token, an unknown token.
    r = await a.http.get("/api/bot/stream", headers={"Authorization": ""})
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    r = await nobody.http.get("/api/account")
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    # Bodies: bad JSON, not an object, unknown fields, wrong types, huge.
    path = f"/api/challenge/{name_b}"
    cases = [(b"{", 400, "bad_json"), (b"[1]", 400, "bad_json"),
             (b'{"target": 75, "colour": "red"}', 400, "unknown_field"),
             (b'{"target": "75"}', 400, "bad_type"), (b'{"rated": 1}', 400, "bad_type"),
             (b'{"target": 76}', 400, "bad_settings"),
             (b'{"x": "' + b"a" * 5000 + b'"}', 413, "too_big")]
    for body, status, code in cases:
        r = await a.http.post(path, content=body, headers={"content-type": "application/json"})
        assert (r.status_code, r.json()["code"]) == (status, code), (body[:30], r.text)
    # Two bots: casual only.
    r = await a.post(path, {"target": 75, "rated": True})
    assert r.status_code == 400 and r.json()["code"] == "bots_casual"
    events_b = await Stream(b, "/api/bot/stream").open()
    r = await a.post(path, {"target": 75})
    assert r.status_code == 201, r.text
    challenge = r.json()
    assert challenge["target"] == {"name": name_b, "bot": True}
    await events_b.wait_for(lambda m: m.get("type") == "challenge")
    # Only the target accepts.
    r = await a.post(f"/api/challenge/{challenge['id']}/accept")
    assert r.status_code == 403 and r.json()["code"] == "not_target"
    r = await b.post(f"/api/challenge/{challenge['id']}/accept")
    assert r.status_code == 200, r.text
    match_id = r.json()["match_id"]
    r = await b.post(f"/api/challenge/{challenge['id']}/accept")
    assert r.status_code == 409 and r.json()["code"] == "not_pending"
    # A third bot cannot act in, nor watch as a seat, a match it does not play.
    owner_c, _name_c, token_c = await new_bot(server.base_url)
    c = ApiClient(server.base_url, token_c)
    r = await c.post(f"/api/bot/match/{match_id}/action",
                     {"version": 1, "action": {"type": "play", "tile": "6-6"}})
    assert r.status_code == 403 and r.json()["code"] == "not_seated"
    r = await c.http.get(f"/api/bot/match/{match_id}/stream")
    assert r.status_code == 403 and r.json()["code"] == "not_seated"
    r = await c.post(f"/api/bot/match/{match_id}/resign")
    assert r.status_code == 403 and r.json()["code"] == "not_seated"
    # The WebSocket's codes with HTTP statuses.
    stream_a = await Stream(a, f"/api/bot/match/{match_id}/stream").open()
    state = await stream_a.wait_for(lambda m: m.get("type") == "state" and m["view"]["legal"]
                                    or m.get("type") == "state" and m["view"]["turn"] == 1)
    v = state["version"]
    mover, waiter = (a, b) if state["view"]["turn"] == state["you"] else (b, a)
    r = await waiter.post(f"/api/bot/match/{match_id}/action",
                          {"version": v, "action": {"type": "play", "tile": "6-6"}})
    assert r.status_code == 409 and r.json()["code"] in ("not_your_turn", "stale")
    r = await mover.post(f"/api/bot/match/{match_id}/action",
                         {"version": v - 1, "action": {"type": "play", "tile": "6-6"}})
    assert r.status_code == 409 and r.json()["code"] == "stale"
    r = await mover.post(f"/api/bot/match/{match_id}/action",
                         {"version": v, "action": {"type": "play", "tile": "9-9"}})
    assert r.status_code == 422 and r.json()["code"] == "illegal"
    r = await mover.post(f"/api/bot/match/{match_id}/action", {"version": v})
    assert r.status_code == 400 and r.json()["code"] == "missing_field"
    r = await mover.post(f"/api/bot/match/{match_id}/action", {"version": True, "action": {}})
    assert r.status_code == 400 and r.json()["code"] == "bad_type"
    r = await mover.post("/api/bot/match/nope/action", {"version": 1, "action": {}})
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = await mover.http.get("/api/bot/nothing/here")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    assert (await mover.http.get("/api")).json()["version"] == 1
    # A bot account is kept off the pages people play with.
    r = await owner_a.http.post("/matches", data={"opponent": "bot:easy", "target": "75",
                                                  "bazaar": "draw"})
    assert r.status_code == 403 and r.json()["code"] == "bot_account"
    bot_sock = Socket(server.base_url, match_id, owner_a.cookie)
    with pytest.raises(websockets.InvalidStatus):  # refused at the handshake
        await bot_sock.open(hello=False)
    # Revoking a token refuses it at once, and ends its open streams.
    events_a = await Stream(a, "/api/bot/stream").open()
    settings = (await owner_a.http.get("/settings/bot")).text
    token_id = re.search(r'data-token-id="(\d+)" data-revoked="false"', settings).group(1)  # type: ignore[union-attr]
    r = await owner_a.http.post(f"/settings/bot/tokens/{token_id}/revoke")
    assert r.status_code == 303
    for s in (stream_a, events_a):
        end = await s.wait_for(lambda m: m.get("type") == "error")
        assert end["code"] == "revoked"
        await s.wait_ended()
    r = await a.http.get("/api/account")
    assert r.status_code == 401 and r.json()["code"] == "revoked"
    # Bot b resigns: the match is over for both.
    r = await b.post(f"/api/bot/match/{match_id}/resign")
    assert r.status_code == 200, r.text
    over = await events_b.wait_for(lambda m: m.get("type") == "match_over")
    assert over["match"]["id"] == match_id and over["match"]["reason"] == "resign"
    for s in (events_b,):
        await s.close()
    for client in (a, b, c, nobody):
        await client.close()
    for v_ in (owner_a, owner_b, owner_c):
        await v_.__aexit__()


async def test_bot_rules_for_accounts(server: ServerThread) -> None:
    # Guests cannot become bots; an account that has played cannot either.
    async with Visitor(server.base_url) as guest:
        r = await guest.http.post("/settings/bot/enable")
        assert r.status_code == 303 and r.headers["location"].startswith("/login")
    player, _name = await registered(server.base_url, "h")
    await player.new_match("bot:easy")
    r = await player.http.post("/settings/bot/enable")
    assert r.status_code == 409 and 'data-code="has_matches"' in r.text
    # The concurrency limit: a bot limited to one match refuses a second challenge.
    owner, bot_name, token = await new_bot(server.base_url)
    r = await owner.http.post("/settings/bot/limit", data={"max_matches": "1"})
    assert r.status_code == 303
    api = ApiClient(server.base_url, token)
    p1, _ = await registered(server.base_url, "h")
    p2, _ = await registered(server.base_url, "h")
    ids = []
    for p in (p1, p2):
        r = await p.http.post(f"/bots/{bot_name}/challenge", data={"target": "75"})
        assert r.status_code == 303
        ids.append(r.headers["location"].rsplit("/", 1)[1])
    assert (await api.post(f"/api/challenge/{ids[0]}/accept")).status_code == 200
    r = await api.post(f"/api/challenge/{ids[1]}/accept")
    assert r.status_code == 409 and r.json()["code"] == "too_many_matches"
    r = await api.post(f"/api/challenge/{ids[1]}/decline")
    assert r.status_code == 200
    page = await p2.http.get(f"/challenges/{ids[1]}")
    assert 'data-status="declined"' in page.text
    await api.close()
    for v in (player, owner, p1, p2):
        await v.__aexit__()


async def test_a_bot_challenges_a_person_who_accepts_on_the_bots_page(
        server: ServerThread) -> None:
    owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    r = await api.post(f"/api/challenge/{person_name}", {"target": 175, "rated": True})
    assert r.status_code == 201, r.text
    challenge = r.json()
    assert challenge["target"] == {"name": person_name, "bot": False} and challenge["rated"]
    page = (await person.http.get("/bots")).text
    assert f'data-challenge="{challenge["id"]}"' in page
    r = await person.http.post(f"/challenges/{challenge['id']}/accept")
    assert r.status_code == 303 and r.headers["location"].startswith("/m/")
    match_id = r.headers["location"].rsplit("/", 1)[1]
    started = await events.wait_for(lambda m: m.get("type") == "match_start")
    assert started["match"] == {"id": match_id, "challenge_id": challenge["id"], "seat": 0,
                                "game": "georgian", "seats": 2,
                                "players": [{"name": bot_name, "bot": None},
                                            {"name": person_name, "bot": None}],
                                "opponent": person_name,
                                "rules": {"target": 175, "bazaar": "draw"}, "rated": True}
    r = await api.http.get(f"/api/challenge/{challenge['id']}")
    assert r.json()["status"] == "accepted" and r.json()["match_id"] == match_id
    # A reconnecting event stream hears of the match in progress first.
    again = await Stream(api, "/api/bot/stream").open()
    first = await again.wait_for(lambda m: True)
    assert first["type"] == "match_start" and first["match"]["id"] == match_id
    for s in (events, again):
        await s.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()
