"""The one place games are registered: everything above the rules finds a game here by name.

Adding a game is a package of its own that implements :class:`kva.games.base.Game`, and one
line in :func:`_builtin` below; nothing else of kva changes. Tests register their own games on
a :class:`GameRegistry` of their own (or on the default one, and remove them after).
"""

from __future__ import annotations

from typing import Any, TypeAlias

from kva.games.base import Game
from kva.games.georgian import GEORGIAN
from kva.games.kozel import KOZEL

#: A registered game, whatever its state, action and options types.
AnyGame: TypeAlias = Game[Any, Any, Any]


class UnknownGame(LookupError):
    """A game name nobody registered (a URL, a stored match or a record naming no game kva
    hosts). ``name`` is the name asked for; the message lists the known ones."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"no game {name!r}: the games are {', '.join(known) or 'none'}")
        self.name = name


class GameRegistry:
    """Games by their :attr:`~kva.games.base.Game.name`."""

    def __init__(self) -> None:
        self._games: dict[str, AnyGame] = {}

    def register(self, game: AnyGame) -> None:
        """Add ``game``; a second game under a name already taken is a ValueError (two games
        must never answer to one URL, stored match or record)."""
        if game.name in self._games:
            raise ValueError(f"a game named {game.name!r} is already registered")
        self._games[game.name] = game

    def unregister(self, name: str) -> None:
        """Remove the game ``name`` (tests that registered a game of their own)."""
        if name not in self._games:
            raise UnknownGame(name, self.names())
        del self._games[name]

    def get(self, name: str) -> AnyGame:
        """The game registered as ``name``; :class:`UnknownGame` if there is none."""
        try:
            return self._games[name]
        except KeyError:
            raise UnknownGame(name, self.names()) from None

    def names(self) -> list[str]:
        """Every registered game's name, in the order they were registered."""
        return list(self._games)


def _builtin() -> GameRegistry:
    """The registry of the games kva hosts."""
    registry = GameRegistry()
    registry.register(GEORGIAN)
    registry.register(KOZEL)
    return registry


#: The registry kva uses.
GAMES = _builtin()


def register(game: AnyGame) -> None:
    """Add ``game`` to kva's registry (:meth:`GameRegistry.register`)."""
    GAMES.register(game)


def get(name: str) -> AnyGame:
    """The game ``name`` from kva's registry; :class:`UnknownGame` if there is none."""
    return GAMES.get(name)


def names() -> list[str]:
    """The names of every game in kva's registry."""
    return GAMES.names()
