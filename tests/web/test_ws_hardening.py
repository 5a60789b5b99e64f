"""The WebSocket tier under pressure (issue 8): a revoked session stops acting at once on every
process, limits per socket, per client and per match, and the send path, the resync and the
presence records of ws.py."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest
import websockets

from kva.service.accounts.sessions import revoke
from kva.service.messages import StateMessage
from kva.storage.db import create_engine, session_factory
from kva.web.services import services
from kva.web.sockets import Channel, SocketRegistry, TokenBucket
from kva.web.ws import Connection, _resync
from tests.helpers.accounts_help import JsonSocket, login, registered, ws_url
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.helpers.webhelp import Socket, Visitor


async def _closed_with(sock: Socket, code: int, timeout: float = 5.0) -> None:
    await sock.wait_closed(timeout)
    assert sock._ws.close_code == code, (sock._ws.close_code, sock.messages[-3:])


async def _bot_match(v: Visitor) -> tuple[str, Socket]:
    """A match against a bot, once it stands still: the visitor's turn with a real choice
    (not a lone draw or pass: the server applies those by itself)."""
    match_id = await v.new_match("bot:easy", target=75)
    sock = await v.connect(match_id)
    for _ in range(500):
        view = sock.state["view"]
        if view["turn"] == view["player"] and any(
                a["type"] not in ("draw", "pass") for a in view["legal"]):
            return match_id, sock
        await asyncio.sleep(0.02)
    raise AssertionError(f"the match never stood on the visitor's choice: {sock.state}")


async def _still_untouched(base_url: str, nickname: str, match_id: str,
                           before: dict[str, Any]) -> None:
    """Logged in again: the match is where it was (nothing was applied meanwhile)."""
    async with Visitor(base_url) as again:
        assert (await login(again, nickname)).status_code == 303
        sock = await again.connect(match_id)
        assert sock.state["version"] == before["version"]
        assert not sock.state["view"]["over"]
        await sock.close()


# ---------------------------------------------------------------------- revocation


async def test_logout_closes_the_socket_and_nothing_more_is_applied(make_server) -> None:
    server = make_server()
    v, name = await registered(server.base_url)
    async with v:
        match_id, sock = await _bot_match(v)
        before = sock.state
        assert (await v.http.post("/logout")).status_code == 303
        await sock.wait_for(lambda m: m.get("type") == "error" and m["code"] == "revoked")
        await _closed_with(sock, 4401)
        with pytest.raises(websockets.ConnectionClosed):  # gone: no action, no resignation
            await sock.send({"type": "resign"})
    await _still_untouched(server.base_url, name, match_id, before)


async def test_an_action_after_a_revocation_nobody_announced_is_refused(
    make_server, database_url: str
) -> None:
    """The session is revoked behind the broker's back (straight in the database): the next
    frame is still refused and the socket closed, because every frame re-checks the session."""
    server = make_server()
    v, name = await registered(server.base_url)
    async with v:
        match_id, sock = await _bot_match(v)
        before = sock.state
        engine = create_engine(database_url)
        try:
            assert await revoke(session_factory(engine), v.cookie)  # no broker: no news
        finally:
            await engine.dispose()
        await sock.send({"type": "resign"})
        await sock.wait_for(lambda m: m.get("type") == "error" and m["code"] == "revoked")
        await _closed_with(sock, 4401)
    await _still_untouched(server.base_url, name, match_id, before)


async def test_logging_in_elsewhere_rotates_and_closes_lobby_and_match_sockets(
    make_server
) -> None:
    server = make_server()
    v, name = await registered(server.base_url)
    async with v:
        match_id, sock = await _bot_match(v)
        lobby = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie).open()
        await lobby.wait_for(lambda m: m.get("type") == "lobby")
        # The same browser logs in again: its old session is rotated out.
        assert (await login(v, name)).status_code == 303
        await _closed_with(sock, 4401)
        await asyncio.wait_for(lobby.closed.wait(), 5)
        assert lobby.close_code == 4401
        # The new session works.
        fresh = await v.connect(match_id)
        assert fresh.state["you"] == 0
        await fresh.close()


async def test_a_quick_search_ends_with_its_session(make_server) -> None:
    server = make_server()
    v, _name = await registered(server.base_url)
    async with v:
        quick = await JsonSocket(ws_url(server.base_url, "/ws/quick?target=75"), v.cookie).open()
        await quick.wait_for(lambda m: m.get("type") == "waiting")
        assert (await v.http.post("/logout")).status_code == 303
        await asyncio.wait_for(quick.closed.wait(), 5)
        assert quick.close_code == 4401


async def test_logout_on_one_instance_closes_the_socket_on_another(make_server) -> None:
    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    first = make_server(broker_url=REDIS_URL)
    second = make_server(broker_url=REDIS_URL)
    v, name = await registered(first.base_url)
    async with v:
        match_id = await v.new_match("bot:easy", target=75)
        sock = Socket(second.base_url, match_id, v.cookie)  # the socket lives on instance 2
        await sock.open()
        before = sock.state
        assert (await v.http.post("/logout")).status_code == 303  # logout on instance 1
        await _closed_with(sock, 4401)
    await _still_untouched(second.base_url, name, match_id, before)


# ---------------------------------------------------------------------- limits


async def test_a_flood_is_refused_then_closed(make_server) -> None:
    server = make_server(ws_rate=5.0, ws_burst=5, ws_flood=10)
    v, _name = await registered(server.base_url)
    async with v:
        _match_id, sock = await _bot_match(v)
        for _ in range(60):
            try:
                await sock.send({"type": "ping"})
            except websockets.ConnectionClosed:
                break
        await _closed_with(sock, 4429)
        codes = [m["code"] for m in sock.errors]
        assert codes.count("rate_limited") >= 10, codes
        assert sum(m.get("type") == "pong" for m in sock.messages) <= 6


async def test_a_client_within_the_rate_is_never_refused(make_server) -> None:
    server = make_server(ws_rate=20.0, ws_burst=5, ws_flood=3)
    v, _name = await registered(server.base_url)
    async with v:
        _match_id, sock = await _bot_match(v)
        for _ in range(20):
            await sock.send({"type": "ping"})
            await asyncio.sleep(0.06)  # ~16 a second, under 20
        await sock.wait_for(lambda m: sum(x.get("type") == "pong" for x in sock.messages) == 20)
        assert not sock.errors and not sock.closed


async def test_sockets_per_client_and_spectators_per_match_are_capped(make_server) -> None:
    server = make_server(ws_per_client=2, ws_per_match=1)
    v, _name = await registered(server.base_url)
    async with v:
        match_id = await v.new_match("bot:easy", target=75)
        a, b = await v.connect(match_id), await v.connect(match_id)
        # The lobby counts against the same player.
        lobby = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie).open()
        await asyncio.wait_for(lobby.closed.wait(), 5)
        assert lobby.close_code == 4429
        assert lobby.messages[0]["code"] == "too_many_sockets"
        # A closed socket frees its place.
        await b.close()
        await asyncio.sleep(0.2)
        again = await JsonSocket(ws_url(server.base_url, "/ws/lobby"), v.cookie).open()
        await again.wait_for(lambda m: m.get("type") == "lobby")
        # Per match: one spectator (the player's two sockets do not count), then it is full.
        watcher = Socket(server.base_url, match_id, "")
        await watcher.open()
        crowd = Socket(server.base_url, match_id, "")
        await crowd.open(hello=False)
        await crowd.wait_for(lambda m: m.get("type") == "error")
        assert crowd.errors[0]["code"] == "match_full"
        await _closed_with(crowd, 4429)
        for s in (a, watcher):
            await s.close()
        await again.close()


# ---------------------------------------------------------------------- ws.py defects


class FakeSocket:
    """Enough of Starlette's WebSocket for a Connection: sends recorded, or raising."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail = fail
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        if self.fail is not None:
            raise self.fail
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.fail is not None:
            raise self.fail
        self.closed_with = code


