"""One client, one address: every spelling a proxy or a client may give an address in
``X-Forwarded-For`` (brackets, a port, upper-case hex, IPv4-mapped IPv6, a zone) is the same
client to every rate limit, address mark and per-address count. A hop that is no address at
all is kept as it was written, as the client, and is never taken for a trusted proxy."""

from __future__ import annotations

import httpx
import pytest

from kva.settings.network import parse_trusted_proxies
from kva.web.security import canonical_address, client_address
from tests.web.test_hardening_web import _plain_server

PROXY = parse_trusted_proxies("10.0.0.0/8, 127.0.0.1")


@pytest.mark.parametrize("spelling", [
    "2001:db8::4", "2001:DB8::4", "2001:0db8:0000::0004", "[2001:db8::4]", "[2001:db8::4]:443",
    " [2001:DB8::4]:8080 ", "2001:db8::4%eth0", "[2001:db8::4%eth0]:443",
])
def test_every_spelling_of_an_ipv6_address_is_one_address(spelling: str) -> None:
    assert canonical_address(spelling) == "2001:db8::4"


@pytest.mark.parametrize("spelling", [
    "1.2.3.4", "1.2.3.4:5678", "::ffff:1.2.3.4", "::FFFF:1.2.3.4", "::ffff:102:304",
    "[::ffff:1.2.3.4]", "[::ffff:1.2.3.4]:443",
])
def test_every_spelling_of_an_ipv4_address_is_one_address(spelling: str) -> None:
    assert canonical_address(spelling) == "1.2.3.4"


@pytest.mark.parametrize("garbage", [
    "unknown", "", "1.2.3.4:port", "1.2.3.4:123456", "[1.2.3.4", "2001:db8::4]",
    "01.2.3.4", "1.2.3", "example.org", "[]:443", "[1.2.3.4]:x", "1.2.3.4%eth0",
])
def test_what_is_no_address_has_no_spelling(garbage: str) -> None:
    assert canonical_address(garbage) is None


@pytest.mark.parametrize("spelling", [
    "[2001:db8::4]", "[2001:db8::4]:443", "2001:DB8::4", "2001:db8::4",
])
def test_a_forwarded_ipv6_client_comes_back_in_its_one_spelling(spelling: str) -> None:
    headers = {"x-forwarded-for": f"198.51.100.1, {spelling}"}
    assert client_address("10.0.0.5", headers, PROXY) == "2001:db8::4"


@pytest.mark.parametrize("spelling", ["1.2.3.4:5678", "::ffff:1.2.3.4", "[::FFFF:1.2.3.4]:1"])
def test_a_forwarded_ipv4_client_comes_back_in_its_one_spelling(spelling: str) -> None:
    assert client_address("10.0.0.5", {"x-forwarded-for": spelling}, PROXY) == "1.2.3.4"


def test_a_trusted_proxy_written_with_a_port_is_still_skipped() -> None:
    headers = {"x-forwarded-for": "203.0.113.9, 10.1.2.3:8443, [::ffff:10.1.2.4]"}
    assert client_address("10.0.0.5", headers, PROXY) == "203.0.113.9"


def test_the_peer_itself_comes_back_in_its_one_spelling() -> None:
    assert client_address("::FFFF:203.0.113.9", {}) == "203.0.113.9"
    assert client_address(None, {}) == "unknown"


def test_a_garbage_hop_is_the_client_as_written_and_never_a_proxy() -> None:
    # Not an address, so not a trusted proxy: the reading stops there, whatever is left of it.
    headers = {"x-forwarded-for": "10.1.2.3, not-an-address, 10.1.2.4"}
    assert client_address("10.0.0.5", headers, PROXY) == "not-an-address"
    assert client_address("10.0.0.5", {"x-forwarded-for": "1.2.3.4:port"}, PROXY) \
        == "1.2.3.4:port"


async def _tables_opened(base_url: str, addresses: list[str]) -> list[int]:
    """The status of one table opened from each ``X-Forwarded-For`` (a new guest each)."""
    codes = []
    for address in addresses:
        async with httpx.AsyncClient(base_url=base_url,
                                     headers={"x-forwarded-for": address}) as http:
            r = await http.post("/matches", data={"opponent": "open", "target": "75",
                                                  "bazaar": "draw", "password": ""})
            codes.append(r.status_code)
    return codes


async def test_spellings_of_one_ipv4_address_share_its_rate_limit(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_create_rate_ip="1/minute").start()
    try:
        codes = await _tables_opened(server.base_url,
                                     ["203.0.113.9", "203.0.113.9:5678", "::FFFF:203.0.113.9"])
        assert codes == [303, 429, 429]
    finally:
        server.stop()


async def test_spellings_of_one_ipv6_address_share_its_rate_limit(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           table_create_rate_ip="1/minute").start()
    try:
        codes = await _tables_opened(server.base_url,
                                     ["2001:db8::4", "[2001:db8::4]", "[2001:DB8::4]:443"])
        assert codes == [303, 429, 429]
    finally:
        server.stop()


async def test_a_failed_login_marks_every_spelling_of_its_address(database_url: str) -> None:
    server = _plain_server(database_url, trusted_proxies=parse_trusted_proxies("127.0.0.1"),
                           login_rate_nickname_ip="1/minute").start()
    try:
        codes = []
        for address in ("[2001:db8::7]:443", "2001:DB8::7", "[2001:db8::7]"):
            async with httpx.AsyncClient(base_url=server.base_url,
                                         headers={"x-forwarded-for": address}) as http:
                r = await http.post("/login", data={"nickname": "nobody-here",
                                                    "password": "wrong-password"})
                codes.append(r.status_code)
        # One failure per (nickname, address) a minute: the other spellings are that address.
        assert codes == [400, 429, 429]
    finally:
        server.stop()
