"""The Redis the multi-process tests share (database 15 by default, so a developer's own data in
database 0 is never touched), and whether it answers."""

from __future__ import annotations

import os

REDIS_URL = os.environ.get("KVA_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


async def redis_up() -> bool:
    """Whether :data:`REDIS_URL` answers a ping within a second."""
    import redis.asyncio as redis

    client = redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        return bool(await client.ping())
    except Exception:
        return False
    finally:
        await client.aclose()
