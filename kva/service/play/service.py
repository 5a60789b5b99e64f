"""The play service: the one object the web shell and the other services talk to.

It composes the parts of :mod:`kva.service.play`, one job each: :class:`LiveStore` holds the
matches in memory, :class:`Tables` starts them, :class:`Reads` reads them, :class:`Acting`
changes them, :class:`Committer` stores and publishes every change, :class:`Turns` plays the
bot and forced turns due after each, and :class:`MatchClocks` times the match clocks. On start
it schedules the turn due in every unfinished match, so a restarted server carries on where it
stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.broker import Broker, MemoryBroker, RedisBroker
from kva.service.errors import NotFound, PlayError
from kva.service.play.acting import Acting
from kva.service.play.clock_timers import MatchClocks
from kva.service.play.commit import Committer, state_message
from kva.service.play.live import LiveMatch, LiveStore, Seat, viewer_key
from kva.service.play.owners import Moved, Owners, Unanswered
from kva.service.play.reads import MatchInfo, MatchSummary, Reads
from kva.service.play.seeds import Seeds
from kva.service.play.tables import Tables
from kva.service.play.turns import Turns
from kva.service.play.watchers import RemoteWatchers, Watchers
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
        owners: Owners | None = None,
        new_match_id: Callable[[], str] | None = None,
        now_ms: Callable[[], int] | None = None,
        clock_presets: dict[str, tuple[int, int]] | None = None,
        first_move_timeout: float = 120.0,
    ) -> None:
        self._sessions = sessions
        self._broker = broker
        self._store = LiveStore(sessions, rng_factory, cache_size,
                                lambda match_id: self._turns.busy(match_id),
                                shared=not isinstance(broker, MemoryBroker))
        #: The sockets watching each match from this process (the web shell adds them).
        self.watchers = Watchers()
        self._committer = Committer(sessions, broker, self._store, self.watchers)
        if now_ms is not None:  # the wall clock of match clocks (tests: a fake one)
            self._store.now_ms = now_ms
        self._turns = Turns(self._store, self._committer, rng_factory, bot_executor,
                            forced_delay=forced_delay, bot_delay=bot_delay)
        #: ``seed_wait``: seconds a seated player's browser has to send its client seed
        #: before the server chooses it (0: at once, for callers that never send one).
        self._seeds = Seeds(sessions, self._store, self._committer, rng_factory, seed_wait)
        self._tables = Tables(sessions, self._store, self._committer, rng_factory,
                              self._started, self._seeds)
        if new_match_id is not None:  # behind nginx: ids its hash sends to this process
            self._tables.new_match_id = new_match_id
        if clock_presets is not None:  # KVA_CLOCK_PRESETS: the time of each preset
            self._tables.clock_presets = dict(clock_presets)
        self.first_move_timeout = first_move_timeout
        self._reads = Reads(sessions, self._store, self._tables.may_watch,
                            self._tables.table_of)
        self._acting = Acting(self._store, self._committer)
        #: The timers of the clocks running here (with owners, only the owner times a match).
        self._clocks = MatchClocks(
            self._store, self._committer.now_ms, self.flag,
            lambda match_id: self.owners is None or self.owners.owns(match_id))
        #: Called with a match whenever this process takes up its state: after every
        #: committed change and whenever it is loaded (a restart, a match another process
        #: created); :mod:`kva.service.presence` arms the first-move timeout here. Only dealt
        #: matches are passed (a waiting table has nothing to time).
        self.commit_hooks: list[Callable[[LiveMatch], None]] = []
        self._committer.after_commit.append(self._started)
        self._store.on_load.append(self._run_commit_hooks)
        self._store.on_load.append(self._clocks.arm_loaded)

        # the public methods, each from the part that does it
        self.create_match = self._tables.create_match
        self.prepare_match = self._tables.prepare_match
        self.table = self._tables.table
        self.join_table = self._tables.join_table
        self.info = self._reads.info
        self.finished_record = self._reads.finished_record
        self.matches_of = self._reads.matches_of
        self.renamed = self._store.renamed

        #: With a Redis broker, each live match has one owner process at a time
        #: (:mod:`kva.service.play.owners`): the changes asked of the others are forwarded to
        #: it. Alone (the in-memory broker), every change is made here directly.
        if owners is None and isinstance(broker, RedisBroker):
            owners = Owners(broker.url, broker)
        self.owners = owners
        #: The changes made only by a match's owner, by the name a forwarded request gives.
        self._ops: dict[str, Callable[..., Awaitable[Any]]] = {
            "act": self._acting.act, "resign": self._acting.resign,
            "forfeit": self._acting.forfeit, "seed": self._seeds.seed,
            "cancel": self._tables.cancel_waiting, "seat": self._tables.seat_player,
            "hello": self._hello, "flag": self._acting.flag,
        }
        #: Leases handed to another process whose sockets asked for them (diagnostics, tests).
        self.handed_off = 0
        #: The other processes' watches of the matches owned here (docs/deployment.md).
        self.remote = RemoteWatchers()
        #: Matches just handed over to this process, with their watches (no grace period).
        self._handed_in: dict[str, bool] = {}
        self._watch_task: asyncio.Task[None] | None = None
        #: Owners a ``watching`` request is on its way to (one at a time per owner).
        self._renewing: set[str] = set()
        self._renewals: set[asyncio.Task[None]] = set()
        if owners is not None:
            self._committer.remote = self._remote_keys
            owners.handler = self._serve_request
            owners.on_taken = self._taken
            owners.on_lost = self._lost
            owners.sweep_candidates = self._sweep_candidates
            self._store.owned = owners.owns
            self._store.on_drop.append(owners.release_soon)
            self._tables.seat = self._routed_seat
            self._tables.adopt = self._adopt

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
    def clock_presets(self) -> dict[str, tuple[int, int]]:
        """Each clock preset's (seconds a move, seconds of reserve) for new matches."""
        return self._tables.clock_presets

    @property
    def first_move_timeout(self) -> float:
        """Seconds a player of a new match with no clock has on their turns until their
        first move (``KVA_FIRST_MOVE_TIMEOUT``)."""
        return self._tables.first_move_s

    @first_move_timeout.setter
    def first_move_timeout(self, value: float) -> None:
        if value <= 0:
            raise ValueError("the first-move limit must be > 0")
        self._tables.first_move_s = value

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

    # ------------------------------------------------------------------ changes
    async def act(self, match_id: str, user_id: int | None, version: Any, action: Any,
                  player_session: str | None = None) -> None:
        """A player's action (:meth:`Acting.act`; ``player_session``, the SHA-256 of the
        session token of the socket acting, is checked in the write), made by the match's
        owner."""
        await self._route("act", match_id, user_id, version, action, player_session)

    async def resign(self, match_id: str, user_id: int | None) -> None:
        """The player resigns (:meth:`Acting.resign`), on the match's owner."""
        await self._route("resign", match_id, user_id)

    async def forfeit(
        self, match_id: str, seat: int, reason: str, expected_version: int | None = None
    ) -> None:
        """A forfeit the server decides (:meth:`Acting.forfeit`), on the match's owner."""
        await self._route("forfeit", match_id, seat, reason, expected_version)

    async def flag(self, match_id: str, expected_version: int | None = None) -> bool:
        """The player whose clock has run out loses on time (:meth:`Acting.flag`), on the
        match's owner; whether it happened (not if their time is not up)."""
        return bool(await self._route("flag", match_id, expected_version))

    async def seed(self, match_id: str, user_id: int | None, value: Any) -> None:
        """A player's client seed (:meth:`Seeds.seed`), on the match's owner."""
        await self._route("seed", match_id, user_id, value)

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        """Cancel a waiting table (:meth:`Tables.cancel_waiting`), on the match's owner."""
        return bool(await self._route("cancel", match_id, user_id))

    async def _routed_seat(self, match_id: str, user_id: int, nickname: str) -> bool:
        return bool(await self._route("seat", match_id, user_id, nickname))

    async def state_for(self, match_id: str, user_id: int | None) -> dict[str, Any]:
        """The ``state`` message for this viewer now, with no event (a resync). With owners,
        a match whose lease is free (its owner died) is taken over here first, so its turns
        and timers go on; and for a match watched from here (a socket's ``hello``) owned
        elsewhere, the owner is asked (:meth:`_hello_owner`): it hands the match over to this
        process if it has no socket of it, or notes that this process watches it and answers
        with the state."""
        owners = self.owners
        if owners is not None and not owners.owns(match_id):
            live = self._store.live.get(match_id)
            if live is None or live.status in ("waiting", "active"):
                state = None
                try:
                    state = await self._hello_owner(match_id, user_id)
                except NotFound:
                    raise
                except Exception:  # the state is read from the database either way
                    log.exception("looking up the owner of match %s failed", match_id)
                if state is not None:
                    return state
        return await self._reads.state_for(match_id, user_id)

    async def _hello_owner(self, match_id: str, user_id: int | None) -> dict[str, Any] | None:
        """A socket's ``hello`` reached this process, which does not own the match. The
        socket subscribed to the match's topic before (the subscription is live once
        :meth:`~kva.service.broker.Broker.subscribe` returns); now the owner is sent a
        ``hello`` with every viewer key watched here. An owner with no socket of the match
        hands its lease over (the proxy routes a match's sockets to one process, while the
        match was created wherever its HTTP request landed) with its other processes'
        watches, and this process takes it (loaded from the journal): None, the state is
        read here. An owner that keeps it notes the watch before it answers with the state
        (under the match's lock), so every state it publishes afterwards goes to Redis and
        reaches the socket. None as well when this process owns the match (it took the free
        lease) or has no socket of it (a plain read)."""
        owners = self.owners
        assert owners is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 4 * owners.ttl_ms / 1000
        while True:
            owner = await owners.ensure(match_id)
            self._handed_in.pop(match_id, None)
            if owner == owners.me:
                return None
            keys = self.watchers.keys(match_id)
            if not keys or loop.time() > deadline:
                return None
            try:
                reply = await owners.request(owner, "hello", match_id,
                                             [owners.me, sorted(keys), user_id])
            except (Moved, Unanswered):
                owners.forget(match_id)
                await asyncio.sleep(0.02)
                continue
            if isinstance(reply, dict) and isinstance(reply.get("state"), dict):
                return cast(dict[str, Any], reply["state"])
            # handed over (or an answer of another shape): take the lease, and with it the
            # watches of the other processes
            if isinstance(reply, dict):
                self.remote.install(match_id, reply.get("watchers"), time.monotonic(),
                                    owners.me)
                self._handed_in[match_id] = True
            owners.forget(match_id)

    async def _hello(self, match_id: str, process: str, keys: list[Any],
                     user_id: int | None) -> dict[str, Any]:
        """Another process's socket said ``hello`` to ``match_id`` (owned here): give the
        lease up if no socket of it is connected here, after the change in progress (under
        the match's lock), with the watches other processes told of (the asker takes the
        lease and loads the match from the journal); else note that ``process`` watches it as
        ``keys`` (and as this viewer's own key) and answer with the viewer's state, both
        under the lock, so no state committed after this answer misses the asker."""
        assert self.owners is not None
        live = self._store.live.get(match_id)
        if live is None and not self.watchers.keys(match_id):
            return await self._give(match_id, process)
        if live is None:
            live = await self._store.get(match_id)
        async with live.lock:
            if not self.watchers.keys(match_id):
                return await self._give(match_id, process)
            seat = live.seat_of(user_id)
            self.remote.note(match_id, str(process), [*map(str, keys), viewer_key(seat)],
                             time.monotonic() + self.owners.watch_expiry_s)
            return {"state": state_message(live, seat, None)}

    async def _give(self, match_id: str, process: str) -> dict[str, Any]:
        """Hand ``match_id`` over to ``process`` (the caller holds the match's lock, if it is
        in memory): the lease released, the watches of the others exported."""
        assert self.owners is not None
        watchers = self.remote.export(match_id, time.monotonic())
        watchers["w"].pop(process, None)
        await self.owners.release(match_id)
        self._lost(match_id)
        self.handed_off += 1
        return {"given": True, "watchers": watchers}

    async def _watching(self, process: str, watched: Any) -> list[str]:
        """Another process renews its watches (match id → viewer keys) of matches owned here;
        the ones not owned here are answered (it looks their owners up again)."""
        assert self.owners is not None
        if not isinstance(watched, dict):
            return []
        until = time.monotonic() + self.owners.watch_expiry_s
        moved = []
        for match_id, keys in watched.items():
            if self.owners.holds(match_id) and isinstance(keys, list):
                self.remote.note(match_id, str(process), map(str, keys), until)
            else:
                moved.append(match_id)
        return moved

    async def renew_watches(self, only: list[str] | None = None, *, again: bool = True) -> None:
        """Tell the owner of each match watched from here and owned elsewhere which viewer
        keys this process's sockets watch it as (one ``watching`` request per owner, all at
        once; an owner still answering the last one is skipped): the owner publishes the
        match's states to Redis while it believes this. The matches an owner no longer owns
        are told to their new owner at once (``again``), since a match just taken over is
        published to everyone only for :attr:`Owners.watch_expiry_s`. A free lease is not
        taken here (the owners' sweep does)."""
        owners = self.owners
        if owners is None:
            return
        by_owner: dict[str, dict[str, list[str]]] = {}
        for match_id in self.watchers.matches() if only is None else only:
            if owners.owns(match_id):
                continue
            keys = self.watchers.keys(match_id)
            if not keys:
                continue
            try:
                owner = await owners.lookup(match_id)
            except Exception:
                log.exception("looking up the owner of match %s failed", match_id)
                continue
            if owner is not None and owner != owners.me and owner not in self._renewing:
                by_owner.setdefault(owner, {})[match_id] = sorted(keys)
        if not by_owner:
            return
        self._renewing.update(by_owner)
        try:
            # each request names one of its matches: an owner slower than the timeout is
            # waited for while it holds that match's lease (it is alive), as with a change
            replies = await asyncio.gather(
                *(owners.request(owner, "watching", next(iter(watched)), [owners.me, watched])
                  for owner, watched in by_owner.items()), return_exceptions=True)
        finally:
            self._renewing.difference_update(by_owner)
        moved: list[str] = []
        for (owner, watched), reply in zip(by_owner.items(), replies, strict=True):
            if isinstance(reply, list):
                lost = [str(m) for m in reply if m in watched]
            elif isinstance(reply, (Moved, Unanswered)):
                lost = list(watched)
            else:
                if isinstance(reply, BaseException):
                    log.warning("renewing the watches of %d matches at %s failed: %r",
                                len(watched), owner, reply)
                continue
            for match_id in lost:
                owners.forget(match_id)
            moved += lost
        if moved and again:
            await self.renew_watches(moved, again=False)

    def _remote_keys(self, match_id: str) -> frozenset[str] | None:
        """The viewer keys other processes watch ``match_id`` as, if this process owns it
        (None: not known, every key is sent to everyone)."""
        assert self.owners is not None
        if not self.owners.owns(match_id):
            return None
        return self.remote.keys(match_id, time.monotonic())

    async def _watch_loop(self) -> None:
        """Every :attr:`Owners.watch_s`: drop the expired watches of other processes, and
        renew this process's (in the background: an owner that died is waited for until its
        lease runs out, and must not hold the others' renewals up)."""
        assert self.owners is not None
        while True:
            await asyncio.sleep(self.owners.watch_s)
            self.remote.prune(time.monotonic())
            task = asyncio.create_task(self._renew_logged(), name="kva-watch-renew-once")
            self._renewals.add(task)
            task.add_done_callback(self._renewals.discard)

    async def _renew_logged(self) -> None:
        try:
            await self.renew_watches()
        except Exception:
            log.exception("renewing the remote watches failed")

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else (:meth:`prepare_match`): load it and
        schedule the bot or forced turn that is due (with owners: take its lease)."""
        if self.owners is None:
            await self._tables.activate(match_id)
        else:
            await self.owners.ensure(match_id)  # taking it loads it and resumes its turns

    async def _route(self, op: str, match_id: str, *args: Any) -> Any:
        """Run ``op`` here if this process owns the match (or takes its free lease), else
        forward it to the owner; an owner that does not answer is asked again once its lease
        is read again (a dead owner's runs out and this process takes the match over)."""
        owners = self.owners
        if owners is None:
            return await self._ops[op](match_id, *args)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 4 * owners.ttl_ms / 1000
        while True:
            owner = await owners.ensure(match_id)
            if owner == owners.me:
                return await self._ops[op](match_id, *args)
            if loop.time() > deadline:
                raise PlayError("stale", "the match's server did not answer; try again")
            try:
                return await owners.request(owner, op, match_id, list(args))
            except Moved:
                owners.forget(match_id)
                await asyncio.sleep(0.02)
            except Unanswered:
                owners.forget(match_id)
                log.warning("the owner %s of match %s did not answer a %s", owner, match_id, op)

    async def _serve_request(self, op: str, match_id: str, args: list[Any]) -> Any:
        """A change forwarded by another process: made here if this process owns the match."""
        assert self.owners is not None
        if op == "watching":  # several matches: each one checked
            return await self._watching(str(args[0]), args[1])
        if op not in self._ops:
            raise ValueError(f"unknown operation {op!r}")
        if op == "hello" and not self.owners.holds(match_id):
            # not taken here just to be handed over (two sockets' hellos at once would pass
            # the lease back and forth): the asker takes the free lease itself
            raise Moved(match_id)
        if await self.owners.ensure(match_id) != self.owners.me:
            raise Moved(match_id)
        return await self._ops[op](match_id, *args)

    async def _taken(self, match_id: str) -> None:
        """This process just took the lease of ``match_id``: load it as stored (the journal is
        the truth), publish its state, and resume its automatic turns and timers."""
        self._store.forget(match_id)
        live = await self._store.get(match_id)
        if live.status not in ("waiting", "active"):
            assert self.owners is not None
            self.owners.release_soon(match_id)
            return
        # The other processes' sockets on the match told the last owner that they watch it,
        # not this process: until their next renewals reach it, every state goes to all.
        # (A match handed over came with those watches.)
        if not self._handed_in.pop(match_id, False):
            assert self.owners is not None
            self.remote.grace(match_id, time.monotonic() + self.owners.watch_expiry_s)
        # The last owner may have committed a change and died before publishing it: every
        # socket gets the state as stored (a socket that has it already sends nothing).
        async with live.lock:
            await self._committer.republish(live)
        self._turns.schedule(live)
        self._seeds.schedule(live)
        self._clocks.arm(live)

    def _lost(self, match_id: str) -> None:
        """Another process owns ``match_id`` now: drop the copy, and the turn and the seed
        wait scheduled here."""
        self._turns.cancel(match_id)
        self._seeds.cancel(match_id)
        self._clocks.disarm(match_id)
        self._store.forget(match_id)
        self.remote.forget(match_id)

    async def _adopt(self, match_id: str) -> None:
        assert self.owners is not None
        try:
            await self.owners.adopt(match_id)
        except Exception:  # served from here anyway; another process takes it when needed
            log.exception("taking the lease of new match %s failed", match_id)

    def _sweep_candidates(self) -> list[str]:
        """Matches watched from here whose copy is not known to be over."""
        out = []
        for match_id in self.watchers.matches():
            live = self._store.live.get(match_id)
            if live is None or live.status in ("waiting", "active"):
                out.append(match_id)
        return out

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Resume every unfinished match: schedule the bot or forced action that is due.
        With owners, only the matches whose lease is free are taken (and resumed) here."""
        if self.owners is not None:
            await self.owners.start()
            self._watch_task = asyncio.create_task(self._watch_loop(), name="kva-watch-renew")
        async with self._sessions() as session:
            rows = await repo.unfinished_matches(session)
        for row in rows:
            try:
                if self.owners is not None:
                    await self.owners.ensure(row.id)  # taken: loaded and resumed
                    continue
                live = await self._store.get(row.id)
            except Exception:  # a broken record must not keep the server down
                log.exception("cannot resume match %s", row.id)
                continue
            self._turns.schedule(live)
            self._seeds.schedule(live)
            self._clocks.arm(live)

    async def stop(self) -> None:
        """Cancel scheduled bot and forced turns, seed waits and clock timers (they resume on
        the next start, the clocks from their stored deadlines); with owners, release every
        lease held."""
        await self._turns.stop()
        await self._seeds.stop()
        await self._clocks.stop()
        tasks = [t for t in (self._watch_task, *self._renewals) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._watch_task = None
        if self.owners is not None:
            await self.owners.stop()

    def on_tables_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` after an open table is opened or taken, or a waiting table is
        cancelled (the lobby republishes its list of open tables)."""
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
        """A match changed or started here: schedule its automatic turn, run the hooks; a
        match over gives its lease up."""
        self._turns.schedule(live)
        self._seeds.schedule(live)
        self._clocks.arm(live)
        self._run_commit_hooks(live)
        if self.owners is not None and live.status in ("finished", "cancelled"):
            self.owners.release_soon(live.id)

    def _run_commit_hooks(self, live: LiveMatch) -> None:
        if live.match is None:
            return
        for hook in self.commit_hooks:
            try:
                hook(live)
            except Exception:  # a hook must never undo or block a committed change
                log.exception("commit hook failed for match %s", live.id)


__all__ = ["MatchInfo", "MatchSummary", "PlayService", "Seat"]
