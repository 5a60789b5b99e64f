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

Presence also keeps the records in its :class:`~kva.service.cluster.presence_store.PresenceStore`
(in Redis, with a Redis broker): a process reads them when its first socket of a match opens
(it heard nothing while none of its sockets watched the match), and the players a dead process
had said were online are away from when it stopped refreshing its liveness. A process alone
has the in-memory store, which keeps nothing and never sees a process die.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import defaultdict
from typing import Any

from kva.games.base import MAX_SEATS
from kva.service.cluster.broker import Broker
from kva.service.cluster.presence_store import MemoryPresenceStore, PresenceStore
from kva.service.errors import PlayError
from kva.service.messages import MatchTopicMessage, PresenceMessage, PresenceNote
from kva.service.play import LiveMatch, PlayService, topic
from kva.service.play.scheduler import TimerKind
from kva.service.play.spectators import Spectators
from kva.service.timekeeping import SYSTEM_CLOCK, Clock
from kva.status import EndReason, MatchStatus

log = logging.getLogger(__name__)

#: Client message type of a claim (docs/web-contract.md).
CLAIM_TYPE = "claim_win"


def has_moved(live: LiveMatch, seat: int) -> bool:
    """Whether ``seat`` ever chose an action in the match, as its game says
    (:meth:`~kva.games.LivePlay.has_chosen`: the Georgian game counts an opening or a play,
    not the draws and passes the server applies when they are forced)."""
    return live.match is not None and live.play.has_chosen(live.match, live.log, seat)


class Presence:
    """Connections per match and seat, disconnection grace, claims and first-move timeouts.

    ``clock`` is the only source of time it reads (the wall time of a change), so its tests
    can move time instead of waiting for it; the first-move timeout is a timer of the match
    (:mod:`kva.service.play.scheduler`), on the play service's clock."""

    def __init__(
        self,
        broker: Broker,
        play: PlayService,
        *,
        grace: float = 60.0,
        first_move_timeout: float = 120.0,
        store: PresenceStore | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if grace < 0 or first_move_timeout <= 0:
            raise ValueError("the grace period must be >= 0 and the first-move limit > 0")
        self._broker = broker
        self._play = play
        self.grace = grace
        self.first_move_timeout = first_move_timeout
        #: Where the records are shared (the composition root's choice; default: a process
        #: alone, the in-memory store).
        self._store: PresenceStore = store if store is not None else MemoryPresenceStore()
        self._time = clock  # all it reads of time: a test moves it by hand
        self.origin = self._store.origin
        self._store.on_dead = self._origins_died
        #: The spectators' count, shared through the broker like presence.
        self.spectators = Spectators(broker, self.origin)
        self._local: dict[tuple[str, int], int] = defaultdict(int)
        # (match, seat) -> origin -> (online, wall time of the change)
        self._seen: dict[tuple[str, int], dict[str, tuple[bool, float]]] = defaultdict(dict)
        # Every local socket per match (spectators too), and the matches with sockets here
        # that are known to be over: their presence records go with their last socket.
        self._sockets: dict[str, int] = defaultdict(int)
        self._over: set[str] = set()

    # ------------------------------------------------------------------ presence
    async def connected(self, match_id: str, seat: int | None, *, over: bool = False) -> None:
        """A socket of ``match_id`` opened: a player's, or a spectator's (``seat`` None, whose
        presence nobody is told about). ``over``: the match is finished (or cancelled)."""
        if self._sockets.get(match_id, 0) == 0:  # what was said while nothing here watched
            await self._load(match_id)
            await self.spectators.first_socket(match_id)
        self._sockets[match_id] += 1
        if over:
            self._over.add(match_id)
        if seat is None:
            await self.spectators.joined(match_id)
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
                await self.spectators.left(match_id)
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
        for seat in range(MAX_SEATS):
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
        if (not isinstance(origin, str) or type(seat) is not int or not 0 <= seat < MAX_SEATS
                or not isinstance(online, bool)
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
        # A dead process's players are away since it died.
        records = [(origin, self._alive(origin, online, at))
                   for origin, (online, at) in seen.items()]
        if any(online for _origin, (online, _at) in records):
            return None
        return max(at for _origin, (_online, at) in records)

    def _alive(self, origin: str, online: bool, at: float) -> tuple[bool, float]:
        died = self._store.dead_since(origin)
        if online and died is not None and origin != self.origin:
            return False, max(at, died)
        return online, at

    async def _load(self, match_id: str) -> None:
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
        """Start sharing presence through the store (with Redis: liveness refreshed)."""
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
        """The presence of every seat, for a viewer who just said hello (only away seats: a
        seat nobody ever sat in, or a bot's, is never away)."""
        return [self.message(match_id, seat) for seat in range(MAX_SEATS)
                if self.away_since(match_id, seat) is not None]

    # ------------------------------------------------------------------ claiming
    async def claim(self, match_id: str, user_id: int | None) -> None:
        """A player claims the win over a player away longer than the grace period: the
        absent player forfeits (``abandon``; at a Kozel table, rated as a time loss). At three
        or four seats, of several players gone past their grace, the one away longest
        forfeits (one claim, one forfeit: the match then ends for every seat). PlayError says
        why not."""
        info = await self._play.info(match_id, user_id)
        if info.seat is None:
            raise PlayError("not_seated", "only a player can claim the win")
        if info.status != MatchStatus.ACTIVE:
            raise PlayError("over", "the match is not being played")
        away = sorted((since, seat) for seat in range(len(info.players)) if seat != info.seat
                      and (since := self.away_since(match_id, seat)) is not None)
        if not away:
            raise PlayError("illegal", "your opponent is connected" if len(info.players) == 2
                            else "every other player is connected")
        since, absent = away[0]
        if self._time.now() - since < self.grace:
            raise PlayError("illegal", "your opponent may still come back")
        await self._play.forfeit(match_id, absent, EndReason.ABANDON)

    # ------------------------------------------------------------------ first-move timeout
    def after_commit(self, live: LiveMatch) -> None:
        """After every committed change (and when a match is loaded): (re)arm the timeout of
        a player to act who has never moved in this match, or disarm it; a finished match's
        presence records are dropped. The timeout is the match's
        :attr:`~kva.service.play.scheduler.TimerKind.FIRST_MOVE` timer."""
        match = live.match
        if match is None:  # a table waiting for its player: nobody is to move yet
            return
        if live.over:  # nobody can leave a finished match: forget who came and went
            self.match_over(live.id)
        seat, _forced = live.due()
        due = (  # a match with a clock (every newer match) times its turns itself
            live.clock is None and live.status == MatchStatus.ACTIVE and not live.over
            and seat is not None and live.seats[seat].bot is None and not has_moved(live, seat)
        )
        timers = self._play.timers
        if not due:
            timers.cancel(live.id, TimerKind.FIRST_MOVE)
            return
        assert seat is not None
        # Keyed by the version: a timeout already armed at this version goes on.
        timers.of(live.id).set_in(
            TimerKind.FIRST_MOVE, self.first_move_timeout,
            functools.partial(self._timeout, live.id, seat, live.version), key=live.version)

    async def _timeout(self, match_id: str, seat: int, version: int) -> None:
        with contextlib.suppress(PlayError):
            await self._play.forfeit(match_id, seat, EndReason.TIMEOUT, expected_version=version)

    async def stop(self) -> None:
        """Cancel the armed timeouts (they are re-armed when the match resumes)."""
        await self._store.stop()
        self._play.timers.cancel_everywhere(TimerKind.FIRST_MOVE)
