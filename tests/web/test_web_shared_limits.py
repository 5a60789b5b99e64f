"""Rate limits with several processes: counted in Redis whenever the broker is Redis (unless
KVA_RATE_LIMIT_STORAGE says otherwise), so two processes share one budget."""

from __future__ import annotations

import os
import secrets

import pytest

from kva.config import Settings
from kva.service.ratelimit import AuthRateLimiter

REDIS_URL = os.environ.get("KVA_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> pytest.MonkeyPatch:
    for name in ("KVA_BROKER_URL", "KVA_RATE_LIMIT_STORAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KVA_SECRET_KEY", "k")
    monkeypatch.setenv("KVA_DATA_DIR", str(tmp_path))
    return monkeypatch


def test_limits_follow_a_redis_broker(env: pytest.MonkeyPatch) -> None:
    assert Settings.from_env().rate_limit_storage == "memory://"
    env.setenv("KVA_BROKER_URL", "redis://cache:6379/0")
    assert Settings.from_env().rate_limit_storage == "redis://cache:6379/0"
    env.setenv("KVA_RATE_LIMIT_STORAGE", "redis://cache:6379/1")  # a choice is kept
    assert Settings.from_env().rate_limit_storage == "redis://cache:6379/1"
    env.setenv("KVA_RATE_LIMIT_STORAGE", "memory://")
    assert Settings.from_env().rate_limit_storage == "memory://"
    env.setenv("KVA_BROKER_URL", "memory")
    env.delenv("KVA_RATE_LIMIT_STORAGE")
    assert Settings.from_env().rate_limit_storage == "memory://"


async def test_two_processes_share_one_budget_in_redis() -> None:
    import redis.asyncio as redis

    client = redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        await client.ping()
    except Exception:
        pytest.skip(f"no Redis at {REDIS_URL}")
    finally:
        await client.aclose()
    one = AuthRateLimiter(REDIS_URL, {"table_create_ip": "3/minute"})
    two = AuthRateLimiter(REDIS_URL, {"table_create_ip": "3/minute"})
    ip = f"198.51.100.{secrets.randbelow(250)}-{secrets.token_hex(4)}"
    assert await one.check_table_create(ip) is None
    assert await two.check_table_create(ip) is None
    assert await one.check_table_create(ip) is None
    refused = await two.check_table_create(ip)  # the fourth, on the other process
    assert refused is not None and refused.scope == "table_create_ip"