async def _relayed(conn: Connection, state: StateMessage) -> None:
    """What the relay does with a published state (as a dict, or as its JSON text once the
    service encodes each state once for every socket)."""
    if "text" in inspect.signature(conn.send_state).parameters:
        await conn.send_state(state["version"], json.dumps(state))  # type: ignore[call-arg]
    else:
        await conn.send_state(state)


def _state(version: int, event: dict[str, Any] | None = None) -> StateMessage:
    return {"type": "state", "version": version, "view": {}, "event": event,
            "status": "active", "players": [None, None], "you": 0}


@pytest.mark.parametrize("failure", [
    RuntimeError('Cannot call "send" once a close message has been sent.'),
    OSError("transport closed"),
])
async def test_sending_on_a_closing_socket_does_not_raise(failure: BaseException) -> None:
    from starlette.websockets import WebSocketDisconnect

    for fail in (failure, WebSocketDisconnect(1006)):
        conn = Connection(FakeSocket(fail), "m", 1)  # type: ignore[arg-type]
        assert await conn.send({"type": "pong"}) is False
        await _relayed(conn, _state(3))
        await conn.error("illegal", "no")
        await conn.channel.close(4401)
        assert conn.channel.closed
        assert conn.sent_version == 0  # nothing was delivered


async def test_the_relay_and_a_resync_never_send_one_version_twice() -> None:
    """A hello arrives; while its state is read, the relay sends that very version: the
    resync must not send it again."""
    ws = FakeSocket()
    conn = Connection(ws, "m", 1)  # type: ignore[arg-type]
    await _relayed(conn, _state(4, {"kind": "play"}))

    class Service:
        async def state_for(self, match_id: str, user_id: int | None) -> StateMessage:
            await _relayed(conn, _state(5, {"kind": "play"}))  # the relay wins the race
            return _state(5)

    await _resync(conn, Service())  # type: ignore[arg-type]
    assert [m["version"] for m in ws.sent] == [4, 5]
    # A plain hello, with nothing newer meanwhile, is answered even at the version it has.
    class Quiet:
        async def state_for(self, match_id: str, user_id: int | None) -> StateMessage:
            return _state(5)

    await _resync(conn, Quiet())  # type: ignore[arg-type]
    assert [(m["version"], m["event"]) for m in ws.sent][-1] == (5, None)
    # And the relay never repeats what the resync sent.
    await _relayed(conn, _state(5, {"kind": "play"}))
    assert len(ws.sent) == 3


