"""The play service: the one object the web shell and the other services talk to.

It composes the parts of :mod:`kva.service.play`, one job each: :class:`LiveStore` holds the
matches in memory, :class:`Tables` starts them, :class:`Reads` reads them, :class:`Acting`
changes them, :class:`Committer` stores and publishes every change, and :class:`Turns` plays
the bot and forced turns due after each. On start it schedules the turn due in every unfinished
match, so a restarted server carries on where it stopped.
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.broker import Broker, MemoryBroker
from kva.service.errors import NotFound
from kva.service.play.acting import Acting
from kva.service.play.commit import Committer
from kva.service.play.live import LiveMatch, LiveStore, Seat
from kva.service.play.reads import MatchInfo, MatchSummary, Reads
from kva.service.play.seeds import Seeds
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns
from kva.service.play.watchers import Watchers
from kva.storage import repo
from kva.storage.models import MatchRow

log = logging.getLogger(__name__)


class PlayService:
    """Tables, turns and persistence for every match this process serves."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        broker: Broker,
        *,
        forced_delay: float = 0.6,
        bot_delay: float = 0.8,
        rng_factory: Callable[[], random.Random] = random.SystemRandom,
        bot_executor: Executor | None = None,
        cache_size: int = 2000,
        seed_wait: float = 0.0,
    ) -> None:
        self._sessions = sessions
        self._broker = broker
        self._store = LiveStore(sessions, rng_factory, cache_size,
                                lambda match_id: self._turns.busy(match_id),
                                shared=not isinstance(broker, MemoryBroker))
        #: The sockets watching each match from this process (the web shell adds them).
        self.watchers = Watchers()
        self._committer = Committer(sessions, broker, self._store, self.watchers)
        self._turns = Turns(self._store, self._committer, rng_factory, bot_executor,
                            forced_delay=forced_delay, bot_delay=bot_delay)
        #: ``seed_wait``: seconds a seated player's browser has to send its client seed
        #: before the server chooses it (0: at once, for callers that never send one).
        self._seeds = Seeds(sessions, self._store, self._committer, rng_factory, seed_wait)
        self._tables = Tables(sessions, self._store, self._committer, rng_factory,
                              self._started, self._seeds)
        self._reads = Reads(sessions, self._store, self._tables.may_watch)
        self._acting = Acting(self._store, self._committer)
        #: Called with a match whenever this process takes up its state: after every
        #: committed change and whenever it is loaded (a restart, a match another process
        #: created); :mod:`kva.service.presence` arms the first-move timeout here. Only dealt
        #: matches are passed (a waiting table has nothing to time).
        self.commit_hooks: list[Callable[[LiveMatch], None]] = []
        self._committer.after_commit.append(self._started)
        self._store.on_load.append(self._run_commit_hooks)

        # the public methods, each from the part that does it
        self.create_match = self._tables.create_match
        self.prepare_match = self._tables.prepare_match
        self.activate = self._tables.activate
        self.table = self._tables.table
        self.join_table = self._tables.join_table
        self.cancel_waiting = self._tables.cancel_waiting
        self.info = self._reads.info
        self.state_for = self._reads.state_for
        self.finished_record = self._reads.finished_record
        self.matches_of = self._reads.matches_of
        self.act = self._acting.act
        self.resign = self._acting.resign
        self.forfeit = self._acting.forfeit
        self.seed = self._seeds.seed
        self.renamed = self._store.renamed

    # ------------------------------------------------------------------ settings and state
    @property
    def forced_delay(self) -> float:
        return self._turns.forced_delay

    @forced_delay.setter
    def forced_delay(self, value: float) -> None:
        self._turns.forced_delay = value

    @property
    def bot_delay(self) -> float:
        return self._turns.bot_delay

    @bot_delay.setter
    def bot_delay(self, value: float) -> None:
        self._turns.bot_delay = value

    @property
    def seed_wait(self) -> float:
        return self._seeds.wait

    @seed_wait.setter
    def seed_wait(self, value: float) -> None:
        self._seeds.wait = value

    @property
    def cache_size(self) -> int:
        return self._store.cache_size

    @cache_size.setter
    def cache_size(self, value: int) -> None:
        self._store.cache_size = value

    @property
    def _live(self) -> OrderedDict[str, LiveMatch]:
        """The matches held in memory (for tests and diagnostics)."""
        return self._store.live

    @property
    def _load_locks(self) -> dict[str, Any]:
        """Loads in progress (for tests: empty once every load has finished or failed)."""
        return self._store.loading

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Resume every unfinished match: schedule the bot or forced action that is due."""
        async with self._sessions() as session:
            rows = await repo.unfinished_matches(session)
        for row in rows:
            try:
                live = await self._store.get(row.id)
            except Exception:  # a broken record must not keep the server down
                log.exception("cannot resume match %s", row.id)
                continue
            self._turns.schedule(live)
            self._seeds.schedule(live)

    async def stop(self) -> None:
        """Cancel scheduled bot and forced turns and seed waits (they resume on the next
        start)."""
        await self._turns.stop()
        await self._seeds.stop()

    def on_tables_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` after a waiting table is opened, taken or cancelled (the lobby
        republishes its list)."""
        self._tables.listeners.append(listener)

    async def may_watch(self, match_id: str, user_id: int | None) -> bool:
        """Whether ``user_id`` may watch the match (raises :class:`NotFound`)."""
        return await self._tables.may_watch(await self._store.fresh(match_id), user_id)

    async def match_row(self, match_id: str) -> MatchRow:
        """The stored row of a match (raises :class:`NotFound`)."""
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
        if row is None:
            raise NotFound(match_id)
        return row

    # ------------------------------------------------------------------ wiring
    def _started(self, live: LiveMatch) -> None:
        """A match changed or started here: schedule its automatic turn, run the hooks."""
        self._turns.schedule(live)
        self._seeds.schedule(live)
        self._run_commit_hooks(live)

    def _run_commit_hooks(self, live: LiveMatch) -> None:
        if live.match is None:
            return
        for hook in self.commit_hooks:
            try:
                hook(live)
            except Exception:  # a hook must never undo or block a committed change
                log.exception("commit hook failed for match %s", live.id)


__all__ = ["MatchInfo", "MatchSummary", "PlayService", "Seat"]
