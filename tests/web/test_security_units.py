"""Origin checks and rate-limit counters on their own (no server)."""

from __future__ import annotations

import pytest

from kva.service.ratelimit import AuthRateLimiter
from kva.settings.network import normalize_origin, parse_allowed_origins
from kva.settings.ratelimits import parse_limits
from kva.web.security import origin_allowed, request_origin


@pytest.mark.parametrize(("origin", "expected"), [
    ("https://kva.ge", "https://kva.ge"),
    ("https://KVA.ge:443", "https://kva.ge"),
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("http://kva.ge:80/", "http://kva.ge"),
    ("null", None),
    ("file://", None),
    ("https://kva.ge/path", None),
    ("https://user@kva.ge", None),
    ("ws://kva.ge", None),
    ("https://kva.ge:99999", None),
])
def test_normalize_origin(origin: str, expected: str | None) -> None:
    assert normalize_origin(origin) == expected


@pytest.mark.parametrize(("scheme", "headers", "allowed", "ok"), [
    ("http", {"host": "127.0.0.1:8000"}, (), True),  # no Origin: not a cross-site page
    ("http", {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"}, (), True),
    ("https", {"host": "kva.ge", "origin": "https://kva.ge"}, (), True),
    ("https", {"host": "kva.ge:443", "origin": "https://kva.ge"}, (), True),
    ("http", {"host": "kva.ge", "origin": "https://kva.ge"}, (), False),  # scheme differs
    ("http", {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8001"}, (), False),
    ("http", {"host": "127.0.0.1:8000", "origin": "https://evil.example"}, (), False),
    ("http", {"host": "127.0.0.1:8000", "origin": "null"}, (), False),
    ("https", {"host": "kva.ge.evil.example", "origin": "https://kva.ge"}, (), False),
    ("http", {"host": "internal:8000", "origin": "https://kva.ge"}, ("https://kva.ge",), True),
    ("http", {"host": "internal:8000", "origin": "https://www.kva.ge"}, ("https://kva.ge",),
     False),
    ("https", {"origin": "https://kva.ge"}, (), False),  # no Host to compare with
])
def test_origin_allowed(scheme: str, headers: dict[str, str], allowed: tuple[str, ...],
                        ok: bool) -> None:
    own = request_origin(scheme, headers, None)
    assert origin_allowed(headers, allowed, own) is ok


def test_allowed_origins_setting() -> None:
    assert parse_allowed_origins(" https://kva.ge, http://LOCALHOST:8000 ,") == (
        "https://kva.ge", "http://localhost:8000")
    assert parse_allowed_origins("") == ()
    with pytest.raises(ValueError, match="not an origin"):
        parse_allowed_origins("kva.ge")


@pytest.mark.parametrize("bad", ["", "lots", "5/fortnight", "five/minute"])
def test_bad_limit_text_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="login_ip"):
        parse_limits("login_ip", bad)
    with pytest.raises(ValueError):
        AuthRateLimiter(limits={"login_ip": bad})


def test_unknown_limit_and_storage_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        AuthRateLimiter(limits={"login_everything": "1/minute"})
    with pytest.raises(ValueError, match="storage"):
        AuthRateLimiter("mongodb://x")


async def test_failed_logins_per_nickname_whatever_the_ip() -> None:
    limiter = AuthRateLimiter(limits={"login_nickname": "3/minute", "login_ip": "100/minute"})
    # (the global per-nickname ceiling; the per-(nickname, address) window is in
    # test_hardening_units.py)
    for i in range(3):
        assert await limiter.check_login(f"10.0.0.{i}", "nino") is None
        await limiter.login_failed("nino", f"10.0.0.{i}")
    refusal = await limiter.check_login("10.0.0.9", "nino")
    assert refusal is not None and refusal.scope == "login_nickname"
    assert 1 <= refusal.retry_after <= 61
    # Another nickname from the same addresses is not affected.
    assert await limiter.check_login("10.0.0.9", "giorgi") is None


async def test_attempts_per_ip_whatever_the_nickname() -> None:
    limiter = AuthRateLimiter(limits={"login_ip": "4/minute"})
    for i in range(4):
        assert await limiter.check_login("10.1.1.1", f"name{i}") is None
    refusal = await limiter.check_login("10.1.1.1", "someone")
    assert refusal is not None and refusal.scope == "login_ip"
    assert await limiter.check_login("10.1.1.2", "someone") is None
    # Registering from the exhausted address is refused too (same per-IP attempts).
    assert await limiter.check_register("10.1.1.1") is not None


async def test_registrations_per_ip() -> None:
    limiter = AuthRateLimiter(limits={"register_ip": "2/hour"})
    assert await limiter.check_register("10.2.2.2") is None
    assert await limiter.check_register("10.2.2.2") is None
    refusal = await limiter.check_register("10.2.2.2")
    assert refusal is not None and refusal.scope == "register_ip"
    assert refusal.retry_after > 60
    await limiter.reset()
    assert await limiter.check_register("10.2.2.2") is None
