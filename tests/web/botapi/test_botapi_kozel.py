"""A bot account at a Kozel table of three: it joins a person's open table through
``POST /api/bot/table/{id}/join`` beside a kva bot, hears ``match_start`` with every seat,
plays its seat's view through the API to the end (only its own tiles ever shown), has a bad
action refused with nothing changed, hears ``match_over``, and the record verifies."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from kva.games import get as get_game
from kva.kozel.codes import TILE_NAME
from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import ServerThread, Socket
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot


async def _open_kozel_table(person: Any, seats: int) -> str:
    r = await person.http.post("/matches", data={"opponent": "open", "game": "kozel",
                                                 "seats": str(seats), "fish": "all"})
    assert r.status_code == 303, r.text
    return str(r.headers["location"].rsplit("/", 1)[-1])


def _person_turn(sock: Socket) -> dict[str, Any] | None:
    """The person's first legal action when it is their turn, else None."""
    if not sock.states:
        return None
    s = sock.state
    v = s["view"]
    if s["status"] != "active" or v["over"] or v["turn"] != s["you"] or not v["legal"] \
            or v["forced"] is not None:  # a forced draw is the server's own
        return None
    return dict(v["legal"][0])


def _others_tiles(record: dict[str, Any], hand: int, seat: int) -> set[str]:
    deal = record["hands"][hand]["deal"]["hands"]
    return {t for other, tiles in enumerate(deal) if other != seat for t in tiles}


async def test_a_bot_account_joins_a_kozel_table_and_plays_it_to_the_end(
        server: ServerThread) -> None:
    owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    match_id = await _open_kozel_table(person, 3)
    r = await person.http.post(f"/m/{match_id}/bot", data={"level": "easy"})
    assert r.status_code in (200, 303), r.text
    r = await api.post(f"/api/bot/table/{match_id}/join")
    assert r.status_code == 200, r.text
    start = r.json()["match"]
    assert (start["id"], start["game"], start["seat"], start["seats"]) == (
        match_id, "kozel", 2, 3)
    assert start["players"] == [{"name": person_name, "bot": None},
                                {"name": None, "bot": "easy"},
                                {"name": bot_name, "bot": None}]
    assert start["opponent"] is None and start["rules"]["fish"] == "all"
    heard = await events.wait_for(lambda m: m.get("type") == "match_start")
    assert heard["match"] == start
    again = await api.post(f"/api/bot/table/{match_id}/join")  # one seat per account
    assert again.status_code == 200 and again.json()["match"] == start, again.text
    late_owner, _late_name, late_token = await new_bot(server.base_url, "l")
    late = ApiClient(server.base_url, late_token)
    full = await late.post(f"/api/bot/table/{match_id}/join")  # full and started now
    assert (full.status_code, full.json()["code"]) == (409, "taken"), full.text
    await late.close()
    await late_owner.__aexit__()

    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    sock = await person.connect(match_id)
    rng = random.Random(5)
    refused_once = False
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not (stream.states and stream.states[-1]["view"]["over"]):
        assert loop.time() < deadline, "match not over in time"
        mine = _person_turn(sock)
        if mine is not None:
            await sock.send({"type": "action", "version": sock.state["version"],
                             "action": mine})
            await sock.wait_for(lambda m, v=sock.state["version"]: (
                m.get("type") == "state" and m["version"] > v) or m.get("type") == "error")
            assert not sock.errors, sock.errors
            continue
        s = stream.states[-1] if stream.states else None
        if s is not None and s["status"] == "active" and s["view"]["turn"] == s["you"] \
                and s["view"]["legal"] and s["view"]["forced"] is None:
            if not refused_once:  # a tile the bot does not hold: refused, nothing moves
                held = set(s["view"]["tiles"])
                foreign = next(t for t in TILE_NAME if t not in held)
                bad = await api.post(f"/api/bot/match/{match_id}/action",
                                     {"version": s["version"],
                                      "action": {"type": "play", "tile": foreign, "end": "L"}})
                assert (bad.status_code, bad.json()["code"]) == (422, "illegal"), bad.text
                assert stream.states[-1]["version"] == s["version"]
                refused_once = True
            action = rng.choice(s["view"]["legal"])
            r = await api.post(f"/api/bot/match/{match_id}/action",
                               {"version": s["version"], "action": action})
            assert r.status_code in (200, 409), r.text
            if r.status_code == 200:
                await stream.wait_for(lambda m, v=s["version"]: m["version"] > v)
            continue
        await asyncio.sleep(0.005)
    assert refused_once
    over = await events.wait_for(lambda m: m.get("type") == "match_over"
                                 and m["match"]["id"] == match_id)
    assert over["match"]["seat"] == 2 and len(over["match"]["score"]) == 3
    record = (await person.http.get(f"/m/{match_id}/record.json")).json()
    get_game("kozel").verify_record(record)
    # Only the bot's own tiles: none of another seat's deal of that hand, in any state.
    assert all(s["you"] == 2 for s in stream.states)
    dealt = [s for s in stream.states if s["view"].get("tiles")]
    assert dealt
    for s in dealt:
        hand = s["view"]["hand"] - 1  # the view counts hands from 1
        assert not set(s["view"]["tiles"]) & _others_tiles(record, hand, 2), s["version"]
    for closing in (events, stream):
        await closing.close()
    await sock.close()
    await api.close()
    for v in (owner, person):
        await v.__aexit__()


