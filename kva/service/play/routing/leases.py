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
from typing import Any

from kva.service.errors import NotFound, PlayError
from kva.service.play.commands import AnyCommand, BadCommand, Command, ResultT, command_from_wire
from kva.service.play.commit import Committer
from kva.service.play.live import LiveStore
from kva.service.play.owners import Moved, Owners, Unanswered
from kva.service.play.routing.base import LocalOperations
from kva.service.play.routing.handoff import HELLO, Handoff
from kva.service.play.routing.watching import WATCHING, WatchRenewal
from kva.service.play.watchers import RemoteWatchers, Watchers
from kva.status import OPEN_STATUSES

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
    async def route(self, command: Command[ResultT]) -> ResultT:
        """Make ``command``'s change here if this process owns the match (or takes its free
        lease), else forward it to the owner (as :meth:`Command.to_wire
        <kva.service.play.commands.Command.to_wire>`); an owner that does not answer is asked
        again once its lease is read again (a dead owner's runs out and this process takes
        the match over)."""
        owners, match_id = self._owners, command.match_id
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 4 * owners.ttl_ms / 1000
        while True:
            owner = await owners.ensure(match_id)
            if owner == owners.me:
                return await self._local.run(command)
            if loop.time() > deadline:
                raise PlayError("stale", "the match's server did not answer; try again")
            try:
                return command.result(
                    await owners.request(owner, command.kind, match_id, command.to_wire()))
            except Moved:
                owners.forget(match_id)
                await asyncio.sleep(0.02)
            except Unanswered:
                owners.forget(match_id)
                log.warning("the owner %s of match %s did not answer a %s", owner, match_id,
                            command.kind)

    async def hello(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        """A socket's ``hello`` (a resync) here. A match whose lease is free (its owner died)
        is taken over here first, so its turns and timers go on; for one watched from here
        and owned elsewhere, the owner is asked (:meth:`Handoff.ask`): it hands the match over
        to this process if it has no socket of it, or notes that this process watches it and
        answers with the state. None: the state is read here."""
        if self._owners.owns(match_id):
            return None
        live = self._store.live.get(match_id)
        if live is not None and live.status not in OPEN_STATUSES:
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
    async def serve(self, op: str, match_id: str, body: object) -> Any:
        """A request forwarded by another process: a command (rebuilt from its wire form
        first: a bad one is refused with :class:`BadCommand` and nothing runs) made here if
        this process owns the match, a ``hello`` answered, or a ``watching`` noted."""
        owners = self._owners
        if op == WATCHING:  # several matches: each one checked
            process, watched = _watching_body(body)
            return self._watches.noted(process, watched)
        command = None if op == HELLO else _forwarded(op, match_id, body)
        if command is None and not owners.holds(match_id):
            # a hello: not taken here just to be handed over (two sockets' hellos at once
            # would pass the lease back and forth): the asker takes the free lease itself
            raise Moved(match_id)
        if await owners.ensure(match_id) != owners.me:
            raise Moved(match_id)
        if command is None:
            return await self._handoff.answer(match_id, *_hello_body(body))
        return await self._local.run(command)

    async def taken(self, match_id: str) -> None:
        """This process just took the lease of ``match_id``: load it as stored (the journal is
        the truth), publish its state, and resume its automatic turns and timers."""
        self._store.forget(match_id)
        live = await self._store.get(match_id)
        if live.status not in OPEN_STATUSES:
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
            if live is None or live.status in OPEN_STATUSES:
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


def _forwarded(op: str, match_id: str, body: object) -> AnyCommand:
    """The command a forwarded request carries; :class:`BadCommand` unless it is one, and
    the one its request names (``op`` its kind, ``match_id`` its match)."""
    command = command_from_wire(body)
    if command.kind != op or command.match_id != match_id:
        raise BadCommand(f"the request {op!r} for match {match_id!r} carries the command "
                         f"{command.kind!r} for match {command.match_id!r}")
    return command


def _hello_body(body: object) -> tuple[str, list[Any], int | None]:
    """A ``hello`` request's body: the asking process, its viewer keys, the viewer."""
    if not isinstance(body, dict) or not isinstance(body.get("keys"), list):
        raise ValueError(f"a hello request carries process, keys and user_id, found {body!r}")
    user_id = body.get("user_id")
    return str(body.get("process")), body["keys"], user_id if isinstance(user_id, int) else None


def _watching_body(body: object) -> tuple[str, object]:
    """A ``watching`` request's body: the asking process, and match id → viewer keys."""
    if not isinstance(body, dict):
        raise ValueError(f"a watching request carries process and watched, found {body!r}")
    return str(body.get("process")), body.get("watched")
