"""The JSON edges of a game in the play core: actions to and from their JSON, records written
and verified. Each game's engine module (:mod:`kva.rules`, :mod:`kva.kozel`) already offers
these four functions under the same names, so one class serves every game: it hands each call
to the module a game names as its ``engine``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Protocol, TypeVar

from kva.games.base import record_document

StateT = TypeVar("StateT")


class Engine(Protocol[StateT]):
    """What a game's engine module offers at its edges; the module satisfies it as it is."""

    def action_to_json(self, code: int, /) -> dict[str, Any]: ...

    def action_from_json(self, message: Any, legal: list[int] | tuple[int, ...], /) -> int: ...

    def write_record(self, match: StateT, players: list[dict[str, Any]] | None = None,
                     meta: dict[str, Any] | None = None, /) -> dict[str, Any]: ...

    def verify_record(self, doc: Any, /) -> StateT: ...


class EngineEdges(Generic[StateT]):
    """The :class:`~kva.games.base.Game` interface's edges, each its engine's own function
    (an action is read against the seat's legal actions, which the game class defines)."""

    engine: Engine[StateT]

    def legal_actions(self, state: StateT, seat: int) -> tuple[int, ...]:
        raise NotImplementedError

    def action_to_json(self, action: int) -> dict[str, Any]:
        return self.engine.action_to_json(action)

    def action_from_json(self, state: StateT, seat: int, message: object) -> int:
        return self.engine.action_from_json(message, self.legal_actions(state, seat))

    def write_record(
        self,
        state: StateT,
        players: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return self.engine.write_record(state, players, meta)

    def verify_record(self, document: str | Mapping[str, Any]) -> StateT:
        return self.engine.verify_record(record_document(document))
