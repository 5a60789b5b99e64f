"""Issue 8 without a server: client addresses behind proxies, full-origin checks, nicknames,
per-(nickname, address) login limits and the bounded Argon2 lanes."""

from __future__ import annotations

import asyncio

import pytest

from kva.service.accounts import passwords
from kva.service.accounts.nicknames import NicknameError, check, skeleton
from kva.service.ratelimit import AuthRateLimiter
from kva.settings.network import parse_trusted_proxies
from kva.web.security import client_address, origin_allowed, request_origin

PROXY = parse_trusted_proxies("10.0.0.0/8, 127.0.0.1")


def test_forwarded_for_is_ignored_without_trusted_proxies() -> None:
    headers = {"x-forwarded-for": "203.0.113.9"}
    assert client_address("127.0.0.1", headers) == "127.0.0.1"
    assert client_address("198.51.100.7", headers, PROXY) == "198.51.100.7"  # not a proxy


def test_forwarded_for_from_a_trusted_proxy_gives_the_right_most_untrusted_hop() -> None:
    # The client forged the left-most entry; the proxy appended the real one.
    headers = {"x-forwarded-for": "1.2.3.4, 203.0.113.9, 10.1.2.3"}
    assert client_address("10.0.0.5", headers, PROXY) == "203.0.113.9"
    assert client_address("127.0.0.1", {"x-forwarded-for": "203.0.113.9"}, PROXY) \
        == "203.0.113.9"
    assert client_address("10.0.0.5", {}, PROXY) == "10.0.0.5"  # no header: the proxy itself
    with pytest.raises(ValueError, match="KVA_TRUSTED_PROXIES"):
        parse_trusted_proxies("10.0.0.0/8, proxy.example")


@pytest.mark.parametrize(("origin", "ok"), [
    ("http://kva.ge", True),
    ("https://kva.ge", False),  # another scheme is another origin
    ("http://kva.ge:8080", False),  # and another port
])
def test_the_whole_origin_is_compared(origin: str, ok: bool) -> None:
    own = request_origin("http", {"host": "kva.ge"}, "127.0.0.1")
    assert own == "http://kva.ge"
    assert origin_allowed({"origin": origin, "host": "kva.ge"}, (), own) is ok


def test_forwarded_proto_and_host_count_only_from_a_trusted_proxy() -> None:
    headers = {"host": "internal:8000", "x-forwarded-proto": "https",
               "x-forwarded-host": "kva.ge"}
    assert request_origin("http", headers, "10.0.0.5", PROXY) == "https://kva.ge"
    assert request_origin("http", headers, "198.51.100.7", PROXY) == "http://internal:8000"
    assert request_origin("http", headers, "10.0.0.5") == "http://internal:8000"
    assert request_origin("ws", {"host": "kva.ge"}, None) == "http://kva.ge"


@pytest.mark.parametrize("name", [
    "\u3164\u3164\u3164", "ab\u3164", "\u115f\u1160ab", "nino\uffa0", "ni\u200bno",
])
def test_invisible_characters_are_refused(name: str) -> None:
    with pytest.raises(NicknameError) as refused:
        check(name)
    assert refused.value.code in ("nickname_chars", "nickname_length")


@pytest.mark.parametrize("name", ["n\u0456n\u043e", "gu\u0435st-7", "b\u043et_x", "nino\u10d0"])
def test_mixed_scripts_are_refused(name: str) -> None:
    with pytest.raises(NicknameError) as refused:
        check(name)
    assert refused.value.code == "nickname_scripts"


@pytest.mark.parametrize("name", ["nino", "ნინო", "Саша", "player_7", "ნინო-99"])
def test_one_script_with_digits_and_signs_is_fine(name: str) -> None:
    assert check(name) == name


def test_reserved_prefixes_and_uniqueness_use_the_skeleton() -> None:
    with pytest.raises(NicknameError, match="reserved"):
        check("\u0432\u043e\u0442\u0438\u043a")  # all-Cyrillic "вотик" reads "bot…"
    assert skeleton("Nino") == skeleton("nino") == skeleton("NINO")
    assert skeleton("n\u0456n\u043e") == "nino"
    assert skeleton("\u0441\u0430\u0440") == skeleton("cap")
    assert skeleton(skeleton("Саша")) == skeleton("Саша")


async def test_an_attacker_on_one_address_does_not_lock_the_owner_out() -> None:
    limiter = AuthRateLimiter(limits={"login_nickname_ip": "5/minute",
                                      "login_nickname": "100/hour"})
    for _ in range(5):
        assert await limiter.check_login("203.0.113.66", "nino") is None
        await limiter.login_failed("nino", "203.0.113.66")
    refusal = await limiter.check_login("203.0.113.66", "nino")
    assert refusal is not None and refusal.scope == "login_nickname_ip"
    assert await limiter.check_login("198.51.100.1", "nino") is None  # the owner, elsewhere


async def test_the_global_nickname_ceiling_still_holds() -> None:
    limiter = AuthRateLimiter(limits={"login_nickname": "3/hour"})
    for i in range(3):
        assert await limiter.check_login(f"10.9.0.{i}", "nino") is None
        await limiter.login_failed("nino", f"10.9.0.{i}")
    refusal = await limiter.check_login("10.9.0.99", "nino")
    assert refusal is not None and refusal.scope == "login_nickname"


async def test_table_guesses_are_limited_per_table_and_per_address() -> None:
    limiter = AuthRateLimiter(limits={"table_password_table": "3/minute",
                                      "table_password_ip": "4/minute"})
    for i in range(3):
        assert await limiter.check_table_password(f"10.7.0.{i}", "tok") is None
        await limiter.table_password_failed("tok", f"10.7.0.{i}")
    assert (await limiter.check_table_password("10.7.0.0", "tok")).scope \
        == "table_password_table"  # type: ignore[union-attr]
    for i in range(4):
        assert await limiter.check_table_password("10.8.0.1", f"t{i}") is None
    assert (await limiter.check_table_password("10.8.0.1", "t9")).scope \
        == "table_password_ip"  # type: ignore[union-attr]


async def test_a_table_full_of_wrong_guesses_still_opens_for_a_fresh_address() -> None:
    limiter = AuthRateLimiter(limits={"table_password_table": "3/minute"})
    for i in range(5):
        if await limiter.check_table_password(f"10.7.1.{i}", "tok") is None:
            await limiter.table_password_failed("tok", f"10.7.1.{i}")
    # The friend has never guessed wrong here: the table's ceiling does not apply.
    assert await limiter.check_table_password("10.7.2.1", "tok") is None
    # A guesser who already failed on this table meets it.
    refusal = await limiter.check_table_password("10.7.1.0", "tok")
    assert refusal is not None and refusal.scope == "table_password_table"


async def test_a_full_lane_refuses_at_once_and_leaves_the_other_lane_alone() -> None:
    hashed = await passwords.hash_password("some password", "table")
    limit = passwords.TABLE_THREADS + passwords.QUEUE
    guesses = [asyncio.ensure_future(passwords.verify_password("wrong", hashed, "table"))
               for _ in range(limit + 3)]
    results = await asyncio.gather(*guesses, return_exceptions=True)
    busy = [r for r in results if isinstance(r, passwords.PasswordsBusy)]
    assert len(busy) == 3 and results.count(False) == limit
    # Meanwhile accounts have their own threads.
    assert await passwords.verify_password("some password", hashed, "account")