async def test_finished_matches_leave_no_presence_records(make_server) -> None:
    server = make_server()
    v, _name = await registered(server.base_url)
    presence = services(server.app).presence
    async with v:
        for _ in range(3):
            match_id, sock = await _bot_match(v)
            v0 = sock.state["version"]
            await sock.send({"type": "resign"})
            await sock.wait_state(v0 + 1)
            await sock.close()
        watcher = Socket(server.base_url, match_id, "")
        await watcher.open()
        await watcher.close()
    for _ in range(100):
        if presence.tracked() == 0:
            break
        await asyncio.sleep(0.02)
    assert presence.tracked() == 0


# ---------------------------------------------------------------------- units


def test_token_bucket() -> None:
    now = [0.0]
    bucket = TokenBucket(2.0, 3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back
    assert bucket.take() and not bucket.take()
    now[0] += 100
    assert sum(bucket.take() for _ in range(10)) == 3  # never more than the burst


async def test_registry_counts_and_forgets() -> None:
    registry = SocketRegistry(per_client=1, per_match=5)
    one = Channel(FakeSocket())  # type: ignore[arg-type]
    two = Channel(FakeSocket())  # type: ignore[arg-type]
    assert await registry.register(one, token="t", user_id=7, address="1.2.3.4", match_id="m")
    assert not await registry.register(two, token="u", user_id=7, address="1.2.3.4")
    assert two.closed and two.close_code == 4429
    assert registry.counts() == (1, 1, 1)
    assert await registry.revoked({"token_hashes": [], "user_id": 7}) == 1
    assert one.closed and one.close_code == 4401
    registry.unregister(one)
    registry.unregister(two)
    assert registry.counts() == (0, 0, 0)
