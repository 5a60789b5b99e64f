"""Quick game: the waiting room that pairs players by :mod:`kva.service.lobby.matchmaking`.

A player is in the queue while their quick-game connection is open: closing the page or
pressing "cancel" takes them out, so nobody is ever paired with someone who left. A second
search by the same player replaces the first. The queue is checked at once when someone
arrives, then every :data:`TICK` seconds while anyone waits (ranges widen with time). A pair
becomes an active match straight away (seat 0 is whoever waited longer), and both searches
learn its id.

One small interface, :class:`QuickGame`, two implementations: :class:`MemoryQuickGame` holds
the queue in this process (one ``kva serve``), and
:class:`kva.service.cluster.quickgame.RedisQuickGame` holds it in Redis, so players connected to
different processes are paired with each other. The composition root (:mod:`kva.platform`)
picks one; both check a search with :func:`check_search`, report it with
:func:`search_status`, pair on a :class:`Ticker` and start a pair's match with
:func:`start_match`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kva.config import QUICK_BOT_OFFER
from kva.kozel import FISH_RULES
from kva.rules import BadSettings, MatchSettings
from kva.service.coins import wallets as coins
from kva.service.lobby.matchmaking import (
    KOZEL_QUICK_SEATS,
    Seeker,
    TableSeeker,
    fill_table,
    group,
    offer_bot,
    offer_bots,
    pair,
    rating_range,
    waited,
)
from kva.service.play import PlayService, Seat
from kva.service.play.clock import DEFAULT_CLOCK
from kva.settings.clocks import PRESETS

log = logging.getLogger(__name__)

#: Seconds between two pairing rounds while someone waits.
TICK = 0.5


def stake_argument(stake: int) -> dict[str, Any]:
    """``create_match``'s stake argument: none without a stake (so a service without coins, as
    in the tests, is called as before)."""
    return {"stake": stake} if stake else {}


def clock_argument(clock: str) -> dict[str, Any]:
    """``create_match``'s clock argument: none for the default clock (which ``create_match``
    gives a quick game anyway), as :func:`stake_argument`."""
    return {} if clock == DEFAULT_CLOCK else {"clock": clock}


def quick_clock(clock: object) -> str:
    """A quick game's clock preset (empty: the default); QuickGameError ``bad_clock`` for one
    that is not a clock (a quick game always has one)."""
    if clock is None or clock == "":
        return DEFAULT_CLOCK
    if clock not in PRESETS:
        raise QuickGameError("bad_clock", f"a quick game's clock is one of {', '.join(PRESETS)}")
    return str(clock)


class QuickGameError(ValueError):
    """A search refused (bad settings, or rated for a guest); nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False, slots=True)
class Search:
    """One player's search: what they want, and the match it ends in."""

    seeker: Seeker
    nickname: str
    result: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    #: Names the search where it is shared between processes (kva.service.cluster.quickgame).
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


@dataclass(eq=False, slots=True)
class TableSearch:
    """One player's search for a Kozel table: what they want, and the match it ends in."""

    seeker: TableSeeker
    nickname: str
    result: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    #: Names the search where it is shared between processes (kva.service.cluster.quickgame).
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


class TableMember(Protocol):
    """Who takes a seat at a Kozel quick table: a search here, or one read from Redis."""

    @property
    def seeker(self) -> TableSeeker: ...

    @property
    def nickname(self) -> str: ...


#: The bot level that takes a Kozel quick game's free seats.
QUICK_BOT_LEVEL = "normal"


def check_table_search(seats: int, fish: str) -> None:
    """QuickGameError unless ``seats`` and ``fish`` name a Kozel quick table."""
    if seats not in KOZEL_QUICK_SEATS:
        raise QuickGameError("bad_seats", "a Kozel quick game has 3 or 4 seats")
    if fish not in FISH_RULES:
        raise QuickGameError("bad_fish", f"the fish rule is one of {', '.join(FISH_RULES)}")


