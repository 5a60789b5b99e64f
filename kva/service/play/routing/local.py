"""The router of a process alone (the in-memory broker): every change is made here directly,
with no lease and no extra hop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from kva.service.play.commands import Command, ResultT
from kva.service.play.live import LiveStore
from kva.service.play.owners import Owners
from kva.service.play.routing.base import LocalOperations
from kva.service.play.watchers import RemoteWatchers


class LocalRouter:
    """Routes every change to this process, which serves every match."""

    def __init__(self, store: LiveStore, local: LocalOperations) -> None:
        self._store = store
        self._local = local
        #: Nobody else watches the matches served here: always empty.
        self._remote = RemoteWatchers()

    @property
    def owners(self) -> Owners | None:
        return None

    @property
    def remote(self) -> RemoteWatchers:
        return self._remote

    @property
    def handed_off(self) -> int:
        return 0

    def serves(self, match_id: str) -> bool:
        return True

    def remote_keys(self, match_id: str) -> frozenset[str] | None:
        return None

    def route(self, command: Command[ResultT]) -> Coroutine[Any, Any, ResultT]:
        # the change's own coroutine, not one awaiting it: an action suspends several times
        # (its lock, its write), and every frame of the chain pays for each suspension
        return self._local.run(command)

    async def hello(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        return None

    async def activate(self, match_id: str) -> None:
        await self._local.activate(match_id)

    async def adopt(self, match_id: str) -> None:
        """Served here already: nothing to take."""

    async def resume(self, match_id: str) -> None:
        self._local.resume(await self._store.get(match_id))

    def ended(self, match_id: str) -> None:
        """Nothing was held for it."""

    async def renew_watches(self, only: list[str] | None = None, *, again: bool = True) -> None:
        """Nothing is watched elsewhere."""

    async def start(self) -> None:
        """Nothing to start: no other process to answer."""

    async def stop(self) -> None:
        """Nothing to stop."""
