"""The secrecy test of the WebSocket (tests/web/test_web_secrecy.py) applied to the bot API's
match stream: two bots play a whole match through the API while a person watches on the
WebSocket; every line each bot's stream carried holds only what its seat may know, the server
seed appears in none before the end, and the stream carries states only (no presence, rematch
or other messages), every version once and in order, each for its own seat."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.helpers.webhelp import ServerThread, Visitor
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot
from tests.web.test_web_secrecy import check_fair, check_messages, positions


def first_play(state: dict[str, Any]) -> dict[str, Any] | None:
    view = state["view"]
    if state["status"] != "active" or view["over"] or view["turn"] != state["you"]:
        return None
    plays = [a for a in view["legal"] if a["type"] == "play"]
    return plays[0] if plays else None


async def test_bot_streams_carry_exactly_the_seat_view(server: ServerThread) -> None:
    owners = []
    clients = []
    names = []
    for _ in range(2):
        owner, name, token = await new_bot(server.base_url)
        owners.append(owner)
        names.append(name)
        clients.append(ApiClient(server.base_url, token))
    events = await Stream(clients[1], "/api/bot/stream").open()
    r = await clients[0].post(f"/api/challenge/{names[1]}", {"target": 75})
    assert r.status_code == 201, r.text
    challenge = await events.wait_for(lambda m: m.get("type") == "challenge")
    r = await clients[1].post(f"/api/challenge/{challenge['challenge']['id']}/accept")
    match_id = r.json()["match_id"]
    streams = [await Stream(c, f"/api/bot/match/{match_id}/stream").open() for c in clients]
    async with Visitor(server.base_url) as watcher:
        spectator = await watcher.connect(match_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        while not all(s.ended for s in streams):
            assert loop.time() < deadline, "match not over in time"
            moved = False
            for client, stream in zip(clients, streams, strict=True):
                if not stream.states:
                    continue
                state = stream.states[-1]
                action = first_play(state)
                if action is None:
                    continue
                r = await client.post(f"/api/bot/match/{match_id}/action",
                                      {"version": state["version"], "action": action})
                assert r.status_code in (200, 409), r.text
                await stream.wait_for(lambda m, v=state["version"]: m["version"] > v)
                moved = True
            if not moved:
                await asyncio.sleep(0.005)
        record = (await watcher.http.get(f"/m/{match_id}/record.json")).json()
        truths = positions(record)
        final = streams[0].states[-1]["version"]
        first_action = final - len(truths) + 2
        for seat, stream in enumerate(streams):
            assert all(m.get("type") == "state" for m in stream.messages), "not only states"
            assert all(m["you"] == seat for m in stream.states)
            assert check_messages(stream, truths, record, first_action) > 5  # type: ignore[arg-type]
            check_fair(stream, record, [])  # type: ignore[arg-type]
            versions = [m["version"] for m in stream.states]
            assert versions == sorted(set(versions)) and versions[-1] == final
            # The bazaar's order never shows as a run of tiles in a line a seat was sent
            # while nothing of that hand's bazaar was drawn. (Once a seat draws, the tiles it
            # drew are its own, in its hand and its draw events: a run of the bazaar's first
            # tiles may then show, rightly.)
            for number, hand in enumerate(record["hands"], start=1):
                run = ",".join(f'"{t}"' for t in hand["deal"]["bazaar"][:3])
                undrawn = [text for text, m in zip(stream.raw, stream.messages, strict=True)
                           if m["view"]["hand_number"] == number
                           and m["view"]["bazaar_counts"]["drawn"] == 0]
                assert all(run not in text for text in undrawn)
        await spectator.wait_state(final)
        check_messages(spectator, truths, record, first_action)
        await spectator.close()
    await events.close()
    for c in clients:
        await c.close()
    for o in owners:
        await o.__aexit__()
