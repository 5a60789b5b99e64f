"""Play services ("processes") on one database and one Redis, each with its own broker and
match owners, as several ``kva serve`` processes would be (the owner tests of
tests/service and tests/web)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator

import pytest

from kva.service.cluster.broker import RedisBroker
from kva.service.play import PlayService
from kva.service.play.owners import Owners
from kva.service.play.routing import LeaseRouter
from kva.storage.db import Database
from tests.helpers.play import make_play
from tests.helpers.redis_help import REDIS_URL, redis_up


class Cluster:
    """Play services on one database and Redis, with their own brokers and a lease prefix of
    their own (tests running at once never share a lease)."""

    def __init__(self, database: Database, watch_s: float | None = None) -> None:
        self.database = database
        self.sessions = database.sessions
        self.watch_s = watch_s
        self.prefix = f"kva-test:{secrets.token_hex(4)}:own:"
        self.services: list[PlayService] = []
        self.brokers: list[RedisBroker] = []

    async def process(self, *, ttl_ms: int = 1000, timeout: float = 0.3,
                      watch_s: float | None = None) -> PlayService:
        """A new "process": its broker, its owners (lease life ``ttl_ms``, forwarded requests
        timing out after ``timeout``, remote watches renewed every ``watch_s``)."""
        broker = RedisBroker(REDIS_URL)
        await broker.start()
        self.brokers.append(broker)
        owners = Owners(REDIS_URL, broker, prefix=self.prefix, ttl_ms=ttl_ms, timeout=timeout)
        watch_s = self.watch_s if watch_s is None else watch_s
        if watch_s is not None:
            owners.watch_s = watch_s
        play = make_play(self.database, broker, forced_delay=3600, bot_delay=3600,
                         rng_factory=random.Random, owners=owners)
        await play.start()
        self.services.append(play)
        return play

    async def lease(self, match_id: str) -> str | None:
        """Who holds ``match_id``'s lease now (None: nobody)."""
        import redis.asyncio as redis

        client = redis.from_url(REDIS_URL, decode_responses=True)
        try:
            holder = await client.get(self.prefix + match_id)
            return None if holder is None else str(holder)
        finally:
            await client.aclose()

    async def close(self) -> None:
        for play in self.services:
            await play.stop()
        for broker in self.brokers:
            await broker.stop()


def lease_router(play: PlayService) -> LeaseRouter:
    """The router of a "process" of a :class:`Cluster` (to reach into its routing)."""
    router = play._router
    assert isinstance(router, LeaseRouter)
    return router


#: Seconds a cluster's teardown may take before it fails the test instead of hanging.
CLOSE_TIMEOUT_S = 30.0


@contextlib.asynccontextmanager
async def running_cluster(database: Database,
                          watch_s: float | None = None) -> AsyncIterator[Cluster]:
    """A :class:`Cluster` (its processes renewing remote watches every ``watch_s``), closed
    afterwards; the test is skipped when no Redis answers."""
    if not await redis_up():
        pytest.skip(f"no Redis at {REDIS_URL}")
    cluster = Cluster(database, watch_s)
    try:
        yield cluster
    finally:
        # Bounded: a test that failed midway can leave a service that never stops, and the
        # suite must report the failure rather than hang in this teardown.
        await asyncio.wait_for(cluster.close(), CLOSE_TIMEOUT_S)