async def test_joining_a_table_that_is_not_open_is_refused(server: ServerThread) -> None:
    owner, _bot_name, token = await new_bot(server.base_url)
    api = ApiClient(server.base_url, token)
    for path, status, code in [("/api/bot/table/nope/join", 404, "not_found"),
                               ("/api/bot/table/" + "x" * 40 + "/join", 404, "not_found")]:
        r = await api.post(path)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    r = await api.post("/api/bot/table/nope/join", {"seat": 1})
    assert (r.status_code, r.json()["code"]) == (400, "unknown_field"), r.text
    anonymous = ApiClient(server.base_url, "kvab_wrong")
    r = await anonymous.post("/api/bot/table/nope/join")
    assert r.status_code == 401, r.text
    await anonymous.close()
    await api.close()
    await owner.__aexit__()


async def _seated_names(person: Any, match_id: str) -> list[str | None]:
    """Who sits in each seat of a table, as a fresh socket of its creator is told."""
    sock = await person.connect(match_id)
    try:
        state = await sock.wait_for(lambda m: m.get("type") == "state")
        return [p["name"] if p else None for p in state["players"]]
    finally:
        await sock.close()


async def test_a_bot_account_keeps_its_seat_at_an_open_table_while_its_stream_is_open(
        make_server: Any) -> None:
    """Seats of players gone for the grace period are freed at a table still waiting; a bot
    account is there while its event stream is open, as a person is while their page is, so
    its seat stays, and goes once the stream has been closed for the grace period."""
    server = make_server(disconnect_grace=0.5)
    owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    match_id = await _open_kozel_table(person, 4)
    waiting = await person.connect(match_id)  # the creator stays at the table
    r = await api.post(f"/api/bot/table/{match_id}/join")
    assert r.status_code == 200, r.text
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    await asyncio.sleep(2.0)  # four times the grace: several sweeps
    assert await _seated_names(person, match_id) == [person_name, bot_name, None, None]
    await events.close()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while (await _seated_names(person, match_id))[1] is not None:
        assert loop.time() < deadline, "the seat of a bot gone for the grace period stayed"
        await asyncio.sleep(0.25)
    # Its match stream viewed the match as that seat: it ends there, before anyone else sits
    # down in it and is dealt.
    gone = await stream.wait_for(lambda m: m.get("type") == "error")
    assert gone["code"] == "not_seated"
    await stream.wait_ended()
    await waiting.close()
    await api.close()
    await owner.__aexit__()
