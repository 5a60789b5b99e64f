"""How many spectators watch a match, for the table's "watching" count.

Each process counts its own spectator sockets per match (a player's sockets never count) and
publishes its count on the match's topic as ``{"spectators": {"origin": ..., "count": n}}``
whenever it changes. Every process keeps the last count each other process said, so the total
it tells its sockets is the sum over the processes that have spoken; a process with no
spectator of a match left drops it, and a count of 0 from another process drops that entry,
so nothing stays behind a match nobody watches.

A process hears a topic only while one of its sockets watches the match, so when its first
socket of a match opens it asks (a note with an ``ask`` nonce) and every process with
spectators there says its count again, once per ask.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict, defaultdict
from typing import Any

from kva.service.cluster.broker import Broker
from kva.service.messages import SpectatorsMessage, SpectatorsNote
from kva.service.play import topic

log = logging.getLogger(__name__)

#: How many asks a process remembers having answered (each socket of a match sees every ask).
ASKS_KEPT = 256


class Spectators:
    """This process's spectator sockets per match, and what the other processes said."""

    def __init__(self, broker: Broker, origin: str) -> None:
        self._broker = broker
        self.origin = origin
        self._local: dict[str, int] = defaultdict(int)
        # match -> other origin -> its count (never 0: a 0 removes the entry)
        self._others: dict[str, dict[str, int]] = defaultdict(dict)
        self._answered: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    async def first_socket(self, match_id: str) -> None:
        """This process's first socket of ``match_id`` opened: ask the others for their
        counts (it heard nothing of the match until now)."""
        await self._publish(match_id, ask=secrets.token_hex(6))

    async def joined(self, match_id: str) -> None:
        """A spectator's socket of ``match_id`` opened here."""
        self._local[match_id] += 1
        await self._publish(match_id)

    async def left(self, match_id: str) -> None:
        """A spectator's socket of ``match_id`` closed here (as :meth:`joined` counted it)."""
        if self._local.get(match_id, 0) <= 0:
            return
        self._local[match_id] -= 1
        if self._local[match_id] == 0:
            del self._local[match_id]
        await self._publish(match_id)

    def note(self, match_id: str, raw: Any) -> None:
        """Take in a count published by another process (ours, and malformed ones, ignored)."""
        if not isinstance(raw, dict):
            return
        origin, count = raw.get("origin"), raw.get("count")
        if (not isinstance(origin, str) or origin == self.origin or isinstance(count, bool)
                or not isinstance(count, int) or count < 0):
            return
        ask = raw.get("ask")
        if isinstance(ask, str) and ask not in self._answered and self._local.get(match_id):
            self._answered[ask] = None
            while len(self._answered) > ASKS_KEPT:
                self._answered.popitem(last=False)
            task = asyncio.get_running_loop().create_task(self._publish(match_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        others = self._others[match_id]
        if count:
            others[origin] = count
        else:
            others.pop(origin, None)
        if not others:
            del self._others[match_id]

    def count(self, match_id: str) -> int:
        """Spectators of ``match_id`` on every process this one has heard from."""
        return self._local.get(match_id, 0) + sum(self._others.get(match_id, {}).values())

    def message(self, match_id: str) -> SpectatorsMessage:
        """The ``spectators`` message a socket of ``match_id`` is sent."""
        return {"type": "spectators", "count": self.count(match_id)}

    def tracked(self) -> int:
        """How many matches have a count kept (a leak shows here)."""
        return len(self._local.keys() | self._others.keys())

    async def _publish(self, match_id: str, ask: str | None = None) -> None:
        note: SpectatorsNote = {"origin": self.origin, "count": self._local.get(match_id, 0)}
        if ask is not None:
            note["ask"] = ask
        try:
            await self._broker.publish(topic(match_id), {"spectators": dict(note)})
        except Exception:  # the local count is right; the others catch up on the next change
            log.exception("publishing the spectators of match %s failed", match_id)
