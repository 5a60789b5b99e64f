"""Quick game: the waiting room that pairs players by :mod:`kva.service.matchmaking`.

A player is in the queue while their quick-game connection is open: closing the page or
pressing "cancel" takes them out, so nobody is ever paired with someone who left. A second
search by the same player replaces the first. The queue is checked at once when someone
arrives, then every :data:`TICK` seconds while anyone waits (ranges widen with time). A pair
becomes an active match straight away (seat 0 is whoever waited longer), and both searches
learn its id.

:class:`QuickGame` holds the queue in this process (the default, one ``kva serve``).
With Redis configured as the broker, :func:`kva.service.quickshared.make_quick_game` gives
:class:`kva.service.quickshared.RedisQuickGame` instead: the same interface, the queue in
Redis, so players connected to different processes are paired with each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kva.rules import BadSettings, MatchSettings
from kva.service import coins
from kva.service.matchmaking import Seeker, offer_bot, pair, rating_range, waited
from kva.service.play import PlayService
from kva.service.play.clock import DEFAULT_CLOCK, PRESETS

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
    #: Names the search where it is shared between processes (kva.service.quickshared).
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


@dataclass(frozen=True, slots=True)
class SearchStatus:
    """What the searching page shows."""

    waited: int
    range: int
    offer_bot: bool


class QuickGame:
    """The queue of waiting players and the task that pairs them."""

    def __init__(self, service: PlayService, clock: Callable[[], float] = time.monotonic,
                 tick: float = TICK) -> None:
        self._service = service
        self._clock = clock
        self._tick = tick
        self._searches: dict[int, Search] = {}
        self._task: asyncio.Task[None] | None = None
        self._pairing = asyncio.Lock()
        self._stopped = False

    @staticmethod
    def check(target: int, bazaar: str, rated: bool, registered: bool,
              stake: int | str = 0) -> None:
        """QuickGameError unless the settings are valid for this player (``stake``: Domino
        Coin per player, registered players only)."""
        try:
            coin_stake = coins.check_stake(stake)
        except coins.CoinError as exc:
            raise QuickGameError(exc.code, str(exc)) from None
        if coin_stake and not registered:
            raise QuickGameError("coins_only", "coin games are for registered players")
        try:
            MatchSettings.parse(target, bazaar, rated)
        except BadSettings as exc:
            code = {"target": "bad_target", "bazaar": "bad_bazaar"}.get(exc.field,
                                                                         "bad_settings")
            raise QuickGameError(code, str(exc)) from None
        if rated and not registered:
            raise QuickGameError("rated_only", "rated games are for registered players")

    async def join(self, user_id: int, nickname: str, rating: float, target: int, bazaar: str,
                   rated: bool, registered: bool, stake: int | str = 0,
                   clock: str | None = None) -> Search:
        """Start a search (replacing this player's previous one); pairs at once if possible
        (only with a search of the same settings, ``clock`` included: its preset, or the
        default)."""
        self.check(target, bazaar, rated, registered, stake)
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
        self._ensure_ticking()
        return search

    def leave(self, search: Search) -> None:
        """Take ``search`` out of the queue (if it is still there and not paired)."""
        if self._searches.get(search.seeker.user_id) is search:
            del self._searches[search.seeker.user_id]
        if not search.result.done():
            search.result.cancel()

    def status(self, search: Search) -> SearchStatus:
        """How long ``search`` has waited, its rating range, and whether a bot is offered."""
        now = self._clock()
        w = waited(search.seeker, now)
        return SearchStatus(int(w), int(rating_range(w)), offer_bot(search.seeker, now))

    def waiting(self) -> int:
        """How many players wait now."""
        return len(self._searches)

    def _ensure_ticking(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="kva-quick-game")

    async def _run(self) -> None:
        while self._searches and not self._stopped:
            await asyncio.sleep(self._tick)
            try:
                await self.pair_now()
            except Exception:  # one bad round must not stop pairing
                log.exception("quick-game pairing failed")

    async def pair_now(self) -> None:
        """One pairing round at the clock's time (the ticker calls it; so may tests)."""
        async with self._pairing:
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
        s = a.seeker
        try:
            match_id, _token = await self._service.create_match(
                s.user_id, a.nickname, "player", s.target, s.bazaar, rated=s.rated,
                opponent_user=(b.seeker.user_id, b.nickname),
                **stake_argument(s.stake),  # Domino Coin per player
                **clock_argument(s.clock),
            )
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

    async def stop(self) -> None:
        """End every search and the pairing task (server shutdown)."""
        self._stopped = True
        for search in list(self._searches.values()):
            self.leave(search)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
