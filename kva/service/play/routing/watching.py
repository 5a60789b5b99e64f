"""Remote watches (docs/deployment.md, "Remote watchers"): a match's owner sends its states to
Redis only while another process watches it, so each process keeps telling the owners of the
matches its sockets watch (and another process owns) which viewer keys it watches them as, and
each owner notes what it is told, for :attr:`~kva.service.play.owners.Owners.watch_expiry_s`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from kva.service.play.owners import Moved, Owners, Unanswered
from kva.service.play.watchers import RemoteWatchers, Watchers

log = logging.getLogger(__name__)

#: The request that renews a process's watches of matches owned elsewhere.
WATCHING = "watching"


class WatchRenewal:
    """Both sides of remote watching: this process's watches of the others' matches, renewed
    every :attr:`~kva.service.play.owners.Owners.watch_s`, and the others' watches of the
    matches owned here (:attr:`remote`)."""

    def __init__(self, owners: Owners, watchers: Watchers, remote: RemoteWatchers) -> None:
        self._owners = owners
        #: This process's sockets on each match.
        self._watchers = watchers
        #: The other processes' watches of the matches owned here.
        self.remote = remote
        self._task: asyncio.Task[None] | None = None
        #: Owners a ``watching`` request is on its way to (one at a time per owner).
        self._renewing: set[str] = set()
        self._renewals: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ the owner's side
    def keys(self, match_id: str) -> frozenset[str] | None:
        """The viewer keys other processes watch ``match_id`` as, if this process owns it
        (None: not known, every key is sent to everyone)."""
        if not self._owners.owns(match_id):
            return None
        return self.remote.keys(match_id, time.monotonic())

    def noted(self, process: str, watched: object) -> list[str]:
        """``process`` renews its watches (match id → viewer keys) of matches owned here; the
        ones not owned here are answered (it looks their owners up again)."""
        if not isinstance(watched, dict):
            return []
        until = time.monotonic() + self._owners.watch_expiry_s
        moved = []
        for match_id, keys in watched.items():
            if self._owners.holds(match_id) and isinstance(keys, list):
                self.remote.note(match_id, str(process), map(str, keys), until)
            else:
                moved.append(match_id)
        return moved

    # ------------------------------------------------------------------ the watcher's side
    async def renew(self, only: list[str] | None = None, *, again: bool = True) -> None:
        """Tell the owner of each match watched from here and owned elsewhere which viewer
        keys this process's sockets watch it as (one ``watching`` request per owner, all at
        once; an owner still answering the last one is skipped): the owner publishes the
        match's states to Redis while it believes this. The matches an owner no longer owns
        are told to their new owner at once (``again``), since a match just taken over is
        published to everyone only for :attr:`Owners.watch_expiry_s`. A free lease is not
        taken here (the owners' sweep does)."""
        by_owner = await self._watched_by_owner(only)
        if not by_owner:
            return
        owners = self._owners
        self._renewing.update(by_owner)
        try:
            # each request names one of its matches: an owner slower than the timeout is
            # waited for while it holds that match's lease (it is alive), as with a change
            replies = await asyncio.gather(
                *(owners.request(owner, WATCHING, next(iter(watched)),
                                 {"process": owners.me, "watched": watched})
                  for owner, watched in by_owner.items()), return_exceptions=True)
        finally:
            self._renewing.difference_update(by_owner)
        moved: list[str] = []
        for (owner, watched), reply in zip(by_owner.items(), replies, strict=True):
            moved += self._moved(owner, watched, reply)
        if moved and again:
            await self.renew(moved, again=False)

    async def _watched_by_owner(self, only: list[str] | None) -> dict[str, dict[str, list[str]]]:
        """Owner → (match id → the viewer keys watched here) of the matches watched from here
        (or ``only`` these) and owned elsewhere, but owners already being told."""
        owners = self._owners
        by_owner: dict[str, dict[str, list[str]]] = {}
        for match_id in self._watchers.matches() if only is None else only:
            if owners.owns(match_id):
                continue
            keys = self._watchers.keys(match_id)
            if not keys:
                continue
            try:
                owner = await owners.lookup(match_id)
            except Exception:
                log.exception("looking up the owner of match %s failed", match_id)
                continue
            if owner is not None and owner != owners.me and owner not in self._renewing:
                by_owner.setdefault(owner, {})[match_id] = sorted(keys)
        return by_owner

    def _moved(self, owner: str, watched: dict[str, list[str]], reply: Any) -> list[str]:
        """The matches of a renewal that ``owner`` no longer owns, by its ``reply`` (their
        owner noted here is forgotten)."""
        if isinstance(reply, list):
            lost = [str(m) for m in reply if m in watched]
        elif isinstance(reply, (Moved, Unanswered)):
            lost = list(watched)
        else:
            if isinstance(reply, BaseException):
                log.warning("renewing the watches of %d matches at %s failed: %r",
                            len(watched), owner, reply)
            return []
        for match_id in lost:
            self._owners.forget(match_id)
        return lost

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="kva-watch-renew")

    async def stop(self) -> None:
        """Stop renewing (a process that stops, or one that a test makes die)."""
        tasks = [t for t in (self._task, *self._renewals) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._task = None

    async def _loop(self) -> None:
        """Every :attr:`Owners.watch_s`: drop the expired watches of other processes, and
        renew this process's (in the background: an owner that died is waited for until its
        lease runs out, and must not hold the others' renewals up)."""
        while True:
            await asyncio.sleep(self._owners.watch_s)
            self.remote.prune(time.monotonic())
            task = asyncio.create_task(self._renew_logged(), name="kva-watch-renew-once")
            self._renewals.add(task)
            task.add_done_callback(self._renewals.discard)

    async def _renew_logged(self) -> None:
        try:
            await self.renew()
        except Exception:
            log.exception("renewing the remote watches failed")
