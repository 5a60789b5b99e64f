"""Matches held in memory between actions: who sits where, the game and the dealt match, and
the cache that loads them from the database (one load at a time per match) and forgets the
least recently used. A match knows its game only as a :class:`kva.games.Game` found by name
(``matches.game``) and that game's :class:`kva.games.LivePlay`."""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import (
    SCHEME,
    AnyGame,
    DealSeeds,
    LivePlay,
    commitment,
    live_play_of,
    new_client_seed,
    new_server_seed,
)
from kva.games import get as get_game
from kva.games.live import ViewWriter
from kva.service.errors import NotFound, PlayError
from kva.service.play.clock import Clock, now_ms
from kva.status import MatchStatus
from kva.storage import repo
from kva.storage.fair import get_fair
from kva.storage.models import MatchFair, MatchRow, MatchSeat, User

#: How many finished or cancelled matches a process keeps in memory (:meth:`LiveStore.settled`).
SETTLED_KEPT = 200
#: Viewer keys of published states of a two-seat match: seat 0, seat 1, and everyone else.
VIEWER_KEYS: tuple[str, ...] = ("0", "1", "s")


def viewer_keys(seats: int) -> tuple[str, ...]:
    """The viewer keys of a match with ``seats`` seats: each seat's, then everyone else's."""
    return VIEWER_KEYS if seats == 2 else (*(str(s) for s in range(seats)), "s")


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

    @property
    def taken(self) -> bool:
        """Whether someone (a user or a bot) sits here."""
        return self.user_id is not None or self.bot is not None

    def public(self) -> dict[str, Any] | None:
        if not self.taken:
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
    def from_rows(cls, row: MatchFair, seats: Sequence[MatchSeat]) -> FairState:
        """The inputs as stored: the server seed's row and the seats' client seeds."""
        return cls(bytes.fromhex(row.server_seed), [s.client_seed for s in seats],
                   [s.seed_by for s in seats])

    def row(self, match_id: str) -> MatchFair:
        """The row of the server seed (each seat's client seed goes on :meth:`seat_row`)."""
        return MatchFair(match_id=match_id, server_seed=self.server_seed.hex())

    def seat_row(self, match_id: str, seat: int, taken: Seat) -> MatchSeat:
        """The row of ``seat``, sat in by ``taken`` (or nobody yet), with its client seed."""
        return MatchSeat(match_id=match_id, seat=seat, user_id=taken.user_id, bot=taken.bot,
                         client_seed=self.client_seeds[seat], seed_by=self.seed_by[seat])

    @property
    def commitment(self) -> str:
        return self._commitment

    def ready(self) -> bool:
        """Whether every seat's client seed is in (the match may be dealt)."""
        return all(s is not None for s in self.client_seeds)

    def fill(self, seat: int) -> None:
        """The server chooses ``seat``'s seed (its browser sent none in time)."""
        if self.client_seeds[seat] is None:
            self.client_seeds[seat] = new_client_seed()
            self.seed_by[seat] = "server"

    def seeds(self) -> DealSeeds:
        """The seeds the match is dealt from; every client seed must be in (:meth:`ready`)."""
        seeds = [s for s in self.client_seeds if s is not None]
        assert len(seeds) == len(self.client_seeds), "every client seed is needed"
        return DealSeeds(self.server_seed, tuple(seeds))

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

    ``game`` is the game it is played in and ``options`` that game's options for it; ``match``
    is the game's state, None until the match starts: a table waiting for its second player
    (or cancelled while waiting) is not dealt, so there is no hand anyone could see or shop
    for.
    """

    id: str
    game: AnyGame
    options: Any
    rated: bool
    match: Any | None
    version: int
    status: MatchStatus
    seats: list[Seat]
    created_at: str
    #: The match's mailbox: every change to it (each routed command, each automatic turn and
    #: seed, a handoff of its lease) is judged and committed under this lock, one at a time,
    #: on the one process serving it (there is no other queue of a match's changes).
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Only the players and granted visitors may watch (a password table and its rematches).
    private: bool = False
    #: The kva-fair/1 inputs (None: a match stored before fair deals, dealt from an rng).
    fair: FairState | None = None
    #: The time control (None: no clock; :mod:`kva.service.play.clock`).
    clock: Clock | None = None
    #: The actions applied since the deal, for a game that resumes by replaying them
    #: (:class:`kva.games.PlainPlay`; a game with its own journal keeps none here).
    log: list[Any] = field(default_factory=list, compare=False, repr=False)
    #: What the play core needs of the game beyond :class:`kva.games.Game`.
    play: LivePlay = field(init=False, compare=False, repr=False)
    #: Writes this match's views as the text of its states (it keeps what they repeat).
    view_text: ViewWriter = field(init=False, compare=False, repr=False)
    #: What :meth:`due` found, until the next change (:meth:`changed`).
    _due: tuple[int | None, bool] | None = field(default=None, init=False, compare=False,
                                                 repr=False)

    def __post_init__(self) -> None:
        self.play = live_play_of(self.game)
        self.view_text = self.play.view_writer()

    def due(self) -> tuple[int | None, bool]:
        """The seat to act now (None: nobody, or not dealt) and whether its one action is
        forced. Asked of the game once per change: the clock, the automatic turn and the
        first-move timeout each need it after every commit, which calls :meth:`changed`."""
        due = self._due
        if due is None:
            match = self.match
            to_act = self.game.to_act(match) if match is not None else ()
            seat = to_act[0] if to_act else None
            due = self._due = (seat, seat is not None
                               and self.game.forced_action(match, seat) is not None)
        return due

    def changed(self) -> None:
        """The match was just changed: :meth:`due` asks the game again."""
        self._due = None

    @property
    def over(self) -> bool:
        """Whether the match has been dealt and played to its end (won, resigned,
        forfeited)."""
        return self.match is not None and self.game.is_over(self.match)

    def logged(self, seat: int, action: Any) -> None:
        """Keep ``seat``'s action just applied (as JSON) in :attr:`log`, for a game that
        resumes by replaying it; a journaled game's own journal holds it already, and nothing
        is kept."""
        if not self.play.journaled:
            self.log.append([seat, self.game.action_to_json(action)])

    def logged_forfeit(self, seat: int, reason: str) -> None:
        """Keep ``seat``'s forfeit for ``reason`` in :attr:`log`, as :meth:`logged` does."""
        if not self.play.journaled:
            self.log.append([seat, "forfeit", reason])

    @property
    def keys(self) -> tuple[str, ...]:
        """The viewer keys of this match's states (:func:`viewer_keys`)."""
        return viewer_keys(len(self.seats))

    @property
    def aborted(self) -> bool:
        """Called off once both seats were taken (:mod:`kva.service.play.aborting`): a
        cancelled match that had started, unlike a table cancelled while it waited."""
        return self.status == MatchStatus.CANCELLED and all(s.taken for s in self.seats)

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    def dealt(self) -> Any:
        """The match being played; PlayError while the table still waits for its player."""
        if self.match is None:
            if self.status == MatchStatus.CANCELLED:
                raise PlayError("over", "this table was cancelled")
            if self.status == MatchStatus.ACTIVE:
                raise PlayError("illegal", "the match is dealt once both client seeds are in")
            raise PlayError("illegal", "the match starts when your opponent joins")
        return self.match


