"""The WebSocket protocol: every bad frame gets the contract's error and changes nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.helpers.webhelp import ServerThread, Table, Visitor, summary


async def unchanged(t: Table, before: dict) -> None:
    """Nothing changed: every viewer resyncs to the same version and view as before."""
    after = await t.mover.resync()
    assert after["version"] == before["version"]
    assert after["view"] == before["view"]
    # and nobody was sent a new state meanwhile
    for s in (t.waiter, t.watcher):
        assert s.state["version"] == before["version"]


async def test_malformed_json(table: Table) -> None:
    before = table.mover.state
    for frame in ("{nope", "", "[1, 2", "\x00", "{'type': 'hello'}"):
        await table.mover.expect_error(frame, "bad_json")
    await unchanged(table, before)


async def test_unknown_message_types(table: Table) -> None:
    before = table.mover.state
    for msg in ({"type": "dance"}, {"no": "type"}, [1, 2], 42, "hello", None,
                {"type": ["action"]}, {"type": "Action"}):
        await table.mover.expect_error(json.dumps(msg), "unknown_type")
    await unchanged(table, before)


async def test_oversized_message(table: Table) -> None:
    before = table.mover.state
    big = json.dumps({"type": "action", "version": before["version"],
                      "action": {"type": "play", "tile": "1-1", "pad": "x" * 5000}})
    await table.mover.expect_error(big, "too_big")
    await unchanged(table, before)


async def test_illegal_moves(table: Table) -> None:
    before = table.mover.state
    v = before["version"]
    view = before["view"]
    not_mine = next(f"{a}-{b}" for a in range(7) for b in range(a, 7)
                    if f"{a}-{b}" not in view["hand"])
    unplayable = [t for t in view["hand"] if t not in {a["tile"] for a in view["legal"]}]
    bad_actions = [
        {"type": "play", "tile": not_mine},
        {"type": "play", "tile": "9-9"},
        {"type": "play", "tile": 66},
        {"type": "play", "tile": view["legal"][0]["tile"], "end": "X"},
        {"type": "draw"},
        {"type": "pass"},
        {"type": "fly"},
        "play 6-6",
        None,
    ] + [{"type": "play", "tile": t} for t in unplayable]
    for action in bad_actions:
        await table.mover.expect_error({"type": "action", "version": v, "action": action},
                                       "illegal")
    await unchanged(table, before)


async def test_move_out_of_turn(table: Table) -> None:
    before = table.mover.state
    v = before["version"]
    for tile in table.waiter.state["view"]["hand"]:
        await table.waiter.expect_error(
            {"type": "action", "version": v, "action": {"type": "play", "tile": tile}},
            "not_your_turn")
    await unchanged(table, before)


async def test_stale_and_duplicated_actions(table: Table) -> None:
    before = table.mover.state
    v = before["version"]
    action = {"type": "action", "version": v, "action": before["view"]["legal"][0]}
    for version in (v - 1, v + 1, 0, -5, "1", None, True, 1.5):
        await table.mover.expect_error({**action, "version": version}, "stale")
    await unchanged(table, before)
    # The real thing, then the same frame again (a double click, a replayed packet).
    await table.mover.send(action)
    played = await table.mover.wait_state(v + 1)
    await table.waiter.wait_state(v + 1)
    await table.mover.expect_error(action, "stale")
    after = await table.mover.resync()
    # Played once: one tile fewer in hand and one placement more on the board (the opponent's
    # forced draws, if any, may have moved the version on since).
    trace = " | ".join(summary(m) for m in table.mover.messages[-6:])
    assert len(after["view"]["hand"]) == len(before["view"]["hand"]) - 1, trace
    placements = [m for m in after["view"]["moves"] if m["kind"] in ("open", "play")]
    assert len(placements) == len([m for m in before["view"]["moves"]
                                   if m["kind"] in ("open", "play")]) + 1, trace
    assert after["version"] >= played["version"] == v + 1, trace
    assert all(m["kind"] == "draw"
               for m in after["view"]["moves"][len(played["view"]["moves"]):]), trace


async def test_spectator_cannot_act(table: Table) -> None:
    before = table.mover.state
    v = before["version"]
    await table.watcher.expect_error(
        {"type": "action", "version": v, "action": before["view"]["legal"][0]}, "not_seated")
    await table.watcher.expect_error({"type": "resign"}, "not_seated")
    await unchanged(table, before)


async def test_ping_and_hello(table: Table) -> None:
    count = len(table.mover.messages)
    await table.mover.send({"type": "ping"})
    reply = await table.mover._next(count, 15.0)
    while reply.get("type") == "spectators":  # a watcher's arrival may be told in between
        count += 1
        reply = await table.mover._next(count, 15.0)
    assert reply == {"type": "pong"}
    state = await table.mover.resync()
    assert state["type"] == "state" and state["event"] is None


async def test_nothing_goes_after_the_end(table: Table) -> None:
    v = table.mover.state["version"]
    await table.waiter.send({"type": "resign"})
    over = await table.mover.wait_state(v + 1)
    assert over["view"]["over"] and over["event"]["kind"] == "resign"
    assert over["view"]["winner"] == table.mover.state["you"]
    await table.waiter.wait_state(v + 1)
    for sock in (table.mover, table.waiter):
        await sock.expect_error({"type": "action", "version": v + 1,
                                 "action": {"type": "play", "tile": "6-6"}}, "over")
        await sock.expect_error({"type": "resign"}, "over")
    after = await table.mover.resync()
    assert after["version"] == v + 1


async def test_waiting_table_takes_no_moves(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host:
        match_id = await host.new_match("friend")
        sock = await host.connect(match_id)
        assert sock.state["status"] == "waiting"
        assert sock.state["view"]["legal"] == [] or sock.state["view"]["turn"] != 0
        await sock.expect_error({"type": "action", "version": 1,
                                 "action": {"type": "play", "tile": "6-6"}}, "illegal")
        await sock.expect_error({"type": "resign"}, "illegal")
        assert (await sock.resync())["version"] == 1
        await sock.close()


async def test_cross_site_pages_cannot_open_the_socket(server: ServerThread) -> None:
    async with Visitor(server.base_url) as me:
        match_id = await me.new_match("bot:easy")
        url = server.base_url.replace("http://", "ws://") + f"/ws/m/{match_id}"
        cookie = {"Cookie": f"kva_session={me.cookie}"}
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(url, origin="https://evil.example",
                                          additional_headers=cookie):
                pass
        # The site's own origin is fine.
        async with websockets.connect(url, origin=server.base_url,
                                      additional_headers=cookie) as ws:
            await ws.send(json.dumps({"type": "hello", "version": 0}))
            assert json.loads(await ws.recv())["type"] == "state"


async def test_unknown_match_socket_is_refused(server: ServerThread) -> None:
    url = server.base_url.replace("http://", "ws://") + "/ws/m/nope"
    with pytest.raises(websockets.InvalidStatus):
        async with websockets.connect(url):
            pass


async def test_the_same_move_from_two_tabs_at_once_is_played_once(server: ServerThread) -> None:
    async with Visitor(server.base_url) as host, Visitor(server.base_url) as guest:
        match_id = await host.new_match("friend", target=75)
        token = await host.share_token(match_id)
        await guest.http.get(f"/t/{token}")
        tabs = {}
        for who in (host, guest):
            tabs[who] = (await who.connect(match_id), await who.connect(match_id))
        first, second = next(t for t in tabs.values() if t[0].my_turn())
        s = first.state
        action = {"type": "action", "version": s["version"], "action": s["view"]["legal"][0]}
        await asyncio.gather(first.send(action), second.send(action))
        await first.wait_state(s["version"] + 1)
        for _ in range(1000):  # the losing tab's refusal
            if first.errors or second.errors:
                break
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.2)  # and no second refusal, nor a second move
        errors = first.errors + second.errors
        assert [e["code"] for e in errors] == ["stale"]
        after = await first.resync()
        assert len(after["view"]["hand"]) == len(s["view"]["hand"]) - 1
        for pair in tabs.values():
            for tab in pair:
                await tab.close()
