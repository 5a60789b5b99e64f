"""Spectators can never lock the players out of their own match: the match's socket cap counts
spectators only, spectators are capped per client address (IPv6 by its network) and per user
on each match, and a seated player over their own socket cap gets in while their oldest socket
is closed."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
import websockets

from kva.config import Settings
from kva.settings.network import parse_trusted_proxies
from kva.storage.db import Database
from kva.web.sockets import CLOSE_REPLACED, CLOSE_TOO_MANY, Channel, SocketRegistry
from tests.helpers.community_help import make_user, signed_in, store_match
from tests.helpers.redis_help import REDIS_URL, redis_up
from tests.helpers.webhelp import Socket, Visitor


class Spectator(Socket):
    """A match socket that says it comes from ``address`` (the test server is its trusted
    proxy), with the cookie of whoever opens it."""

    def __init__(self, base_url: str, match_id: str, cookie: str, address: str) -> None:
        super().__init__(base_url, match_id, cookie)
        self.address = address

    async def open(self, hello: bool = True) -> None:
        headers = {"X-Forwarded-For": self.address}
        if self.cookie:
            headers["Cookie"] = f"kva_session={self.cookie}"
        self._ws = await websockets.connect(self.url, additional_headers=headers,
                                            max_size=2 ** 22)
        self._reader = asyncio.create_task(self._read())
        if hello:
            await self.send({"type": "hello", "version": 0})
            await self.wait_state()


async def _watch(base_url: str, match_id: str, cookie: str, address: str) -> Spectator:
    """A spectator socket: admitted (it has a state) or refused (an error, then closed)."""
    sock = Spectator(base_url, match_id, cookie, address)
    await sock.open(hello=False)
    with contextlib.suppress(websockets.ConnectionClosed):  # refused already
        await sock.send({"type": "hello", "version": 0})
    await sock.wait_for(lambda m: m.get("type") in ("state", "error"))
    if sock.errors:
        await sock.wait_closed()
    return sock


def _refused(sock: Spectator, code: str) -> bool:
    return (sock.closed and sock._ws.close_code == CLOSE_TOO_MANY
            and [e["code"] for e in sock.errors] == [code])


async def _players(make_server: Any, database: Database, **settings: Any
                   ) -> tuple[Any, str, list[Visitor]]:
    """A server behind a trusted proxy (this host), and a rated match between two guests
    (signed in) that it has not loaded yet."""
    server = make_server(trusted_proxies=parse_trusted_proxies("127.0.0.1"), **settings)
    sessions = database.sessions
    a, b = await make_user(sessions, "guest"), await make_user(sessions, "guest")
    match_id = await store_match(database, [(a, None), (b, None)], rated=True)
    return server, match_id, [await signed_in(server.base_url, u) for u in (a, b)]


async def _flood(base_url: str, match_id: str, guests: int, sockets: int,
                 address: Any) -> list[Spectator]:
    """``guests`` fresh guests, each opening ``sockets`` spectator sockets from
    ``address(guest)``."""
    crowd: list[Spectator] = []
    for g in range(guests):
        async with Visitor(base_url) as guest:
            for _ in range(sockets):
                crowd.append(await _watch(base_url, match_id, guest.cookie, address(g)))
    return crowd


async def _close_all(socks: list[Any]) -> None:
    await asyncio.gather(*(s.close() for s in socks))


async def _blip_then_back(base_url: str, match_id: str, players: list[Visitor],
                          seated: list[Socket], refill: Any, grace: float) -> list[Spectator]:
    """Both players' sockets drop (a network blip) while the attacker keeps the match full
    (``refill()``, the crowd it added); both come back and get their own state, and once the
    grace period is over neither can claim the match for abandonment."""
    await _close_all(seated)
    await asyncio.sleep(0.2)
    crowd = await refill()
    back = [await p.connect(match_id) for p in players]
    assert [s.state["you"] for s in back] == [0, 1]
    await asyncio.sleep(grace + 0.3)
    for sock in back:
        await sock.expect_error({"type": "claim_win"}, "illegal")  # the other one is here
        assert not sock.state["view"]["over"]
    await _close_all(back)
    for p in players:
        await p.__aexit__(None, None, None)
    return crowd


async def test_a_guest_flood_from_one_address_cannot_lock_the_players_out(
    make_server, database
) -> None:
    """The attack as reported: 13 guests x 16 spectator sockets from one address, against the
    default caps (16 per client, 200 per match). Only the first 4 get in."""
    server, match_id, players = await _players(make_server, database, disconnect_grace=0.5)
    seated = [await p.connect(match_id) for p in players]
    crowd = await _flood(server.base_url, match_id, 13, 16, lambda g: "203.0.113.7")
    crowd += await _blip_then_back(
        server.base_url, match_id, players, seated,
        lambda: _flood(server.base_url, match_id, 1, 16, lambda g: "203.0.113.7"), 0.5)
    assert sum(not s.errors for s in crowd) == 4
    assert all(_refused(s, "too_many_sockets") for s in crowd if s.errors)
    await _close_all(crowd)


async def test_a_full_match_still_admits_both_players(make_server, database) -> None:
    """The flood spread over many addresses fills the match's cap with spectators: the next
    spectator is refused ``match_full``, the players still get in."""
    server, match_id, players = await _players(make_server, database, ws_per_match=8,
                                               disconnect_grace=0.5)
    seated = [await p.connect(match_id) for p in players]
    crowd = await _flood(server.base_url, match_id, 6, 2, lambda g: f"198.51.100.{g + 1}")
    crowd += await _blip_then_back(
        server.base_url, match_id, players, seated,
        lambda: _flood(server.base_url, match_id, 2, 2, lambda g: f"198.51.100.{g + 20}"), 0.5)
    assert sum(not s.errors for s in crowd) == 8
    assert all(_refused(s, "match_full") for s in crowd if s.errors)
    await _close_all(crowd)


async def test_a_player_gets_in_on_whichever_process_takes_the_socket(
    make_server, database
) -> None:
    """Two processes on one Redis: spectators fill the match's cap on the process that does
    not own the match; a player whose socket lands there still gets in."""
    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    first, match_id, players = await _players(make_server, database, broker_url=REDIS_URL)
    second = make_server(broker_url=REDIS_URL, ws_per_match=2,
                         trusted_proxies=parse_trusted_proxies("127.0.0.1"))
    seated = [await p.connect(match_id) for p in players]  # on the first process
    crowd = await _flood(second.base_url, match_id, 3, 1, lambda g: f"198.51.100.{g + 1}")
    assert [bool(s.errors) for s in crowd] == [False, False, True]
    await seated[1].close()
    elsewhere = Socket(second.base_url, match_id, players[1].cookie)
    await elsewhere.open()
    assert elsewhere.state["you"] == 1 and not elsewhere.errors
    await _close_all([seated[0], elsewhere, *crowd])
    for p in players:
        await p.__aexit__(None, None, None)


async def test_the_fifth_spectator_from_one_address_is_refused_another_address_is_not(
    make_server, database
) -> None:
    server, match_id, players = await _players(make_server, database)
    four = [await _watch(server.base_url, match_id, "", "203.0.113.9") for _ in range(4)]
    assert not any(s.errors for s in four)
    fifth = await _watch(server.base_url, match_id, "", "203.0.113.9")
    assert _refused(fifth, "too_many_sockets")
    other = await _watch(server.base_url, match_id, "", "203.0.113.10")
    assert not other.errors and other.state["you"] is None
    # A free place is a place again.
    await four[0].close()
    await asyncio.sleep(0.2)
    again = await _watch(server.base_url, match_id, "", "203.0.113.9")
    assert not again.errors
    await _close_all([*four[1:], other, again])


async def test_ipv6_spectators_are_counted_by_their_network(make_server, database) -> None:
    server, match_id, _ = await _players(make_server, database)
    socks = [await _watch(server.base_url, match_id, "", f"2001:db8:1:2::{i + 1:x}")
             for i in range(5)]
    assert [bool(s.errors) for s in socks] == [False] * 4 + [True]
    assert _refused(socks[4], "too_many_sockets")
    other = await _watch(server.base_url, match_id, "", "2001:db8:1:3::1")
    assert not other.errors
    await _close_all([*socks, other])


async def test_one_user_watches_a_match_with_at_most_the_spectator_cap(
    make_server, database
) -> None:
    server, match_id, _ = await _players(make_server, database, ws_spectators_per_client=2)
    async with Visitor(server.base_url) as fan:
        socks = [await _watch(server.base_url, match_id, fan.cookie, f"192.0.2.{i + 1}")
                 for i in range(3)]
    assert [bool(s.errors) for s in socks] == [False, False, True]
    assert _refused(socks[2], "too_many_sockets")
    await _close_all(socks)


async def test_a_seated_player_over_their_cap_gets_in_and_their_oldest_socket_closes(
    make_server, database
) -> None:
    server, match_id, (pa, pb) = await _players(make_server, database, ws_per_client=2)
    old, newer = await pa.connect(match_id), await pa.connect(match_id)
    newest = await pa.connect(match_id)  # a new device: in, with its state
    assert newest.state["you"] == 0 and not newest.errors
    await old.wait_closed()
    assert old._ws.close_code == CLOSE_REPLACED
    assert [e["code"] for e in old.errors] == ["replaced"]
    assert not newer.closed
    # The player never went away: the opponent cannot claim the match.
    other = await pb.connect(match_id)
    await other.expect_error({"type": "claim_win"}, "illegal")
    await _close_all([newer, newest, other])


# ---------------------------------------------------------------------- the registry


class _Fake:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed_with = code


def _channel() -> Channel:
    return Channel(_Fake())  # type: ignore[arg-type]


async def test_the_match_cap_counts_spectators_only() -> None:
    registry = SocketRegistry(per_client=16, per_match=2, spectators_per_client=4)
    for n in range(2):
        assert await registry.register(_channel(), token=None, user_id=None,
                                       address=f"10.0.0.{n}", match_id="m")
    full = _channel()
    assert not await registry.register(full, token=None, user_id=None, address="10.0.0.9",
                                       match_id="m")
    assert full.close_code == CLOSE_TOO_MANY
    for seat, user in enumerate((1, 2)):
        assert await registry.register(_channel(), token="t", user_id=user, address="10.0.0.1",
                                       match_id="m", seat=seat)


async def test_a_seated_socket_never_closes_the_last_socket_of_a_seat_elsewhere() -> None:
    """At the player's cap, the oldest socket that is not their only one at another match's
    seat gives way (a player must not be made to look away from another match); with none
    such, the seated socket gets in over the cap."""
    registry = SocketRegistry(per_client=2, per_match=10)
    elsewhere, lobby = _channel(), _channel()
    assert await registry.register(elsewhere, token="t", user_id=7, address="10.0.0.1",
                                   match_id="other", seat=1)
    assert await registry.register(lobby, token="t", user_id=7, address="10.0.0.1")
    here = _channel()
    assert await registry.register(here, token="t", user_id=7, address="10.0.0.1",
                                   match_id="m", seat=0)
    assert lobby.close_code == CLOSE_REPLACED and not elsewhere.closed
    third = _channel()
    assert await registry.register(third, token="t", user_id=7, address="10.0.0.1",
                                   match_id="third", seat=0)
    assert here.close_code is None and not elsewhere.closed  # both are a seat's only socket
    registry.unregister(lobby)  # its handler forgets it again: harmless
    assert registry.counts() == (3, 1, 3)


def test_the_spectator_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVA_SECRET_KEY", "k" * 40)
    assert Settings.from_env().ws_spectators_per_client == 4
    monkeypatch.setenv("KVA_WS_SPECTATORS_PER_CLIENT", "2")
    assert Settings.from_env().ws_spectators_per_client == 2
    for bad in ("0", "four"):
        monkeypatch.setenv("KVA_WS_SPECTATORS_PER_CLIENT", bad)
        with pytest.raises(ValueError, match="KVA_WS_SPECTATORS_PER_CLIENT"):
            Settings.from_env()
