"""Leaving a match: who is connected, the grace period of a player who disconnects, the win the
opponent may then claim (forfeit ``abandon``), and the loss by timeout of a player who never
moves in a match stored before clocks (forfeit ``timeout``; every newer match times it with
its clock, :mod:`kva.service.play.clock`). The rules are on the help page and in
docs/community.md.

Presence is counted per process (open WebSockets per match and seat) and shared through the
broker: every change is published on the match's topic as ``{"presence": {...}, "broadcast":
<presence message>}``, and each process keeps what the others said (by their ``origin``), so a
player connected to one instance and an opponent connected to another both see the truth. A
seat is away once no process has a connection for it; it is away *since* the latest of its
disconnections. A seat that has never connected is not "away" (it has not left anything);
the first-move timeout is what covers a player who never shows up.

With a Redis broker, a :class:`~kva.service.presence_store.RedisPresenceStore` also keeps the
records in Redis: a process reads them when its first socket of a match opens (it heard
nothing while none of its sockets watched the match), and the players a dead process had
said were online are away from when it stopped refreshing its liveness.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections import defaultdict
from typing import Any

from kva.rules import DRAW, PASS
from kva.service.broker import Broker
from kva.service.errors import PlayError
from kva.service.messages import MatchTopicMessage, PresenceMessage, PresenceNote
from kva.service.play import LiveMatch, PlayService, topic
from kva.service.presence_store import RedisPresenceStore
from kva.service.timekeeping import SYSTEM_CLOCK, Clock

log = logging.getLogger(__name__)

#: Client message type of a claim (docs/web-contract.md).
CLAIM_TYPE = "claim_win"


def has_moved(live: LiveMatch, seat: int) -> bool:
    """Whether ``seat`` ever chose an action in the match (an opening or a play; draws and
    passes are applied by the server when they are forced, so they do not count)."""
    return live.match is not None and any(
        entry[0] == seat and entry[1] not in (DRAW, PASS)
        for hand in live.match.hands for entry in hand.state.log
    )


class Presence:
    """Connections per match and seat, disconnection grace, claims and first-move timeouts.

    ``clock`` is the only source of time it reads (the wall time of a change, and the wait of
    a first-move timeout), so its tests can move time instead of waiting for it."""

    def __init__(
        self,
        broker: Broker,
        play: PlayService,
        *,
        grace: float = 60.0,
        first_move_timeout: float = 120.0,
        store: RedisPresenceStore | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if grace < 0 or first_move_timeout <= 0:
            raise ValueError("the grace period must be >= 0 and the first-move limit > 0")
        self._broker = broker
        self._play = play
        self.grace = grace
        self.first_move_timeout = first_move_timeout
        self._store = store
        self._time = clock  # all it reads of time: a test moves it by hand
        self.origin = store.origin if store is not None else secrets.token_hex(6)
        if store is not None:
            store.on_dead = self._origins_died
        self._local: dict[tuple[str, int], int] = defaultdict(int)
        # (match, seat) -> origin -> (online, wall time of the change)
        self._seen: dict[tuple[str, int], dict[str, tuple[bool, float]]] = defaultdict(dict)
        self._clocks: dict[str, tuple[int, asyncio.Task[None]]] = {}
        # Every local socket per match (spectators too), and the matches with sockets here
        # that are known to be over: their presence records go with their last socket.
        self._sockets: dict[str, int] = defaultdict(int)
        self._over: set[str] = set()

    # ------------------------------------------------------------------ presence
    async def connected(self, match_id: str, seat: int | None, *, over: bool = False) -> None:
        """A socket of ``match_id`` opened: a player's, or a spectator's (``seat`` None, whose
        presence nobody is told about). ``over``: the match is finished (or cancelled)."""
        if self._store is not None and self._sockets.get(match_id, 0) == 0:
            await self._load(match_id)  # what was said while nothing here watched the match
        self._sockets[match_id] += 1
        if over:
            self._over.add(match_id)
        if seat is None:
            return
        key = (match_id, seat)
        was_away = self.away_since(match_id, seat) is not None
        self._local[key] += 1
        if self._local[key] == 1:
            await self._changed(match_id, seat, True, was_away)

    async def disconnected(self, match_id: str, seat: int | None) -> None:
        """A socket of ``match_id`` closed (as :meth:`connected` counted it)."""
        try:
            if seat is None:
                return
            key = (match_id, seat)
            if self._local.get(key, 0) <= 0:
                return
            self._local[key] -= 1
            if self._local[key] == 0:
                del self._local[key]
                await self._changed(match_id, seat, False, False)
        finally:
            self._socket_gone(match_id)

    def _socket_gone(self, match_id: str) -> None:
        left = self._sockets.get(match_id, 0) - 1
        if left > 0:
            self._sockets[match_id] = left
            return
        self._sockets.pop(match_id, None)
        if match_id in self._over:  # over, and nobody here watches it: forget it entirely
            self._over.discard(match_id)
            self._forget(match_id)

    def _forget(self, match_id: str) -> None:
        for seat in (0, 1):
            self._seen.pop((match_id, seat), None)

    def match_over(self, match_id: str) -> None:
        """``match_id`` is finished or cancelled (seen in a state relayed from any process):
        its presence records go when its last local socket does."""
        if match_id in self._sockets:
            self._over.add(match_id)
        else:
            self._forget(match_id)

    def tracked(self) -> int:
        """How many (match, seat) presence records are kept (a leak shows here)."""
        return len(self._seen)

    async def _changed(self, match_id: str, seat: int, online: bool, was_away: bool) -> None:
        now = self._time.now()
        self._seen[(match_id, seat)][self.origin] = (online, now)
        note: PresenceNote = {"origin": self.origin, "seat": seat, "online": online, "at": now}
        message: MatchTopicMessage = {"presence": note}
        # Viewers hear of a player leaving, and of one coming back; a first arrival is news
        # to nobody (the other processes still take note of it).
        if not online or was_away:
            message["broadcast"] = self.message(match_id, seat)
        try:
            if self._store is not None:
                await self._store.save(match_id, seat, online, now)
            await self._broker.publish(topic(match_id), dict(message))
        except Exception:  # the local view is right; other instances catch up on the next change
            log.exception("publishing presence of match %s failed", match_id)

    def note(self, match_id: str, presence: Any) -> None:
        """Take in a presence change published by any process (ours included, harmlessly)."""
        if not isinstance(presence, dict):
            return
        origin, seat = presence.get("origin"), presence.get("seat")
        online, at = presence.get("online"), presence.get("at")
        if (not isinstance(origin, str) or seat not in (0, 1) or not isinstance(online, bool)
                or not isinstance(at, int | float) or origin == self.origin):
            return
        self._seen[(match_id, seat)][origin] = (online, float(at))

    def away_since(self, match_id: str, seat: int) -> float | None:
        """Since when (epoch seconds) ``seat`` has had no connection anywhere; None while it
        is connected somewhere or has never connected."""
        if self._local.get((match_id, seat), 0) > 0:
            return None
        seen = self._seen.get((match_id, seat))
        if not seen:
            return None
        records = list(seen.items())
        if self._store is not None:  # a dead process's players are away since it died
            records = [(origin, self._alive(origin, online, at))
                       for origin, (online, at) in records]
        if any(online for _origin, (online, _at) in records):
            return None
        return max(at for _origin, (_online, at) in records)

    def _alive(self, origin: str, online: bool, at: float) -> tuple[bool, float]:
        died = self._store.dead_since(origin) if self._store is not None else None
        if online and died is not None and origin != self.origin:
            return False, max(at, died)
        return online, at

    async def _load(self, match_id: str) -> None:
        assert self._store is not None
        try:
            records = await self._store.load(match_id)
        except Exception:  # the broker's notes still come; the store only fills a gap
            log.exception("reading presence of match %s failed", match_id)
            return
        for seat, origin, online, at in records:
            if origin == self.origin:
                continue
            known = self._seen[(match_id, seat)].get(origin)
            if known is None or known[1] <= at:
                self._seen[(match_id, seat)][origin] = (online, at)

    async def _origins_died(self, origins: set[str]) -> None:
        """Processes stopped answering: viewers here hear that their players are away."""
        for (match_id, seat), seen in list(self._seen.items()):
            if match_id not in self._sockets or not any(
                    online and origin in origins for origin, (online, _at) in seen.items()):
                continue
            if self.away_since(match_id, seat) is None:
                continue
            message: MatchTopicMessage = {"broadcast": self.message(match_id, seat)}
            try:
                await self._broker.publish(topic(match_id), dict(message))
            except Exception:
                log.exception("publishing presence of match %s failed", match_id)

    async def start(self) -> None:
        """Start sharing presence through the store (a Redis broker)."""
        if self._store is not None:
            await self._store.start()

    def message(self, match_id: str, seat: int) -> PresenceMessage:
        """The ``presence`` message of ``seat``: online, or away with the seconds left of its
        grace period (``claim_in``, 0 once the opponent may claim the win)."""
        since = self.away_since(match_id, seat)
        if since is None:
            return {"type": "presence", "seat": seat, "online": True, "claim_in": None}
        left = max(0.0, self.grace - (self._time.now() - since))
        return {"type": "presence", "seat": seat, "online": False,
                "claim_in": round(left, 1)}

    def messages(self, match_id: str) -> list[PresenceMessage]:
        """The presence of both seats, for a viewer who just said hello (only away seats)."""
        return [self.message(match_id, seat) for seat in (0, 1)
                if self.away_since(match_id, seat) is not None]

    # ------------------------------------------------------------------ claiming
    async def claim(self, match_id: str, user_id: int | None) -> None:
        """The opponent of a player away longer than the grace period claims the win: the
        absent player forfeits (``abandon``). PlayError says why not."""
        info = await self._play.info(match_id, user_id)
        if info.seat is None:
            raise PlayError("not_seated", "only a player can claim the win")
        if info.status != "active":
            raise PlayError("over", "the match is not being played")
        absent = 1 - info.seat
        since = self.away_since(match_id, absent)
        if since is None:
            raise PlayError("illegal", "your opponent is connected")
        if self._time.now() - since < self.grace:
            raise PlayError("illegal", "your opponent may still come back")
        await self._play.forfeit(match_id, absent, "abandon")

    # ------------------------------------------------------------------ first-move timeout
    def after_commit(self, live: LiveMatch) -> None:
        """After every committed change (and when a match is loaded): (re)arm the timeout of
        a player to act who has never moved in this match, or disarm it; a finished match's
        presence records are dropped."""
        match = live.match
        if match is None:  # a table waiting for its player: nobody is to move yet
            return
        if match.over:  # nobody can leave a finished match: forget who came and went
            self.match_over(live.id)
        current = self._clocks.get(live.id)
        seat = match.turn
        due = (  # a match with a clock (every newer match) times its turns itself
            live.clock is None and live.status == "active" and not match.over
            and seat is not None and live.seats[seat].bot is None and not has_moved(live, seat)
        )
        if current is not None:
            version, task = current
            if due and version == live.version:
                return
            if task is not asyncio.current_task():
                task.cancel()
            del self._clocks[live.id]
        if not due:
            return
        assert seat is not None
        task = asyncio.create_task(self._timeout(live.id, seat, live.version),
                                   name=f"kva-first-move-{live.id}-v{live.version}")
        self._clocks[live.id] = (live.version, task)
        task.add_done_callback(functools.partial(self._clock_done, live.id))

    def _clock_done(self, match_id: str, task: asyncio.Task[None]) -> None:
        current = self._clocks.get(match_id)
        if current is not None and current[1] is task:
            del self._clocks[match_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("first-move timeout of %s failed", match_id, exc_info=task.exception())

    async def _timeout(self, match_id: str, seat: int, version: int) -> None:
        await self._time.sleep(self.first_move_timeout)
        with contextlib.suppress(PlayError):
            await self._play.forfeit(match_id, seat, "timeout", expected_version=version)

    async def stop(self) -> None:
        """Cancel the armed timeouts (they are re-armed when the match resumes)."""
        if self._store is not None:
            await self._store.stop()
        tasks = [task for _v, task in self._clocks.values()]
        self._clocks.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
