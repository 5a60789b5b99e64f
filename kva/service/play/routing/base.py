"""What a match router is, and what it needs from the process it routes for.

Every change to a live match is a :mod:`command <kva.service.play.commands>`, made by the
one process serving the match. A :class:`MatchRouter` decides where that is: here, always,
for a process alone (:class:`~.local.LocalRouter`), or the owner of the match's lease when
processes share Redis (:class:`~.leases.LeaseRouter`).
The router does none of the work itself: it runs it through the :class:`LocalOperations` it
is given, on this process or, forwarded, on the owner's.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

from kva.service.play.commands import Command, ResultT
from kva.service.play.live import LiveMatch
from kva.service.play.owners import Owners
from kva.service.play.watchers import RemoteWatchers


class LocalOperations(Protocol):
    """The work of the matches this process serves, as a router asks for it."""

    def run(self, command: Command[ResultT]) -> Coroutine[Any, Any, ResultT]:
        """Make ``command``'s change here; its result (awaited)."""

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else: load it, resume its work."""

    def resume(self, live: LiveMatch) -> None:
        """Schedule what is due in ``live``: its automatic turn, seed wait and clock."""

    def halt(self, match_id: str) -> None:
        """Another process serves ``match_id`` now: cancel what was scheduled for it here,
        and drop the copy."""


class MatchRouter(Protocol):
    """Where each change to a live match is made, and who serves which match."""

    @property
    def owners(self) -> Owners | None:
        """The leases of the matches (None: this process serves every match alone)."""

    @property
    def remote(self) -> RemoteWatchers:
        """The other processes' watches of the matches this process owns."""

    @property
    def handed_off(self) -> int:
        """Leases handed to another process whose sockets asked for them (diagnostics)."""

    def serves(self, match_id: str) -> bool:
        """Whether this process serves ``match_id`` now (times its clock, for one)."""

    def remote_keys(self, match_id: str) -> frozenset[str] | None:
        """The viewer keys other processes watch ``match_id`` as (None: not known)."""

    def route(self, command: Command[ResultT]) -> Coroutine[Any, Any, ResultT]:
        """Make ``command``'s change on the process that serves its match; its result."""

    async def hello(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        """A socket of this process said ``hello``: the state from the match's owner, when
        another process owns it and keeps it; None: read it here."""

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else."""

    async def adopt(self, match_id: str) -> None:
        """``match_id`` was just created here: serve it from here."""

    async def resume(self, match_id: str) -> None:
        """On start: serve this unfinished match again, if it falls to this process."""

    def ended(self, match_id: str) -> None:
        """``match_id`` is over: nothing needs serving any more."""

    async def renew_watches(self, only: list[str] | None = None, *, again: bool = True) -> None:
        """Tell the owners of the matches watched from here and owned elsewhere who watches
        them here."""

    async def start(self) -> None:
        """Start routing (answering other processes, renewing leases)."""

    async def stop(self) -> None:
        """Stop routing; give up what only this process held."""