async def start_table(service: PlayService, table: Sequence[TableMember]) -> str:
    """Create the Kozel match of ``table`` (seat 0: its longest waiter, then the others in
    the order grouped, then bots for any seat left); its id."""
    first = table[0].seeker
    seated = [Seat(s.seeker.user_id, s.nickname) for s in table[1:]]
    seated += [Seat(bot=QUICK_BOT_LEVEL) for _ in range(first.seats - len(table))]
    match_id, _token = await service.create_match(
        first.user_id, table[0].nickname, "player", game="kozel",
        options={"fish": first.fish}, seats=first.seats, seated=seated)
    return match_id


@dataclass(frozen=True, slots=True)
class SearchStatus:
    """What the searching page shows."""

    waited: int
    range: int
    offer_bot: bool
    #: At a Kozel search: the players who would sit at its table now, the searcher included.
    found: int = 1


def check_search(target: int, bazaar: str, rated: bool, registered: bool,
                 stake: int | str = 0) -> None:
    """QuickGameError unless the settings are valid for this player (``stake``: Domino Coin
    per player, registered players only)."""
    try:
        coin_stake = coins.check_stake(stake)
    except coins.CoinError as exc:
        raise QuickGameError(exc.code, str(exc)) from None
    if coin_stake and not registered:
        raise QuickGameError("coins_only", "coin games are for registered players")
    try:
        MatchSettings.parse(target, bazaar, rated)
    except BadSettings as exc:
        code = {"target": "bad_target", "bazaar": "bad_bazaar"}.get(exc.field, "bad_settings")
        raise QuickGameError(code, str(exc)) from None
    if rated and not registered:
        raise QuickGameError("rated_only", "rated games are for registered players")


def search_status(search: Search, now: float) -> SearchStatus:
    """How long ``search`` has waited at ``now``, its rating range, and whether a bot is
    offered."""
    w = waited(search.seeker, now)
    return SearchStatus(int(w), int(rating_range(w)), offer_bot(search.seeker, now))


async def start_match(service: PlayService, a: Seeker, a_name: str, b: Seeker,
                      b_name: str) -> str:
    """Create the match of a pair with ``a``'s settings (seat 0: ``a``, the longer waiter);
    its id."""
    match_id, _token = await service.create_match(
        a.user_id, a_name, "player", a.target, a.bazaar, rated=a.rated,
        opponent_user=(b.user_id, b_name),
        **stake_argument(a.stake),  # Domino Coin per player
        **clock_argument(a.clock),
    )
    return match_id


class QuickGame(Protocol):
    """What the quick-game page needs of the queue, wherever it is kept."""

    async def join(self, user_id: int, nickname: str, rating: float, target: int, bazaar: str,
                   rated: bool, registered: bool, stake: int | str = 0,
                   clock: str | None = None) -> Search:
        """Start a search (replacing this player's previous one); pairs at once if possible
        (only with a search of the same settings, ``clock`` included)."""
        ...

    def leave(self, search: Search) -> None:
        """Take ``search`` out of the queue (if it is still there and not paired)."""
        ...

    def status(self, search: Search) -> SearchStatus:
        """How long ``search`` has waited, its rating range, and whether a bot is offered."""
        ...

    def waiting(self) -> int:
        """How many players wait on this process."""
        ...

    async def pair_now(self) -> None:
        """One pairing round (the ticker calls it; so may tests)."""
        ...

    async def join_table(self, user_id: int, nickname: str, rating: float, seats: int,
                         fish: str) -> TableSearch:
        """Start a search for a Kozel table (QuickGameError where it cannot be kept)."""
        ...

    def leave_table(self, search: TableSearch) -> None:
        """Take a Kozel ``search`` out of the queue."""
        ...

    def table_status(self, search: TableSearch) -> SearchStatus:
        """How long a Kozel ``search`` has waited, its range, and whether bots are offered."""
        ...

    async def accept_bots(self, search: TableSearch) -> None:
        """Start ``search``'s table now with bots in the free seats."""
        ...

    async def stop(self) -> None:
        """End this process's searches and its tasks (server shutdown)."""
        ...


