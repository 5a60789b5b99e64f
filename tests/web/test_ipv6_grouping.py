"""Per-client limits count an IPv6 client as its whole network (``KVA_IPV6_PREFIX``, /64 by
default): one subscriber holds a /64, so its addresses share one budget."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator

import httpx
import pytest
import websockets

from kva.config import Settings
from kva.settings.network import parse_trusted_proxies
from kva.web.security import address_group
from tests.helpers.accounts_help import ws_url
from tests.web.test_hardening_web import _plain_server


async def _tables_opened(base_url: str, addresses: list[str]) -> list[int]:
    """The status of one table opened from each address (a new guest each time)."""
    codes = []
    for address in addresses:
        async with httpx.AsyncClient(base_url=base_url,
                                     headers={"x-forwarded-for": address}) as http:
            r = await http.post("/matches", data={"opponent": "open", "target": "75",
                                                  "bazaar": "draw", "password": ""})
            codes.append(r.status_code)
    return codes


async def test_fifteen_addresses_of_one_ipv6_64_open_only_ten_tables(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_create_rate_ip="10/minute").start()
    try:
        one_64 = [f"2001:db8:1:2::{i:x}" for i in range(1, 16)]
        codes = await _tables_opened(server.base_url, one_64)
        assert codes[:10] == [303] * 10
        assert codes[10:] == [429] * 5
        # Other /64s, and IPv4 clients, still have budgets of their own.
        others = [f"2001:db8:1:{i:x}::1" for i in range(3, 8)] + ["198.51.100.7"]
        assert await _tables_opened(server.base_url, others) == [303] * 6
    finally:
        server.stop()


async def test_an_ipv4_mapped_address_counts_as_its_ipv4(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_create_rate_ip="2/minute").start()
    try:
        codes = await _tables_opened(server.base_url,
                                     ["203.0.113.9", "::ffff:203.0.113.9", "::ffff:cb00:7109"])
        assert codes == [303, 303, 429]
    finally:
        server.stop()


async def test_the_ipv6_prefix_setting_is_honoured(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_create_rate_ip="2/minute", ipv6_prefix=128).start()
    try:
        # At /128 every address is its own client.
        codes = await _tables_opened(server.base_url, [f"2001:db8::{i}" for i in range(1, 5)])
        assert codes == [303] * 4
    finally:
        server.stop()


async def _lobby_socket(base_url: str, address: str) -> int | None:
    """Open a guest's lobby socket from ``address``; its close code (None: still open).

    The lobby's first message, the open tables, is sent only once the socket has been counted
    and admitted (a refused one gets an ``error`` instead), so it answers at once; two quiet
    seconds count as admitted too."""
    ws = await websockets.connect(ws_url(base_url, "/ws/lobby"),
                                  additional_headers={"x-forwarded-for": address})
    try:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 2))
            if message.get("type") == "lobby":
                return None  # admitted: its body runs
            if message.get("type") == "error":
                await asyncio.wait_for(ws.wait_closed(), 5)
                return ws.close_code
    except TimeoutError:
        return None  # open and quiet: accepted
    except websockets.ConnectionClosed:
        return ws.close_code


async def test_guest_sockets_of_one_ipv6_64_share_one_cap(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           ws_per_client=2).start()
    try:
        codes = [await _lobby_socket(server.base_url, f"2001:db8:5:6::{i}") for i in (1, 2, 3)]
        assert codes == [None, None, 4429]
        assert await _lobby_socket(server.base_url, "2001:db8:5:7::1") is None
    finally:
        server.stop()


def test_address_groups() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:aaaa::1", 48) == "2001:db8:1::/48"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_group("192.0.2.1") == "192.0.2.1"


@pytest.fixture
def env() -> Iterator[dict[str, str]]:
    saved = dict(os.environ)
    os.environ["KVA_SECRET_KEY"] = "x" * 32
    yield os.environ  # type: ignore[misc]
    os.environ.clear()
    os.environ.update(saved)


def test_kva_ipv6_prefix_defaults_to_64_and_takes_32_to_128(env: dict[str, str]) -> None:
    env.pop("KVA_IPV6_PREFIX", None)
    assert Settings.from_env().ipv6_prefix == 64
    env["KVA_IPV6_PREFIX"] = "56"
    assert Settings.from_env().ipv6_prefix == 56
    for bad in ("31", "129", "sixty", "-64", "６４", "²"):
        env["KVA_IPV6_PREFIX"] = bad
        with pytest.raises(ValueError, match="KVA_IPV6_PREFIX"):
            Settings.from_env()
