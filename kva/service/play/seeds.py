"""Client seeds of kva-fair/1 (docs/fairness.md): a seated player's browser sends its seed
after it has seen the commitment; the match is dealt (by its game's
:meth:`~kva.games.Game.new_match`) once every seat is taken and every seed is in. A seat whose
browser sends none within ``wait`` seconds of being seated (an old client, a script) gets a
seed the server chooses, so nobody waits for ever; ``wait`` 0 chooses at once.
The wait is the match's :attr:`~.scheduler.TimerKind.SEED` timer
(:mod:`kva.service.play.scheduler`), on its clock's monotonic time.
"""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import check_client_seed, new_client_seed
from kva.service.errors import PlayError
from kva.service.play.commit import Committer
from kva.service.play.events import public
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.scheduler import MatchSchedulers, TimerKind
from kva.status import OPEN_STATUSES, MatchStatus
from kva.storage import fair as fair_store
from kva.storage import repo

log = logging.getLogger(__name__)

#: The event of the state in which a match is dealt after waiting for client seeds.
DEAL_EVENT: dict[str, Any] = {"kind": "deal"}


def taken(live: LiveMatch, seat: int) -> bool:
    return live.seats[seat].taken


def deal_if_ready(live: LiveMatch) -> bool:
    """Deal ``live`` if every seat is taken and every client seed is in (the deal follows
    from the seeds alone); whether it was."""
    fair = live.fair
    if (live.match is not None or live.status != MatchStatus.ACTIVE or fair is None
            or not fair.ready() or not all(s.taken for s in live.seats)):
        return False
    live.match = live.game.new_match(live.options, len(live.seats), fair.seeds())
    live.log.clear()
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
        schedulers: MatchSchedulers,
    ) -> None:
        self._sessions = sessions
        self._store = store
        self._committer = committer
        self._rng_factory = rng_factory
        self.wait = wait
        self._schedulers = schedulers
        #: When each seat of an undealt match was first seen seated without a seed here
        #: (the clock's monotonic seconds), by match id.
        self._seated: dict[str, list[float | None]] = {}

    # ------------------------------------------------------------------ new matches
    def prepare(self, live: LiveMatch) -> None:
        """A new match (not stored yet): with no wait, the server chooses every taken seat's
        missing seed now; then deal it if it can be."""
        if live.fair is None:
            return
        if self.wait <= 0:
            for seat in range(len(live.seats)):
                if taken(live, seat):
                    live.fair.fill(seat)
        deal_if_ready(live)

    async def joined(self, live: LiveMatch) -> None:
        """A player just sat down (the caller holds the lock and commits): with no wait, the
        server chooses the missing seeds now (stored at once); deal if it can be."""
        if live.fair is None:  # a table from before fair deals (two seats: now both taken)
            live.match = live.play.unseeded_match(live.options, len(live.seats),
                                                  self._rng_factory())
            return
        await self._reload(live)
        if self.wait <= 0:
            for seat in range(len(live.seats)):
                if taken(live, seat) and live.fair.client_seeds[seat] is None:
                    await self._store_seed(live, seat, new_client_seed(), "server")
        deal_if_ready(live)

    def schedule(self, live: LiveMatch) -> None:
        """Arm the wait for the seats of ``live`` that are taken and still have no seed."""
        fair = live.fair
        if (self._schedulers.stopping or fair is None or live.match is not None
                or live.status not in OPEN_STATUSES):
            self._seated.pop(live.id, None)
            return
        everyone = range(len(live.seats))
        missing = [s for s in everyone if taken(live, s) and fair.client_seeds[s] is None]
        if not missing:
            return
        now = self._schedulers.clock.monotonic()
        seated = self._seated.setdefault(live.id, [None for _ in everyone])
        for s in missing:
            if seated[s] is None:
                seated[s] = now
        if not self._schedulers.has(live.id, TimerKind.SEED):
            self._arm(live.id)

    def _arm(self, match_id: str) -> None:
        """Set the wait's timer at the end of the earliest wait still running."""
        seated = self._seated.get(match_id)
        if seated is None:
            return
        due = min(t for t in seated if t is not None) + max(self.wait, 0)
        self._schedulers.of(match_id).set(TimerKind.SEED, due,
                                          lambda: self._expire(match_id))

    def cancel(self, match_id: str) -> None:
        """Forget the wait of ``match_id`` (another process serves it now: its own wait
        chooses the seeds there; one left armed here would deal the match behind the owner's
        back, and the owner's copy would stay undealt)."""
        self._seated.pop(match_id, None)
        self._schedulers.cancel(match_id, TimerKind.SEED)

    async def _expire(self, match_id: str) -> None:
        """The earliest wait is over: the server chooses the seed of every seat whose wait
        is; the timer is set again for the seats still waiting."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            everyone = range(len(live.seats))
            seated = self._seated.get(match_id) or [None for _ in everyone]
            fair = live.fair
            if fair is None or live.match is not None or live.status not in OPEN_STATUSES:
                self._seated.pop(match_id, None)
                return
            await self._reload(live)
            now = self._schedulers.clock.monotonic()
            for seat in everyone:
                at = seated[seat]
                if (taken(live, seat) and fair.client_seeds[seat] is None and at is not None
                        and at + self.wait <= now + 0.01):
                    await self._store_seed(live, seat, new_client_seed(), "server")
            if deal_if_ready(live):
                self._seated.pop(match_id, None)
                with contextlib.suppress(PlayError):
                    await self._committer.commit(live, public(DEAL_EVENT))
                return
            left = [s for s in everyone if taken(live, s) and fair.client_seeds[s] is None]
            for seat in everyone:
                if seat not in left:
                    seated[seat] = None
        if any(t is not None for t in seated):
            self._seated[match_id] = seated
            self._arm(match_id)  # replaces this timer, which ends here

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
            # The seat may have changed hands while this waited for the lock (a leave, a
            # sweep): the seed is only ever stored for the seat its sender holds now.
            if live.seat_of(user_id) != seat:
                raise PlayError("not_seated", "you are not a player of this match")
            if fair.client_seeds[seat] == seed:
                return
            if fair.client_seeds[seat] is not None:
                raise PlayError("illegal", "your client seed is set already and never changes")
            if live.status not in OPEN_STATUSES or live.match is not None:
                raise PlayError("over", "the match is over")
            if not await self._store_seed(live, seat, seed, "player"):
                if fair.client_seeds[seat] != seed:
                    raise PlayError("illegal",
                                    "your client seed is set already and never changes")
                return
            if deal_if_ready(live):
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
            stored = await fair_store.client_seeds(session, live.id)
        if stored:
            fair.client_seeds[:] = [seed for seed, _by in stored]
            fair.seed_by[:] = [by for _seed, by in stored]
