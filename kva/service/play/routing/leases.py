"""The router of processes sharing Redis: each live match has one owner at a time, the holder
of its lease (:mod:`kva.service.play.owners`). A change is made here if this process owns the
match or takes its free lease, else forwarded to the owner; the requests the others forward are
served here while this process owns the match. Taking a lease loads the match from the journal
and resumes its work; losing one stops it here. The sockets' ``hello`` moves a lease to where
the match's sockets are (:mod:`.handoff`), and remote watches keep the owner's states flowing
to the other processes' sockets (:mod:`.watching`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from kva.service.errors import NotFound, PlayError
from kva.service.play.commit import Committer
from kva.service.play.live import LiveStore
from kva.service.play.owners import Moved, Owners, Unanswered
from kva.service.play.routing.base import Change, LocalOperations
from kva.service.play.routing.handoff import HELLO, Handoff
from kva.service.play.routing.watching import WATCHING, WatchRenewal
from kva.service.play.watchers import RemoteWatchers, Watchers

log = logging.getLogger(__name__)


class LeaseRouter:
    """Routes each change to the owner of the match's lease; the :class:`LeaseEvents
    <kva.service.play.owners.LeaseEvents>` of this process's :class:`Owners`."""

    def __init__(
        self, owners: Owners, store: LiveStore, watchers: Watchers, committer: Committer,
        local: LocalOperations,
    ) -> None:
        """``watchers``: this process's sockets on each match; ``committer``: republishes a
        match taken over; ``local``: the work, when it falls to this process."""
        self._owners = owners
        self._store = store
        self._watchers = watchers
        self._committer = committer
        self._local = local
        self._watches = WatchRenewal(owners, watchers, RemoteWatchers())
        self._handoff = Handoff(owners, store, watchers, self._watches.remote, self.lost)

    # ------------------------------------------------------------------ state
    @property
    def owners(self) -> Owners:
        return self._owners

    @property
    def remote(self) -> RemoteWatchers:
        return self._watches.remote

    @property
    def handed_off(self) -> int:
        return self._handoff.handed_off

    @property
    def watches(self) -> WatchRenewal:
        """The remote watches, both ways (diagnostics, tests)."""
        return self._watches

    def serves(self, match_id: str) -> bool:
        return self._owners.owns(match_id)

    def remote_keys(self, match_id: str) -> frozenset[str] | None:
        return self._watches.keys(match_id)

    # ------------------------------------------------------------------ this process asks
    async def route(self, change: Change, match_id: str, *args: Any) -> Any:
        """Make ``change`` here if this process owns the match (or takes its free lease), else
        forward it to the owner; an owner that does not answer is asked again once its lease
        is read again (a dead owner's runs out and this process takes the match over)."""
        owners = self._owners
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 4 * owners.ttl_ms / 1000
        while True:
            owner = await owners.ensure(match_id)
            if owner == owners.me:
                return await self._local.run(change, match_id, args)
            if loop.time() > deadline:
                raise PlayError("stale", "the match's server did not answer; try again")
            try:
                return await owners.request(owner, change.value, match_id, list(args))
            except Moved:
                owners.forget(match_id)
                await asyncio.sleep(0.02)
            except Unanswered:
                owners.forget(match_id)
                log.warning("the owner %s of match %s did not answer a %s", owner, match_id,
                            change.value)

    async def hello(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        """A socket's ``hello`` (a resync) here. A match whose lease is free (its owner died)
        is taken over here first, so its turns and timers go on; for one watched from here
        and owned elsewhere, the owner is asked (:meth:`Handoff.ask`): it hands the match over
        to this process if it has no socket of it, or notes that this process watches it and
        answers with the state. None: the state is read here."""
        if self._owners.owns(match_id):
            return None
        live = self._store.live.get(match_id)
        if live is not None and live.status not in ("waiting", "active"):
            return None
        try:
            return await self._handoff.ask(match_id, user_id)
        except NotFound:
            raise
        except Exception:  # the state is read from the database either way
            log.exception("looking up the owner of match %s failed", match_id)
            return None

    async def activate(self, match_id: str) -> None:
        await self._owners.ensure(match_id)  # taking it loads it and resumes its work

    async def adopt(self, match_id: str) -> None:
        try:
            await self._owners.adopt(match_id)
        except Exception:  # served from here anyway; another process takes it when needed
            log.exception("taking the lease of new match %s failed", match_id)

    async def resume(self, match_id: str) -> None:
        """Take the match's lease if it is free (taken: loaded and resumed)."""
        await self._owners.ensure(match_id)

    def ended(self, match_id: str) -> None:
        self._owners.release_soon(match_id)

    async def renew_watches(self, only: list[str] | None = None, *, again: bool = True) -> None:
        await self._watches.renew(only, again=again)

    # ------------------------------------------------------------------ the owners' events
    async def serve(self, op: str, match_id: str, args: list[Any]) -> Any:
        """A request forwarded by another process: made here if this process owns the match."""
        owners = self._owners
        if op == WATCHING:  # several matches: each one checked
            return self._watches.noted(str(args[0]), args[1])
        change = _change_named(op)
        if change is None and not owners.holds(match_id):
            # a hello: not taken here just to be handed over (two sockets' hellos at once
            # would pass the lease back and forth): the asker takes the free lease itself
            raise Moved(match_id)
        if await owners.ensure(match_id) != owners.me:
            raise Moved(match_id)
        if change is None:
            return await self._handoff.answer(match_id, *_hello_args(args))
        return await self._local.run(change, match_id, args)

    async def taken(self, match_id: str) -> None:
        """This process just took the lease of ``match_id``: load it as stored (the journal is
        the truth), publish its state, and resume its automatic turns and timers."""
        self._store.forget(match_id)
        live = await self._store.get(match_id)
        if live.status not in ("waiting", "active"):
            self._owners.release_soon(match_id)
            return
        # The other processes' sockets on the match told the last owner that they watch it,
        # not this process: until their next renewals reach it, every state goes to all.
        # (A match handed over came with those watches.)
        if not self._handoff.handed_in(match_id):
            self.remote.grace(match_id, time.monotonic() + self._owners.watch_expiry_s)
        # The last owner may have committed a change and died before publishing it: every
        # socket gets the state as stored (a socket that has it already sends nothing).
        async with live.lock:
            await self._committer.republish(live)
        self._local.resume(live)

    def lost(self, match_id: str) -> None:
        """Another process owns ``match_id`` now: drop the copy, and the work scheduled here."""
        self._local.halt(match_id)
        self.remote.forget(match_id)

    def sweep_candidates(self) -> list[str]:
        """Matches watched from here whose copy is not known to be over."""
        out = []
        for match_id in self._watchers.matches():
            live = self._store.live.get(match_id)
            if live is None or live.status in ("waiting", "active"):
                out.append(match_id)
        return out

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        await self._owners.start(self)
        self._watches.start()

    async def stop(self) -> None:
        """Stop renewing watches and leases; release every lease held."""
        await self._watches.stop()
        await self._owners.stop()


def _change_named(op: str) -> Change | None:
    """The change a forwarded request names (None: a ``hello``); ValueError for any other."""
    if op == HELLO:
        return None
    try:
        return Change(op)
    except ValueError:
        raise ValueError(f"unknown operation {op!r}") from None


def _hello_args(args: Sequence[Any]) -> tuple[str, list[Any], int | None]:
    """A ``hello`` request's arguments: the asking process, its viewer keys, the viewer."""
    process, keys, user_id = args
    return str(process), keys, user_id
