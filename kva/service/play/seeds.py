"""Client seeds of kva-fair/1 (docs/fairness.md): a seated player's browser sends its seed
after it has seen the commitment; the match is dealt once both seats are taken and both seeds
are in. A seat whose browser sends none within ``wait`` seconds of being seated (an old client,
a script) gets a seed the server chooses, so nobody waits for ever; ``wait`` 0 chooses at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.rules import Match, check_client_seed, new_client_seed
from kva.service.errors import PlayError
from kva.service.events import public
from kva.service.play.commit import Committer
from kva.service.play.live import LiveMatch, LiveStore
from kva.storage import fair as fair_store
from kva.storage import repo

log = logging.getLogger(__name__)

#: The event of the state in which a match is dealt after waiting for client seeds.
DEAL_EVENT: dict[str, Any] = {"kind": "deal"}


def taken(live: LiveMatch, seat: int) -> bool:
    s = live.seats[seat]
    return s.user_id is not None or s.bot is not None


def deal_if_ready(live: LiveMatch, rng: random.Random) -> bool:
    """Deal ``live`` if both seats are taken and both client seeds are in; whether it was."""
    fair = live.fair
    if (live.match is not None or live.status != "active" or fair is None
            or not fair.ready() or not (taken(live, 0) and taken(live, 1))):
        return False
    live.match = Match(live.settings.target, live.settings.bazaar, rng, dealer=fair.dealer())
    return True


class Seeds:
    """Takes the players' client seeds, chooses the late ones, deals when all are in."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        store: LiveStore,
        committer: Committer,
        rng_factory: Callable[[], random.Random],
        wait: float,
    ) -> None:
        self._sessions = sessions
        self._store = store
        self._committer = committer
        self._rng_factory = rng_factory
        self.wait = wait
        #: When each seat of an undealt match was first seen seated without a seed here
        #: (monotonic), by match id.
        self._seated: dict[str, list[float | None]] = {}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._stopping = False

    # ------------------------------------------------------------------ new matches
    def prepare(self, live: LiveMatch) -> None:
        """A new match (not stored yet): with no wait, the server chooses every taken seat's
        missing seed now; then deal it if it can be."""
        if live.fair is None:
            return
        if self.wait <= 0:
            for seat in (0, 1):
                if taken(live, seat):
                    live.fair.fill(seat)
        deal_if_ready(live, self._rng_factory())

    async def joined(self, live: LiveMatch) -> None:
        """The second player just sat down (the caller holds the lock and commits): with no
        wait, the server chooses the missing seeds now (stored at once); deal if it can be."""
        if live.fair is None:  # a table from before fair deals
            live.match = Match(live.settings.target, live.settings.bazaar, self._rng_factory())
            return
        await self._reload(live)
        if self.wait <= 0:
            for seat in (0, 1):
                if taken(live, seat) and live.fair.client_seeds[seat] is None:
                    await self._store_seed(live, seat, new_client_seed(), "server")
        deal_if_ready(live, self._rng_factory())

    def schedule(self, live: LiveMatch) -> None:
        """Arm the wait for the seats of ``live`` that are taken and still have no seed."""
        fair = live.fair
        if (self._stopping or fair is None or live.match is not None
                or live.status not in ("waiting", "active")):
            self._seated.pop(live.id, None)
            return
        missing = [s for s in (0, 1) if taken(live, s) and fair.client_seeds[s] is None]
        if not missing:
            return
        now = time.monotonic()
        seated = self._seated.setdefault(live.id, [None, None])
        for s in missing:
            if seated[s] is None:
                seated[s] = now
        timer = self._timers.get(live.id)
        if timer is None or timer.done():
            self._arm(live.id)

    def _arm(self, match_id: str) -> None:
        seated = self._seated.get(match_id)
        if seated is None or self._stopping:
            return
        due = min(t for t in seated if t is not None) + max(self.wait, 0)
        task = asyncio.create_task(self._expire(match_id, due), name=f"kva-seed-{match_id}")
        self._timers[match_id] = task
        task.add_done_callback(lambda t: self._done(match_id, t))

    def _done(self, match_id: str, task: asyncio.Task[None]) -> None:
        if self._timers.get(match_id) is task:
            del self._timers[match_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("seed wait of match %s failed", match_id, exc_info=task.exception())

    def cancel(self, match_id: str) -> None:
        """Forget the wait of ``match_id`` (another process serves it now: its own wait
        chooses the seeds there; one left armed here would deal the match behind the owner's
        back, and the owner's copy would stay undealt)."""
        self._seated.pop(match_id, None)
        task = self._timers.pop(match_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def stop(self) -> None:
        self._stopping = True
        tasks = list(self._timers.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._timers.clear()

    async def _expire(self, match_id: str, due: float) -> None:
        """At ``due``: the server chooses the seed of every seat whose wait is over."""
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            seated = self._seated.get(match_id) or [None, None]
            fair = live.fair
            if fair is None or live.match is not None or live.status not in ("waiting",
                                                                              "active"):
                self._seated.pop(match_id, None)
                return
            await self._reload(live)
            now = time.monotonic()
            for seat in (0, 1):
                at = seated[seat]
                if (taken(live, seat) and fair.client_seeds[seat] is None and at is not None
                        and at + self.wait <= now + 0.01):
                    await self._store_seed(live, seat, new_client_seed(), "server")
            if deal_if_ready(live, self._rng_factory()):
                self._seated.pop(match_id, None)
                with contextlib.suppress(PlayError):
                    await self._committer.commit(live, public(DEAL_EVENT))
                return
            left = [s for s in (0, 1) if taken(live, s) and fair.client_seeds[s] is None]
            for seat in (0, 1):
                if seat not in left:
                    seated[seat] = None
        if any(t is not None for t in seated):
            self._seated[match_id] = seated
            asyncio.get_running_loop().call_soon(self._arm, match_id)

    # ------------------------------------------------------------------ a player's seed
    async def seed(self, match_id: str, user_id: int | None, value: Any) -> None:
        """A seated player's client seed for their own seat: stored once (the same seed again
        changes nothing; another one is refused with ``illegal``); a malformed one is refused
        with ``bad_seed``. Deals the match if it was the last thing missing."""
        live = await self._store.fresh(match_id)
        seat = live.seat_of(user_id)
        if seat is None:
            raise PlayError("not_seated", "you are not a player of this match")
        try:
            seed = check_client_seed(value)
        except ValueError as exc:
            raise PlayError("bad_seed", str(exc)) from None
        if live.fair is None:
            raise PlayError("illegal", "this match was dealt before client seeds existed")
        async with live.lock:
            live = await self._store.fresh(match_id)
            fair = live.fair
            assert fair is not None
            await self._reload(live)
            if fair.client_seeds[seat] == seed:
                return
            if fair.client_seeds[seat] is not None:
                raise PlayError("illegal", "your client seed is set already and never changes")
            if live.status not in ("waiting", "active") or live.match is not None:
                raise PlayError("over", "the match is over")
            if not await self._store_seed(live, seat, seed, "player"):
                if fair.client_seeds[seat] != seed:
                    raise PlayError("illegal",
                                    "your client seed is set already and never changes")
                return
            if deal_if_ready(live, self._rng_factory()):
                self._seated.pop(match_id, None)
                await self._committer.commit(live, public(DEAL_EVENT))

    async def _store_seed(self, live: LiveMatch, seat: int, seed: str, by: str) -> bool:
        """Store ``seat``'s seed unless it has one (then read the stored one); whether it was
        ``seed``."""
        fair = live.fair
        assert fair is not None
        async with repo.core_transaction(self._sessions) as conn:
            stored = await fair_store.set_client_seed(conn, live.id, seat, seed, by)
        if stored:
            fair.client_seeds[seat] = seed
            fair.seed_by[seat] = by
            return True
        await self._reload(live, always=True)
        return False

    async def _reload(self, live: LiveMatch, *, always: bool = False) -> None:
        """The seeds as stored (another process may have taken one). Nothing is read where
        this process's copy is the truth, as :meth:`LiveStore.fresh` reads nothing there:
        alone, or the match's owner (every seed is stored by the owner's guarded write, and
        a copy behind the stored seeds is caught by that write: refused, it reads them
        ``always``)."""
        fair = live.fair
        if fair is None:
            return
        if not always and (not self._store.shared or self._store.owned(live.id)):
            return
        async with self._sessions() as session:
            row = await fair_store.get_fair(session, live.id)
        if row is not None:
            fair.client_seeds[:] = [row.client_seed0, row.client_seed1]
            fair.seed_by[:] = [row.seed_by0, row.seed_by1]
