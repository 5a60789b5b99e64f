"""Matches held in memory between actions: who sits where, the dealt match, and the cache that
loads them from the database (one load at a time per match) and forgets the least recently
used."""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.rules import (
    SCHEME,
    FairDealer,
    Match,
    MatchSettings,
    commitment,
    new_client_seed,
    new_server_seed,
    read_record,
)
from kva.service.errors import NotFound, PlayError
from kva.service.play.clock import Clock, now_ms
from kva.service.play.viewtext import ViewText
from kva.storage import repo
from kva.storage.fair import get_fair
from kva.storage.models import MatchFair, MatchRow, User

#: How many finished or cancelled matches a process keeps in memory (:meth:`LiveStore.settled`).
SETTLED_KEPT = 200
#: Viewer keys of published states: seat 0, seat 1, and everyone else.
VIEWER_KEYS: tuple[str, ...] = ("0", "1", "s")


def topic(match_id: str) -> str:
    """The broker topic of one match."""
    return f"match:{match_id}"


def viewer_key(seat: int | None) -> str:
    """The key of a viewer's state in a published message."""
    return "s" if seat is None else str(seat)


@dataclass(slots=True)
class Seat:
    """Who sits in a seat: a user (with a nickname), a bot level, or nobody yet."""

    user_id: int | None = None
    nickname: str | None = None
    bot: str | None = None

    def public(self) -> dict[str, Any] | None:
        if self.user_id is None and self.bot is None:
            return None
        return {"name": self.nickname, "bot": self.bot}

    def record_name(self) -> str:
        return f"bot:{self.bot}" if self.bot else (self.nickname or "?")


@dataclass(slots=True)
class FairState:
    """A match's kva-fair/1 inputs (docs/fairness.md): the secret server seed, and each seat's
    client seed (None until it is in) with who chose it (``player`` or ``server``).

    ``server_seed`` is the secret: it leaves this object only through :meth:`public` and
    :meth:`meta` with ``reveal=True``, which the service asks for once the match is over."""

    server_seed: bytes
    client_seeds: list[str | None]
    seed_by: list[str | None]
    #: SHA-256 of the server seed (which never changes), made once: every state shows it.
    _commitment: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._commitment = commitment(self.server_seed)

    @classmethod
    def new(cls, seats: list[Seat]) -> FairState:
        """Fresh inputs for a new match: a new server seed; a bot's seat gets its seed now."""
        seeds: list[str | None] = [new_client_seed() if s.bot else None for s in seats]
        return cls(new_server_seed(), seeds, ["server" if s.bot else None for s in seats])

    @classmethod
    def from_row(cls, row: MatchFair) -> FairState:
        return cls(bytes.fromhex(row.server_seed), [row.client_seed0, row.client_seed1],
                   [row.seed_by0, row.seed_by1])

    def row(self, match_id: str) -> MatchFair:
        return MatchFair(match_id=match_id, server_seed=self.server_seed.hex(),
                         client_seed0=self.client_seeds[0], client_seed1=self.client_seeds[1],
                         seed_by0=self.seed_by[0], seed_by1=self.seed_by[1])

    @property
    def commitment(self) -> str:
        return self._commitment

    def ready(self) -> bool:
        """Whether both client seeds are in (the match may be dealt)."""
        return all(s is not None for s in self.client_seeds)

    def fill(self, seat: int) -> None:
        """The server chooses ``seat``'s seed (its browser sent none in time)."""
        if self.client_seeds[seat] is None:
            self.client_seeds[seat] = new_client_seed()
            self.seed_by[seat] = "server"

    def dealer(self) -> FairDealer:
        seeds = self.client_seeds
        assert seeds[0] is not None and seeds[1] is not None, "both client seeds are needed"
        return FairDealer(self.server_seed, (seeds[0], seeds[1]))

    def public(self, *, reveal: bool) -> dict[str, Any]:
        """The ``fair`` field of a ``state`` message: the server seed only with ``reveal``."""
        return {"scheme": SCHEME, "commitment": self.commitment,
                "client_seeds": list(self.client_seeds),
                "server_seed": self.server_seed.hex() if reveal else None}

    def meta(self, *, reveal: bool) -> dict[str, Any]:
        """``meta.fair`` of the record (``server_seed`` only with ``reveal``), with
        ``seed_by``: who chose each client seed."""
        fair: dict[str, Any] = {"scheme": SCHEME, "commitment": self.commitment,
                                "client_seeds": list(self.client_seeds),
                                "seed_by": list(self.seed_by)}
        if reveal:
            fair["server_seed"] = self.server_seed.hex()
        return fair

    def __repr__(self) -> str:  # never print the secret
        return f"FairState(commitment={self.commitment!r}, client_seeds={self.client_seeds!r})"


