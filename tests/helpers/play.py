"""The play service of the service-level tests: built in this one place, so that each test
names only what it changes (a fake wall clock, a broker, match owners, pauses, a bot executor)
and the defaults every such test wants live here."""

from __future__ import annotations

from typing import Any

from kva.service.cluster.broker import Broker, MemoryBroker
from kva.service.play import PlayService
from kva.storage.db import Database

#: Tests do not wait for the pauses that make forced moves and bots' moves humane.
INSTANT = {"forced_delay": 0, "bot_delay": 0}


def make_play(database: Database, broker: Broker | None = None,
              **overrides: Any) -> PlayService:
    """A play service on ``database`` publishing to ``broker`` (a fresh in-memory one by
    default) that makes forced and bot moves at once; ``overrides`` are any of PlayService's
    keyword arguments, pauses included."""
    options: dict[str, Any] = {**INSTANT, **overrides}
    return PlayService(database, MemoryBroker() if broker is None else broker, **options)
