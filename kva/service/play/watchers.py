"""Who watches each match from this process: the sockets by match, each with its seat (None:
a spectator). The committer builds a state only for the viewer keys that someone watches here
(when no other process can have watchers: see :attr:`kva.service.play.live.LiveStore.shared`).
"""

from __future__ import annotations

from typing import Protocol

from kva.service.play.live import viewer_key


class Watcher(Protocol):
    """A socket on a match: its seat may change (a resync tells it which it is)."""

    seat: int | None


class Watchers:
    """This process's watchers of each match."""

    def __init__(self) -> None:
        self._by_match: dict[str, set[Watcher]] = {}

    def add(self, match_id: str, watcher: Watcher) -> None:
        self._by_match.setdefault(match_id, set()).add(watcher)

    def discard(self, match_id: str, watcher: Watcher) -> None:
        watchers = self._by_match.get(match_id)
        if watchers is None:
            return
        watchers.discard(watcher)
        if not watchers:
            del self._by_match[match_id]

    def keys(self, match_id: str) -> set[str]:
        """The viewer keys (``"0"``, ``"1"``, ``"s"``) someone here watches ``match_id`` as."""
        return {viewer_key(w.seat) for w in self._by_match.get(match_id, ())}

    def matches(self) -> list[str]:
        """The matches someone watches from this process."""
        return list(self._by_match)

    def __len__(self) -> int:
        return sum(len(w) for w in self._by_match.values())