@dataclass(slots=True)
class LiveMatch:
    """A match held in memory between actions, with its stored version and seats.

    ``match`` is None until the match starts: a table waiting for its second player (or
    cancelled while waiting) is not dealt, so there is no hand anyone could see or shop for.
    """

    id: str
    settings: MatchSettings
    match: Match | None
    version: int
    status: str
    seats: list[Seat]
    created_at: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Only the players and granted visitors may watch (a password table and its rematches).
    private: bool = False
    #: The kva-fair/1 inputs (None: a match stored before fair deals, dealt from an rng).
    fair: FairState | None = None
    #: The time control (None: no clock; :mod:`kva.service.play.clock`).
    clock: Clock | None = None
    #: Writes this match's views as the text of its states (it keeps what they repeat).
    view_text: ViewText = field(default_factory=ViewText, compare=False, repr=False)

    @property
    def rated(self) -> bool:
        return self.settings.rated

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    def dealt(self) -> Match:
        """The match being played; PlayError while the table still waits for its player."""
        if self.match is None:
            if self.status == "cancelled":
                raise PlayError("over", "this table was cancelled")
            if self.status == "active":
                raise PlayError("illegal", "the match is dealt once both client seeds are in")
            raise PlayError("illegal", "the match starts when your opponent joins")
        return self.match


def live_from_row(
    row: MatchRow, users: dict[int, User], rng: random.Random, fair: MatchFair | None = None,
    current: tuple[dict[str, Any], int] | None = None,
    wall: Callable[[], int] = now_ms,
) -> LiveMatch:
    """The in-memory match of a stored row (a waiting or cancelled table, or a match whose
    client seeds are not both in, stays undealt); with ``fair``, later hands are dealt by its
    kva-fair/1 dealer, as they would have been without the restart. ``current``: the record
    and version now (:func:`kva.storage.repo.current_record`: the row's checkpoint with its
    journal applied); without it, the row's own. ``wall``: the wall clock of its clock."""
    record, version = current if current is not None else (row.record, row.version)
    settings = MatchSettings.parse(row.target, row.bazaar, row.rated)
    state = FairState.from_row(fair) if fair is not None else None
    undealt = row.status in ("waiting", "cancelled") or not record.get("hands")
    dealer = state.dealer() if state is not None and state.ready() else None
    match = None if undealt else read_record(record, complete=False, rng=rng, dealer=dealer)
    seats = []
    pairs = ((row.seat0_user_id, row.seat0_bot), (row.seat1_user_id, row.seat1_bot))
    for user_id, bot in pairs:
        user = users.get(user_id) if user_id is not None else None
        seats.append(Seat(user_id, user.nickname if user is not None else None, bot))
    started = (row.record.get("meta") or {}).get("started") or row.created_at.isoformat()
    clock = Clock.from_meta((record.get("meta") or {}).get("clock"), wall)
    return LiveMatch(row.id, settings, match, version, row.status, seats, started,
                     private=row.private, fair=state, clock=clock)


def _owns_nothing(_match_id: str) -> bool:
    return False


