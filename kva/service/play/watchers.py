"""Who watches each match: this process's sockets by match, each with its seat (None: a
spectator), and, on the owner of a match, the viewer keys other processes watch it as
(:class:`RemoteWatchers`). The committer builds a state only for the viewer keys that someone
watches, here or elsewhere, and sends it to the other processes only while one of them
watches (docs/deployment.md, "Remote watchers").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from kva.service.play.live import viewer_key, viewer_keys


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
        """The viewer keys (a seat's number, ``"s"``) someone here watches ``match_id`` as."""
        return {viewer_key(w.seat) for w in self._by_match.get(match_id, ())}

    def matches(self) -> list[str]:
        """The matches someone watches from this process."""
        return list(self._by_match)

    def __len__(self) -> int:
        return sum(len(w) for w in self._by_match.values())


#: The most seats a match may have that another process's keys are believed for (kva's
#: games play 2 to 4; a margin costs nothing, since the committer keeps only the keys of the
#: match's own seats).
MOST_SEATS = 8
#: Every viewer key a match may have, and none.
_ALL: frozenset[str] = frozenset(viewer_keys(MOST_SEATS))
_NONE: frozenset[str] = frozenset()


class RemoteWatchers:
    """The other processes' watchers of the matches this process owns, as leases: per match,
    per process, the viewer keys it watches and until when (monotonic seconds) to believe
    it. A process renews its entries while it has sockets on the match
    (:meth:`kva.service.play.routing.watching.WatchRenewal.renew`); an entry not renewed expires. A
    match may also be watched by everyone for a while (a *grace* period: a match just taken
    over, whose remote watchers have not found the new owner yet)."""

    def __init__(self) -> None:
        self._by_match: dict[str, dict[str, tuple[frozenset[str], float]]] = {}
        self._grace: dict[str, float] = {}

    def note(self, match_id: str, process: str, keys: Iterable[str], until: float) -> None:
        """``process`` watches ``match_id`` as ``keys`` (all its keys: they replace the ones
        noted before; none: it stopped) until ``until``."""
        watched = frozenset(k for k in keys if k in _ALL)
        processes = self._by_match.get(match_id)
        if watched:
            if processes is None:
                processes = self._by_match[match_id] = {}
            processes[process] = (watched, until)
        elif processes is not None:
            processes.pop(process, None)
            if not processes:
                del self._by_match[match_id]

    def grace(self, match_id: str, until: float) -> None:
        """Every key of ``match_id`` counts as watched from elsewhere until ``until``."""
        self._grace[match_id] = max(until, self._grace.get(match_id, until))

    def keys(self, match_id: str, now: float) -> frozenset[str]:
        """The keys other processes watch ``match_id`` as now (expired entries are dropped)."""
        if self._grace:
            until = self._grace.get(match_id)
            if until is not None:
                if until > now:
                    return _ALL
                del self._grace[match_id]
        processes = self._by_match.get(match_id)
        if not processes:
            return _NONE
        out: set[str] = set()
        expired = []
        for process, (watched, until) in processes.items():
            if until > now:
                out |= watched
            else:
                expired.append(process)
        for process in expired:
            del processes[process]
        if not processes:
            del self._by_match[match_id]
        return frozenset(out)

    def forget(self, match_id: str) -> None:
        """This process no longer owns ``match_id``: its watchers are the new owner's."""
        self._by_match.pop(match_id, None)
        self._grace.pop(match_id, None)

    def export(self, match_id: str, now: float) -> dict[str, Any]:
        """The watchers of ``match_id`` to hand over with its lease (times as seconds left,
        since another process's clock is another)."""
        out: dict[str, Any] = {"w": {p: [sorted(watched), until - now]
                                     for p, (watched, until)
                                     in self._by_match.get(match_id, {}).items()
                                     if until > now}}
        grace = self._grace.get(match_id)
        if grace is not None and grace > now:
            out["g"] = grace - now
        return out

    def install(self, match_id: str, exported: Any, now: float, me: str) -> None:
        """Take over the watchers :meth:`export` gave (but this process's own entry: it owns
        the match now and watches it locally)."""
        if not isinstance(exported, dict):
            return
        watchers = exported.get("w")
        if isinstance(watchers, dict):
            for process, entry in watchers.items():
                if process != me and isinstance(entry, list) and len(entry) == 2:
                    self.note(match_id, str(process), entry[0], now + float(entry[1]))
        grace = exported.get("g")
        if isinstance(grace, (int, float)):
            self.grace(match_id, now + float(grace))

    def prune(self, now: float) -> None:
        """Drop every expired entry."""
        for match_id in [m for m, until in self._grace.items() if until <= now]:
            del self._grace[match_id]
        for match_id in list(self._by_match):
            self.keys(match_id, now)

    def matches(self) -> list[str]:
        """The matches with an entry (expired ones included until pruned)."""
        return list({*self._by_match, *self._grace})