def live_from_row(
    row: MatchRow, users: dict[int, User], rng: random.Random, fair: MatchFair | None = None,
    current: tuple[dict[str, Any], int] | None = None,
    wall: Callable[[], int] = now_ms,
) -> LiveMatch:
    """The in-memory match of a stored row, in the game the row names (a waiting or cancelled
    table, or a match whose client seeds are not all in, stays undealt), resumed by the game
    (:meth:`kva.games.LivePlay.resume`); with ``fair``, later hands are dealt from its
    kva-fair/1 seeds, as they would have been without the restart. ``current``: the record
    and version now (:func:`kva.storage.repo.current_record`: the row's checkpoint with its
    journal applied); without it, the row's own. ``wall``: the wall clock of its clock."""
    record, version = current if current is not None else (row.record, row.version)
    game = get_game(row.game)
    play = live_play_of(game)
    options = play.options_from_stored(row.target, row.bazaar, record)
    state = FairState.from_rows(fair, row.seats) if fair is not None else None
    seats = []
    for seat in row.seats:
        user = users.get(seat.user_id) if seat.user_id is not None else None
        seats.append(Seat(seat.user_id, user.nickname if user is not None else None, seat.bot))
    undealt = (row.status in (MatchStatus.WAITING, MatchStatus.CANCELLED)
               or not play.dealt(record))
    seeds = state.seeds() if state is not None and state.ready() else None
    match = None if undealt else play.resume(options, len(seats), record, seeds, rng)
    started = (row.record.get("meta") or {}).get("started") or row.created_at.isoformat()
    clock = Clock.from_meta((record.get("meta") or {}).get("clock"), wall)
    return LiveMatch(row.id, game, options, row.rated, match, version, MatchStatus(row.status),
                     seats, started, private=row.private, fair=state, clock=clock,
                     log=[] if undealt else play.log_of(record))


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
        restore: Callable[[AsyncSession, LiveMatch], Awaitable[None]] | None = None,
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
        #: Called with each match read from the database, in the session that read it,
        #: before anyone uses it (the outage its clock was left in is given back there:
        #: :mod:`kva.service.play.liveness`).
        self._restore = restore
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
            users = await repo.users_by_id(session, row.seated_users())
            fair = await get_fair(session, match_id)
            current = await repo.current_record(
                session, row, live_play_of(get_game(row.game)).apply_change)
            live = live_from_row(row, users, self._rng_factory(), fair, current, self.now_ms)
            if self._restore is not None:
                await self._restore(session, live)
        return live

    async def fresh(self, match_id: str, *, claimed: bool = False) -> LiveMatch:
        """The match as stored now. Alone (not :attr:`shared`), the copy in memory is it (a
        failed write drops the copy), and nothing is read. Shared, the copy is kept unless
        the stored version is ahead of it; a version read before one of this process's own
        commits landed is behind the copy, and the copy stays (no second copy, no spurious
        ``stale``). Shared but :attr:`owned` here, the copy is the truth: nothing is read.
        ``claimed``: a client says the match is further on than the copy; unless it is owned
        here, the stored version is read even alone (and the copy kept if it is not ahead)."""
        live = self.live.get(match_id)
        if live is not None and (self.shared or claimed) and not self.owned(match_id):
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