class Ticker:
    """The task that runs pairing rounds every ``tick`` seconds while ``busy()`` holds (one
    bad round does not stop it)."""

    def __init__(self, tick: float, busy: Callable[[], bool],
                 round_: Callable[[], Awaitable[None]]) -> None:
        self._tick = tick
        self._busy = busy
        self._round = round_
        self._task: asyncio.Task[None] | None = None

    def ensure(self) -> None:
        """Start ticking unless already ticking."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="kva-quick-game")

    async def _run(self) -> None:
        while self._busy():
            await asyncio.sleep(self._tick)
            try:
                await self._round()
            except Exception:  # one bad round must not stop pairing
                log.exception("quick-game pairing failed")

    async def stop(self) -> None:
        """Cancel the task and wait for it."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


class MemoryQuickGame:
    """The queue of waiting players in this process and the task that pairs them."""

    def __init__(self, service: PlayService, clock: Callable[[], float] = time.monotonic,
                 tick: float = TICK, bot_offer: float = QUICK_BOT_OFFER) -> None:
        self._service = service
        self._clock = clock
        self._bot_offer = bot_offer
        self._searches: dict[int, Search] = {}
        self._tables: dict[int, TableSearch] = {}
        self._ticker = Ticker(
            tick, lambda: bool(self._searches or self._tables) and not self._stopped,
            self.pair_now)
        self._pairing = asyncio.Lock()
        self._stopped = False

    async def join(self, user_id: int, nickname: str, rating: float, target: int, bazaar: str,
                   rated: bool, registered: bool, stake: int | str = 0,
                   clock: str | None = None) -> Search:
        """Start a search (replacing this player's previous one); pairs at once if possible
        (only with a search of the same settings, ``clock`` included: its preset, or the
        default)."""
        check_search(target, bazaar, rated, registered, stake)
        stake = coins.check_stake(stake)
        preset = quick_clock(clock)
        if self._stopped:
            raise QuickGameError("stopped", "the server is stopping")
        search = Search(Seeker(user_id, float(rating), target, bazaar, rated, self._clock(),
                               stake, preset), nickname)
        previous = self._searches.get(user_id)
        if previous is not None and not previous.result.done():
            previous.result.set_exception(QuickGameError("replaced", "searching elsewhere"))
            previous.result.exception()  # retrieved: no "never retrieved" warning
        self._searches[user_id] = search
        await self.pair_now()
        self._ticker.ensure()
        return search

    def leave(self, search: Search) -> None:
        """Take ``search`` out of the queue (if it is still there and not paired)."""
        if self._searches.get(search.seeker.user_id) is search:
            del self._searches[search.seeker.user_id]
        if not search.result.done():
            search.result.cancel()

    def status(self, search: Search) -> SearchStatus:
        """How long ``search`` has waited, its rating range, and whether a bot is offered."""
        return search_status(search, self._clock())

    def waiting(self) -> int:
        """How many players wait now."""
        return len(self._searches)

    async def join_table(self, user_id: int, nickname: str, rating: float, seats: int,
                         fish: str) -> TableSearch:
        """Start a search for a Kozel table of ``seats`` with the ``fish`` rule (``rating``:
        the Kozel rating, 0 for a newcomer), replacing this player's previous Kozel search;
        starts a table at once if one fills."""
        check_table_search(seats, fish)
        if self._stopped:
            raise QuickGameError("stopped", "the server is stopping")
        search = TableSearch(TableSeeker(user_id, float(rating), seats, fish, self._clock()),
                             nickname)
        previous = self._tables.get(user_id)
        if previous is not None and not previous.result.done():
            previous.result.set_exception(QuickGameError("replaced", "searching elsewhere"))
            previous.result.exception()  # retrieved: no "never retrieved" warning
        self._tables[user_id] = search
        await self.pair_now()
        self._ticker.ensure()
        return search

    def leave_table(self, search: TableSearch) -> None:
        """Take a Kozel ``search`` out of the queue (if it is still there and not seated)."""
        if self._tables.get(search.seeker.user_id) is search:
            del self._tables[search.seeker.user_id]
        if not search.result.done():
            search.result.cancel()

    def table_status(self, search: TableSearch) -> SearchStatus:
        """How long a Kozel ``search`` has waited, its rating range, and whether bots are
        offered for the free seats (after ``KVA_QUICK_BOT_OFFER`` seconds)."""
        now = self._clock()
        w = waited(search.seeker, now)
        others = [s.seeker for s in self._tables.values() if s is not search]
        return SearchStatus(int(w), int(rating_range(w)),
                            offer_bots(search.seeker, now, self._bot_offer),
                            len(fill_table(search.seeker, others, now)))

    async def accept_bots(self, search: TableSearch) -> None:
        """Start ``search``'s table now with the players found so far and bots for the free
        seats; QuickGameError ``too_early`` before the offer, ``not_searching`` once gone."""
        async with self._pairing:
            if self._tables.get(search.seeker.user_id) is not search:
                raise QuickGameError("not_searching", "this search is over")
            now = self._clock()
            if not offer_bots(search.seeker, now, self._bot_offer):
                raise QuickGameError("too_early", "bots are offered after a wait")
            others = [s.seeker for s in self._tables.values() if s is not search]
            chosen = fill_table(search.seeker, others, now)
            table = [self._tables.pop(s.user_id) for s in chosen]
            await self._start_table(table)

    async def pair_now(self) -> None:
        """One pairing round at the clock's time (the ticker calls it; so may tests)."""
        async with self._pairing:
            for seekers in group([s.seeker for s in self._tables.values()], self._clock()):
                # Starting the previous table awaited: someone may have left or searched again.
                if any(getattr(self._tables.get(s.user_id), "seeker", None) is not s
                       for s in seekers):
                    continue
                await self._start_table([self._tables.pop(s.user_id) for s in seekers])
            pairs = pair([s.seeker for s in self._searches.values()], self._clock())
            for first, second in pairs:
                # Starting the previous pair awaited: someone may have left or searched again.
                a = self._searches.get(first.user_id)
                b = self._searches.get(second.user_id)
                if a is None or b is None or a.seeker is not first or b.seeker is not second:
                    continue
                del self._searches[first.user_id], self._searches[second.user_id]
                await self._start(a, b)

    async def _start(self, a: Search, b: Search) -> None:
        """Create the match of a pair and tell both searches (or both the error)."""
        try:
            match_id = await start_match(self._service, a.seeker, a.nickname, b.seeker,
                                         b.nickname)
        except Exception as exc:
            if isinstance(exc, coins.CoinError):  # a player cannot cover the stake any more
                # an expected refusal (docs/coins.md), not a fault: no traceback
                log.info("quick game not started: %s (user %s)", exc.code, exc.user_id)
                exc = QuickGameError(exc.code, str(exc))
            else:
                log.exception("could not start a quick game")
            for search in (a, b):
                if not search.result.done():
                    search.result.set_exception(exc)
                    search.result.exception()
            return
        for search in (a, b):
            if not search.result.done():
                search.result.set_result(match_id)

    async def _start_table(self, table: list[TableSearch]) -> None:
        """Create the match of a Kozel table and tell every search (or every one the error)."""
        try:
            match_id = await start_table(self._service, table)
        except Exception as exc:
            log.exception("could not start a Kozel quick game")
            for search in table:
                if not search.result.done():
                    search.result.set_exception(exc)
                    search.result.exception()
            return
        for search in table:
            if not search.result.done():
                search.result.set_result(match_id)

    async def stop(self) -> None:
        """End every search and the pairing task (server shutdown)."""
        self._stopped = True
        for search in list(self._searches.values()):
            self.leave(search)
        for table_search in list(self._tables.values()):
            self.leave_table(table_search)
        await self._ticker.stop()