@dataclass(slots=True)
class _Loading:
    """One match being loaded: its lock and how many callers wait on it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class LiveStore:
    """The matches this process holds, loaded on demand and dropped beyond ``cache_size``."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        rng_factory: Callable[[], random.Random],
        cache_size: int,
        busy: Callable[[str], bool],
        *,
        shared: bool = False,
        wall: Callable[[], int] = now_ms,
        owned: Callable[[str], bool] | None = None,
        loaded: Callable[[LiveMatch], None] | None = None,
        dropped: Callable[[str], None] | None = None,
    ) -> None:
        self._sessions = sessions
        #: Other processes may change the matches held here (a shared broker): reads check
        #: the stored version. A process alone with its matches reads nothing before using its
        #: copy; a stale copy is caught by the refused journal insert of a write either way.
        self.shared = shared
        self._rng_factory = rng_factory
        self._busy = busy
        self.cache_size = cache_size
        #: At most this many finished or cancelled matches stay in memory (see :meth:`settled`).
        self.settled_size = max(1, min(SETTLED_KEPT, cache_size))
        self.live: OrderedDict[str, LiveMatch] = OrderedDict()
        #: The finished and cancelled matches held here, the least recently settled first.
        self._settled: OrderedDict[str, None] = OrderedDict()
        #: Loads in progress (an entry lives only while someone loads or waits for it).
        self.loading: dict[str, _Loading] = {}
        #: Called with each match loaded from the database.
        self._loaded = loaded
        #: Called with the id of each match dropped from memory for room.
        self._dropped = dropped
        #: Whether this process owns a match (:mod:`kva.service.play.owners`): nobody else
        #: writes it, so its copy here is the truth and :meth:`fresh` reads nothing.
        self.owned: Callable[[str], bool] = owned if owned is not None else _owns_nothing
        #: The wall clock (epoch ms) of the match clocks (tests inject a fake one).
        self.now_ms: Callable[[], int] = wall

    def __iter__(self) -> Iterator[LiveMatch]:
        return iter(list(self.live.values()))

    async def get(self, match_id: str) -> LiveMatch:
        """The match, from memory or loaded (raises :class:`NotFound`)."""
        live = self.live.get(match_id)
        if live is not None:
            self.live.move_to_end(match_id)
            return live
        loading = self.loading.get(match_id)
        if loading is None:
            loading = self.loading[match_id] = _Loading()
        loading.users += 1
        try:
            async with loading.lock:
                live = self.live.get(match_id)
                if live is not None:
                    return live
                live = await self._load(match_id)
                self.remember(live)
        finally:
            loading.users -= 1
            if loading.users == 0 and self.loading.get(match_id) is loading:
                del self.loading[match_id]
        if self._loaded is not None:
            self._loaded(live)
        return live

    async def _load(self, match_id: str) -> LiveMatch:
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
            if row is None:
                raise NotFound(match_id)
            users = await repo.users_by_id(
                session, [u for u in (row.seat0_user_id, row.seat1_user_id) if u is not None]
            )
            fair = await get_fair(session, match_id)
            current = await repo.current_record(session, row)
        return live_from_row(row, users, self._rng_factory(), fair, current, self.now_ms)

    async def fresh(self, match_id: str) -> LiveMatch:
        """The match as stored now. Alone (not :attr:`shared`), the copy in memory is it (a
        failed write drops the copy), and nothing is read. Shared, the copy is kept unless
        the stored version is ahead of it; a version read before one of this process's own
        commits landed is behind the copy, and the copy stays (no second copy, no spurious
        ``stale``). Shared but :attr:`owned` here, the copy is the truth: nothing is read."""
        live = self.live.get(match_id)
        if live is not None and self.shared and not self.owned(match_id):
            async with self._sessions() as session:
                version = await repo.match_version(session, match_id)
            if version is None:
                self.forget(match_id)
                raise NotFound(match_id)
            current = self.live.get(match_id)
            if current is not None and version > current.version:
                self.forget(match_id)
        return await self.get(match_id)

    def remember(self, live: LiveMatch) -> None:
        """Keep ``live`` in memory; beyond ``cache_size`` matches, drop the least recently used
        ones that nothing is using (the database holds them all; they reload on demand)."""
        self.live[live.id] = live
        self.live.move_to_end(live.id)
        excess = len(self.live) - self.cache_size
        for old_id in list(self.live)[:max(0, excess)]:
            old = self.live[old_id]
            if old is live or old.lock.locked() or self._busy(old_id):
                continue
            self._drop(old_id)

    def settled(self, live: LiveMatch) -> None:
        """``live`` has just finished or been cancelled. It stays in memory for the pages and
        rematch offers that follow at once, but only the :attr:`settled_size` most recent such
        matches do: the others are dropped (they reload from the database if asked for), so the
        memory a process holds follows its live matches, not every match it has served."""
        self._settled[live.id] = None
        self._settled.move_to_end(live.id)
        while len(self._settled) > self.settled_size:
            old_id, _ = self._settled.popitem(last=False)
            old = self.live.get(old_id)
            if old is None or old is live or old.lock.locked() or self._busy(old_id):
                continue  # in use: the cache's own limit drops it later
            self._drop(old_id)

    def _drop(self, match_id: str) -> None:
        del self.live[match_id]
        self._settled.pop(match_id, None)
        if self._dropped is not None:
            self._dropped(match_id)

    def forget(self, match_id: str) -> None:
        """Drop the in-memory copy (it may be ahead of or behind the database)."""
        self.live.pop(match_id, None)
        self._settled.pop(match_id, None)

    def renamed(self, user_id: int, nickname: str) -> None:
        """A player's nickname changed: the matches held here show the new one."""
        for live in self.live.values():
            for seat in live.seats:
                if seat.user_id == user_id:
                    seat.nickname = nickname
