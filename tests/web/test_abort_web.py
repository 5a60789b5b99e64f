"""Abort over the wire: the match socket's ``abort`` message and the bot API's ``abort``
route, allowed until both players have moved in the first hand and refused after that with
``too_late_to_abort`` (409 on the bot API); a spectator's abort is refused."""

from __future__ import annotations

import asyncio

from tests.helpers.accounts_help import registered
from tests.helpers.webhelp import ServerThread, Socket, Visitor
from tests.web.botapi.botapi_help import ApiClient, Stream, new_bot
from tests.web.botapi.test_botapi_api import start_match


def _moved(sock: Socket) -> set[int]:
    return {m["p"] for m in sock.state["view"]["moves"]}


async def _both_move(person: Socket, budget: float = 30.0) -> None:
    """The person plays whenever it is their turn until both seats have moved."""
    deadline = asyncio.get_running_loop().time() + budget
    while _moved(person) != {0, 1}:
        assert asyncio.get_running_loop().time() < deadline, person.state
        if person.my_turn():  # a forced draw or pass is the server's own, never sent
            await person.play_first_legal()
        else:
            await person.wait_state(person.state["version"] + 1)


async def _refused(sock: Socket, code: str) -> None:
    """Send ``abort``; the error that answers it is ``code``."""
    start = len(sock.errors)
    await sock.send({"type": "abort"})
    await sock.wait_for(lambda m: m.get("type") == "error" and len(sock.errors) > start)
    error = sock.errors[start]
    assert error["code"] == code and error["message"], error


async def _match_the_person_has_not_moved_in(v: Visitor) -> tuple[str, Socket]:
    """A new match against the easy bot, at a state where the person is on turn with a tile to
    play and has not moved yet, so nothing can move before their abort arrives. A deal where
    the bot opens and the person must draw makes both "moved" at once (the draw is the server's
    own): such a match is left for another deal."""
    for _ in range(20):
        match_id = await v.new_match("bot:easy")
        sock = await v.connect(match_id)
        state = await sock.wait_for(
            lambda m: m.get("type") == "state" and (
                m["you"] in {x["p"] for x in m["view"]["moves"]}
                or (m["view"]["turn"] == m["you"] and bool(m["view"]["legal"])
                    and m["view"]["legal"][0]["type"] == "play")))
        if state["you"] not in {x["p"] for x in state["view"]["moves"]}:
            return match_id, sock
        await sock.close()
    raise AssertionError("twenty deals in a row made the person draw before their first move")


async def test_a_player_aborts_over_the_socket_and_a_spectator_cannot(
        server: ServerThread) -> None:
    async with Visitor(server.base_url) as v, Visitor(server.base_url) as watcher:
        match_id, sock = await _match_the_person_has_not_moved_in(v)
        spectator = await watcher.connect(match_id)
        await _refused(spectator, "not_seated")
        await sock.send({"type": "abort"})
        state = await sock.wait_for(lambda m: m.get("type") == "state"
                                    and m["status"] == "cancelled")
        assert state["event"]["kind"] == "abort" and state["event"]["p"] == state["you"]
        assert state["view"]["legal"] == []


async def test_the_socket_refuses_an_abort_once_both_have_moved(server: ServerThread) -> None:
    async with Visitor(server.base_url) as v:
        match_id = await v.new_match("bot:easy")
        sock = await v.connect(match_id)
        await sock.wait_state()
        await _both_move(sock)
        await _refused(sock, "too_late_to_abort")
        assert sock.state["status"] == "active"


async def test_a_bot_aborts_through_the_api_before_both_have_moved(
        server: ServerThread) -> None:
    _owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    events.path_name = bot_name  # type: ignore[attr-defined]
    match_id = await start_match(api, person, person_name, events)
    sock = await person.connect(match_id)
    r = await api.post(f"/api/bot/match/{match_id}/abort")
    assert r.status_code == 200, r.text
    over = await events.wait_for(lambda m: m.get("type") == "match_over")
    assert over["match"]["reason"] == "abort" and over["match"]["winner"] is None
    await sock.wait_for(lambda m: m.get("type") == "state" and m["status"] == "cancelled")
    r = await api.post(f"/api/bot/match/{match_id}/abort")
    assert r.status_code == 409 and r.json()["code"] == "over"
    await events.close()
    await api.close()


async def test_the_bot_api_refuses_an_abort_once_both_have_moved(server: ServerThread) -> None:
    _owner, bot_name, token = await new_bot(server.base_url)
    person, person_name = await registered(server.base_url, "h")
    api = ApiClient(server.base_url, token)
    events = await Stream(api, "/api/bot/stream").open()
    events.path_name = bot_name  # type: ignore[attr-defined]
    match_id = await start_match(api, person, person_name, events)
    sock = await person.connect(match_id)
    stream = await Stream(api, f"/api/bot/match/{match_id}/stream").open()
    deadline = asyncio.get_running_loop().time() + 30
    while _moved(sock) != {0, 1}:
        assert asyncio.get_running_loop().time() < deadline, sock.state
        view = sock.state["view"]
        if sock.my_turn():  # a forced draw or pass is the server's own, never sent
            await sock.play_first_legal()
        elif view["turn"] is not None and view["turn"] != sock.state["you"]:
            version = sock.state["version"]
            mine = await stream.wait_for(lambda m, v=version: m.get("type") == "state"
                                         and m["version"] == v)
            legal = mine["view"]["legal"]
            if legal and legal[0]["type"] == "play":
                r = await api.post(f"/api/bot/match/{match_id}/action",
                                   {"version": version, "action": legal[0]})
                assert r.status_code == 200, r.text
            await sock.wait_state(version + 1)
        else:
            await sock.wait_state(sock.state["version"] + 1)
    r = await api.post(f"/api/bot/match/{match_id}/abort")
    assert r.status_code == 409 and r.json()["code"] == "too_late_to_abort"
    await stream.close()
    await events.close()
    await api.close()
