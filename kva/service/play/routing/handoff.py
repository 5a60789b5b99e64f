"""The lease follows the match's sockets: a socket's ``hello`` on a process that does not own
the match asks the owner for it (nginx routes a match's sockets to one process, while the
match was created wherever its HTTP request landed). An owner with no socket of the match hands
its lease over, with the other processes' watches; an owner that keeps it notes that the asker
watches it and answers with the state (docs/deployment.md)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, cast

from kva.service.play.commit import state_message
from kva.service.play.live import LiveStore, viewer_key
from kva.service.play.owners import Moved, Owners, Unanswered
from kva.service.play.watchers import RemoteWatchers, Watchers

#: The request a socket's ``hello`` sends to the match's owner.
HELLO = "hello"


class Handoff:
    """Both sides of a ``hello`` to another process's match: asking and answering."""

    def __init__(
        self, owners: Owners, store: LiveStore, watchers: Watchers, remote: RemoteWatchers,
        lost: Callable[[str], None],
    ) -> None:
        """``lost``: what the router does when this process gives a match up (the same as
        when it loses its lease)."""
        self._owners = owners
        self._store = store
        self._watchers = watchers
        self._remote = remote
        self._lost = lost
        #: Leases handed to another process whose sockets asked for them (diagnostics, tests).
        self.handed_off = 0
        #: Matches just handed over to this process, with their watches (no grace period).
        self._handed_in: dict[str, bool] = {}

    def handed_in(self, match_id: str) -> bool:
        """Whether ``match_id`` was just handed over to this process with its watches (told
        once: the lease just taken)."""
        return self._handed_in.pop(match_id, False)

    async def ask(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        """A socket's ``hello`` reached this process, which does not own the match. The
        socket subscribed to the match's topic before (the subscription is live once
        :meth:`~kva.service.cluster.broker.Broker.subscribe` returns); now the owner is sent a
        ``hello`` with every viewer key watched here. An owner with no socket of the match
        hands its lease over with its other processes' watches, and this process takes it
        (loaded from the journal): None, the state is read here. An owner that keeps it notes
        the watch before it answers with the state (under the match's lock), so every state
        it publishes afterwards goes to Redis and reaches the socket. None as well when this
        process owns the match (it took the free lease) or has no socket of it (a plain
        read)."""
        owners = self._owners
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 4 * owners.ttl_ms / 1000
        while True:
            owner = await owners.ensure(match_id)
            self._handed_in.pop(match_id, None)
            if owner == owners.me:
                return None
            keys = self._watchers.keys(match_id)
            if not keys or loop.time() > deadline:
                return None
            try:
                reply = await owners.request(
                    owner, HELLO, match_id,
                    {"process": owners.me, "keys": sorted(keys), "user_id": user_id})
            except (Moved, Unanswered):
                owners.forget(match_id)
                await asyncio.sleep(0.02)
                continue
            if isinstance(reply, dict) and isinstance(reply.get("state"), dict):
                return cast(dict[str, Any], reply["state"])
            # handed over (or an answer of another shape): take the lease, and with it the
            # watches of the other processes
            if isinstance(reply, dict):
                self._remote.install(match_id, reply.get("watchers"), time.monotonic(),
                                     owners.me)
                self._handed_in[match_id] = True
            owners.forget(match_id)

    async def answer(self, match_id: str, process: str, keys: list[Any],
                     user_id: int | None) -> dict[str, Any]:
        """Another process's socket said ``hello`` to ``match_id`` (owned here): give the
        lease up if no socket of it is connected here, after the change in progress (under
        the match's lock), with the watches other processes told of (the asker takes the
        lease and loads the match from the journal); else note that ``process`` watches it as
        ``keys`` (and as this viewer's own key) and answer with the viewer's state, both
        under the lock, so no state committed after this answer misses the asker."""
        live = self._store.live.get(match_id)
        if live is None and not self._watchers.keys(match_id):
            return await self._give(match_id, process)
        if live is None:
            live = await self._store.get(match_id)
        async with live.lock:
            if not self._watchers.keys(match_id):
                return await self._give(match_id, process)
            seat = live.seat_of(user_id)
            self._remote.note(match_id, str(process), [*map(str, keys), viewer_key(seat)],
                              time.monotonic() + self._owners.watch_expiry_s)
            return {"state": state_message(live, seat, None)}

    async def _give(self, match_id: str, process: str) -> dict[str, Any]:
        """Hand ``match_id`` over to ``process`` (the caller holds the match's lock, if it is
        in memory): the lease released, the watches of the others exported."""
        watchers = self._remote.export(match_id, time.monotonic())
        watchers["w"].pop(process, None)
        await self._owners.release(match_id)
        self._lost(match_id)
        self.handed_off += 1
        return {"given": True, "watchers": watchers}
