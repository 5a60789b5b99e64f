"""The play service: the one object the web shell and the other services talk to.

It composes the parts of :mod:`kva.service.play`, one job each: :class:`LiveStore` holds the
matches in memory, :class:`Tables` starts them, :class:`Reads` reads them, :class:`Acting`
changes them, :class:`Committer` stores and publishes every change, :class:`Turns` plays the
bot and forced turns due after each, :class:`MatchClocks` times the clocks (each match's timers
are on :class:`MatchSchedulers`). Every change goes through the
:class:`~kva.service.play.routing.MatchRouter`, which makes it here or on the process that owns
the match (:mod:`kva.service.play.routing`). On start it schedules the
turn due in every unfinished match, so a restarted server carries on where it stopped.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import Executor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from kva.service.cluster.broker import Broker
from kva.service.finish import default_finish_hooks
from kva.service.play import commands
from kva.service.play.acting import Acting
from kva.service.play.clock_timers import MatchClocks
from kva.service.play.commit import Committer
from kva.service.play.hooks import MatchHook
from kva.service.play.live import LiveMatch, LiveStore, Seat
from kva.service.play.liveness import INTERVAL_S, Liveness
from kva.service.play.operations import PlayOperations
from kva.service.play.owners import Owners
from kva.service.play.reads import Invite, MatchInfo, MatchSummary, Reads
from kva.service.play.routing import make_router, owners_for
from kva.service.play.scheduler import MatchSchedulers
from kva.service.play.seeds import Seeds
from kva.service.play.settings import PlaySettings
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns
from kva.service.play.watchers import RemoteWatchers, Watchers
from kva.service.timekeeping import SYSTEM_CLOCK, Clock, epoch_ms
from kva.storage import db, repo

log = logging.getLogger(__name__)


class PlayService(PlaySettings):
    """Tables, turns and persistence for every match this process serves."""

    def __init__(
        self,
        database: db.Database,
        broker: Broker,
        *,
        forced_delay: float = 0.6,
        bot_delay: float = 0.8,
        rng_factory: Callable[[], random.Random] = random.SystemRandom,
        bot_executor: Executor | None = None,
        cache_size: int = 2000,
        seed_wait: float = 0.0,
        owners: Owners | None = None,
        new_match_id: Callable[[], str] | None = None,
        now_ms: Callable[[], int] | None = None,
        clock_presets: dict[str, tuple[int, int]] | None = None,
        first_move_timeout: float = 120.0,
        finish_hooks: Sequence[MatchHook] | None = None,
        liveness_interval: float = INTERVAL_S,
        time: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``database``: the matches' store; ``owners``: the match leases (Redis broker: new
        ones by default); ``new_match_id``: behind nginx, draws ids its hash sends here;
        ``now_ms``: the wall clock of match clocks (default: ``time``'s); ``finish_hooks``:
        what other features do in the transaction that starts or finishes a match (ratings,
        coins); ``liveness_interval``: seconds between liveness writes (:mod:`.liveness`);
        ``time``: the clock of those and of every timer (tests: a fake); the others:
        PlaySettings. The parts reach the router through functions given them here."""
        sessions = self._sessions = database.sessions
        self._broker = broker
        owners = owners if owners is not None else owners_for(broker)
        #: Every match's timers, on the one clock.
        self.timers = MatchSchedulers(time, now_ms or epoch_ms(time))
        #: Called with a match whenever this process takes up its state: after every
        #: committed change and whenever it is loaded (a restart, a match another process
        #: created); :mod:`kva.service.play.presence` arms the first-move timeout here. Only dealt
        #: matches are passed (a waiting table has nothing to time).
        self.commit_hooks: list[Callable[[LiveMatch], None]] = []
        me = owners.me if owners is not None else secrets.token_hex(8)
        self._liveness = Liveness(sessions, me, self.timers.wall_ms, liveness_interval, time)
        self._store = LiveStore(
            sessions, rng_factory, cache_size, lambda match_id: self._turns.busy(match_id),
            shared=broker.url is not None, wall=self.timers.wall_ms,
            owned=owners.owns if owners is not None else None, loaded=self._loaded,
            dropped=owners.release_soon if owners is not None else None,
            restore=self._restore)
        #: The sockets watching each match from this process (the web shell adds them).
        self.watchers = Watchers()
        self._committer = Committer(
            database, broker, self._store, self.watchers,
            default_finish_hooks() if finish_hooks is None else finish_hooks,
            remote=lambda match_id: self._router.remote_keys(match_id))
        self._committer.process_id = self._liveness.me
        self._committer.after_commit.append(self._started)
        self._operations = self._build_parts(
            rng_factory, bot_executor, forced_delay=forced_delay, bot_delay=bot_delay,
            seed_wait=seed_wait, new_match_id=new_match_id, clock_presets=clock_presets)
        self.first_move_timeout = first_move_timeout
        self._router = make_router(owners, self._store, self.watchers, self._committer,
                                   self._operations)
        self._expose()

    def _expose(self) -> None:
        """The public methods, each from the part that does it."""
        self.create_match = self._tables.create_match
        self.prepare_match = self._tables.prepare_match
        self.table = self._tables.table
        self.join_table = self._tables.join_table
        self.info = self._reads.info
        self.finished_record = self._reads.finished_record
        self.matches_of = self._reads.matches_of
        self.renamed = self._store.renamed

    def _build_parts(
        self, rng_factory: Callable[[], random.Random], bot_executor: Executor | None, *,
        forced_delay: float, bot_delay: float, seed_wait: float,
        new_match_id: Callable[[], str] | None, clock_presets: dict[str, tuple[int, int]] | None,
    ) -> PlayOperations:
        """The parts that do the work, on the store and committer; their operations."""
        sessions, store, committer = self._sessions, self._store, self._committer
        self._turns = Turns(store, committer, rng_factory, bot_executor, self.timers,
                            forced_delay=forced_delay, bot_delay=bot_delay)
        self._seeds = Seeds(sessions, store, committer, rng_factory, seed_wait, self.timers)
        self._tables = Tables(
            sessions, store, committer, rng_factory, self._started, self._seeds,
            seat=self._seat_player, adopt=lambda match_id: self._router.adopt(match_id),
            new_match_id=new_match_id, clock_presets=clock_presets)
        self._reads = Reads(sessions, store, self._tables.may_watch, self._tables.table_of)
        self._acting = Acting(store, committer)
        self._clocks = MatchClocks(store, self.timers, self.flag,
                                   lambda match_id: self._router.serves(match_id))
        return PlayOperations(store, self._acting, self._seeds, self._tables, self._turns,
                              self._clocks, self.timers)

    # ------------------------------------------------------------------ state
    @property
    def owners(self) -> Owners | None:
        """The match leases, when processes share Redis (None: this process alone)."""
        return self._router.owners

    @property
    def remote(self) -> RemoteWatchers:
        """The other processes' watches of the matches owned here (docs/deployment.md)."""
        return self._router.remote

    @property
    def handed_off(self) -> int:
        """Leases handed to another process whose sockets asked for them (diagnostics)."""
        return self._router.handed_off

    @property
    def _live(self) -> OrderedDict[str, LiveMatch]:
        """The matches held in memory (for tests and diagnostics)."""
        return self._store.live

    @property
    def _load_locks(self) -> dict[str, Any]:
        """Loads in progress (for tests: empty once every load has finished or failed)."""
        return self._store.loading

    # ------------------------------------------------------------------ changes
    async def route(self, command: commands.Command[commands.ResultT]) -> commands.ResultT:
        """Make ``command``'s change (:mod:`kva.service.play.commands`) on the process that
        serves its match; its result. The methods below build the commands of their names."""
        return await self._router.route(command)

    def act(self, match_id: str, user_id: int | None, version: int | None, action: object,
            player_session: str | None = None) -> Coroutine[Any, Any, None]:
        return self._router.route(commands.Act(match_id, user_id, version, action, player_session))

    async def resign(self, match_id: str, user_id: int | None) -> None:
        await self.route(commands.Resign(match_id, user_id))

    async def abort(self, match_id: str, user_id: int | None) -> None:
        await self.route(commands.Abort(match_id, user_id))

    async def forfeit(self, match_id: str, seat: int, reason: str,
                      expected_version: int | None = None) -> None:
        await self.route(commands.Forfeit(match_id, seat, reason, expected_version))

    async def flag(self, match_id: str, expected_version: int | None = None) -> bool:
        return await self.route(commands.Flag(match_id, expected_version))

    async def seed(self, match_id: str, user_id: int | None, value: object) -> None:
        await self.route(commands.Seed(match_id, user_id, value))

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        return await self.route(commands.Cancel(match_id, user_id))

    async def seat_bot(self, match_id: str, user_id: int, level: str) -> int | None:
        return await self.route(commands.SeatBot(match_id, user_id, level))

    async def leave_seat(self, match_id: str, user_id: int) -> bool:
        return await self.route(commands.LeaveSeat(match_id, user_id))

    async def _seat_player(self, match_id: str, user_id: int, nickname: str) -> int | None:
        return await self.route(commands.SeatPlayer(match_id, user_id, nickname))

    async def invite(self, match_id: str) -> Invite:
        """What a table's invite page names before the seat is taken (raises NotFound)."""
        return await self._reads.invite(match_id)

    async def state_for(self, match_id: str, user_id: int | None) -> dict[str, Any]:
        """The ``state`` message for this viewer now, with no event (a resync). With owners,
        the match's owner may answer it, or hand the match over to this process first
        (:meth:`MatchRouter.hello <kva.service.play.routing.MatchRouter.hello>`)."""
        state = await self._router.hello(match_id, user_id)
        if state is not None:
            return state
        return await self._reads.state_for(match_id, user_id)

    async def renew_watches(self, only: list[str] | None = None, *, again: bool = True) -> None:
        """Tell the owners of the matches watched from here and owned elsewhere which viewer
        keys this process's sockets watch them as (:mod:`kva.service.play.routing.watching`)."""
        await self._router.renew_watches(only, again=again)

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else (:meth:`prepare_match`): load it and
        schedule the bot or forced turn that is due (with owners: take its lease)."""
        await self._router.activate(match_id)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Resume every unfinished match: schedule the bot or forced action that is due.
        With owners, only the matches whose lease is free are taken (and resumed) here. This
        process says it is alive first: the outage a match's clock was left in is given back
        when it is taken up (:mod:`kva.service.play.liveness`)."""
        await self._liveness.start()
        await self._router.start()
        async with self._sessions() as session:
            rows = await repo.unfinished_matches(session)
        for row in rows:
            try:
                await self._router.resume(row.id)
            except Exception:  # a broken record must not keep the server down
                log.exception("cannot resume match %s", row.id)

    async def stop(self) -> None:
        """Cancel every match's timers (they resume on the next start, the clocks from their
        stored deadlines); with owners, release every lease held; last, say that this process
        stops (the time until its matches are taken up again is given back to the clocks)."""
        await self.timers.stop()
        await self._router.stop()
        await self._liveness.stop()

    def on_tables_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` after an open table is opened or taken, or a waiting table is
        cancelled (the lobby republishes its list of open tables)."""
        self._tables.listeners.append(listener)

    async def may_watch(self, match_id: str, user_id: int | None) -> bool:
        """Whether ``user_id`` may watch the match (raises :class:`NotFound`)."""
        return await self._tables.may_watch(await self._store.fresh(match_id), user_id)

    # ------------------------------------------------------------------ wiring
    def _started(self, live: LiveMatch) -> None:
        """A match changed or started here: schedule its automatic turn, run the hooks; a
        match over needs serving no more (its lease is given up)."""
        self._operations.resume(live)
        self._run_commit_hooks(live)
        if live.status.over:
            self._router.ended(live.id)

    def _loaded(self, live: LiveMatch) -> None:
        """A match was loaded from the database here (a restart, a takeover, or a copy
        dropped and read again): the hooks run and, if this process serves it, its work
        resumes on the new copy: the bot or forced turn due (one scheduled for the dropped
        copy would find it gone and never play), the seed wait and the clock."""
        self._run_commit_hooks(live)
        if self._router.serves(live.id):
            self._operations.resume(live)

    async def _restore(self, session: AsyncSession, live: LiveMatch) -> None:
        """A match was just read from the database: give its clock back the outage it was
        left in (recorded as a takeover if this process serves it)."""
        await self._liveness.restore(session, live, serving=self._router.serves(live.id))

    def _run_commit_hooks(self, live: LiveMatch) -> None:
        if live.match is None:
            return
        for hook in self.commit_hooks:
            try:
                hook(live)
            except Exception:  # a hook must never undo or block a committed change
                log.exception("commit hook failed for match %s", live.id)


__all__ = ["MatchInfo", "MatchSummary", "PlayService", "Seat"]
