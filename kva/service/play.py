"""The play service: create tables, seat players, apply actions, run forced and bot turns.

Every change follows one path (:meth:`PlayService._commit`): apply to the in-memory
:class:`~kva.rules.Match`, write the in-progress record and the next version in one transaction
(refused if another writer got there first), and only then publish the per-viewer states on the
broker. After each commit the service looks at who acts next: a bot thinks (off the event loop)
and plays; a player with only a forced draw or pass gets it applied for them, one event each,
after ``forced_delay`` seconds. On start it does the same for every unfinished match, so a
restarted server carries on where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.rules import (
    DRAW,
    PASS,
    TARGETS,
    IllegalAction,
    Match,
    action_from_json,
    player_view,
    read_record,
    write_record,
)
from kva.rules.view_json import view_to_json
from kva.service import bots
from kva.service.broker import Broker
from kva.service.errors import NotFound, PlayError, RatedOnly, WrongPassword
from kva.service.events import Event, action_event, event_for, join_event, resign_event
from kva.service.passwords import hash_password, verify_password
from kva.service.ratings import rate_finished_match
from kva.storage import repo
from kva.storage.models import MatchRow, TableRow, utcnow

log = logging.getLogger(__name__)

BAZAAR_RULES: tuple[str, ...] = ("draw", "pass-only")
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
class LiveMatch:
    """A match held in memory between actions, with its stored version and seats."""

    id: str
    match: Match
    version: int
    status: str
    seats: list[Seat]
    created_at: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    rated: bool = False

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What the game page needs to render around the live view."""

    id: str
    status: str
    target: int
    bazaar: str
    seat: int | None
    players: list[dict[str, Any] | None]
    table_token: str | None
    has_password: bool
    version: int
    #: The table is listed in the lobby (an open table), not a friend's closed one.
    open_table: bool = False


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of a user's match list."""

    id: str
    status: str
    target: int
    opponent: str | None
    opponent_bot: str | None
    score: tuple[int, int]
    seat: int
    winner: int | None


class PlayService:
    """Tables, turns and persistence for every match this process serves."""

    def __init__(
        self,
        sessions: async_sessionmaker,
        broker: Broker,
        *,
        forced_delay: float = 0.6,
        bot_delay: float = 0.8,
        rng_factory: Callable[[], random.Random] = random.SystemRandom,
        bot_executor: Executor | None = None,
        cache_size: int = 2000,
    ) -> None:
        self._sessions = sessions
        self._broker = broker
        self.forced_delay = forced_delay
        self.bot_delay = bot_delay
        self._rng_factory = rng_factory
        self._bot_executor = bot_executor
        self._live: OrderedDict[str, LiveMatch] = OrderedDict()
        self._load_locks: dict[str, asyncio.Lock] = {}
        self.cache_size = cache_size
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self._table_listeners: list[Callable[[], Awaitable[None]]] = []
        #: Called with a match whenever this process takes up its state: after every
        #: committed change and whenever it is loaded (a restart, a match another process
        #: created); :mod:`kva.service.presence` arms the first-move timeout here.
        self.commit_hooks: list[Callable[[LiveMatch], None]] = []

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Resume every unfinished match: schedule the bot or forced action that is due."""
        async with self._sessions() as session:
            rows = await repo.unfinished_matches(session)
        for row in rows:
            try:
                live = await self._get_live(row.id)
            except Exception:  # a broken record must not keep the server down
                log.exception("cannot resume match %s", row.id)
                continue
            self._schedule_next(live)

    async def stop(self) -> None:
        """Cancel scheduled bot and forced turns (they resume on the next start)."""
        self._stopping = True
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    def renamed(self, user_id: int, nickname: str) -> None:
        """A player's nickname changed (a guest registered): the matches held here show, and
        from their next change record, the new one."""
        for live in self._live.values():
            for seat in live.seats:
                if seat.user_id == user_id:
                    seat.nickname = nickname

    def on_tables_changed(self, listener: Callable[[], Awaitable[None]]) -> None:
        """Call ``listener`` after a waiting table is opened, taken or cancelled (the lobby
        republishes its list)."""
        self._table_listeners.append(listener)

    async def _tables_changed(self) -> None:
        for listener in self._table_listeners:
            try:
                await listener()
            except Exception:  # the change is committed; a listener's failure is only logged
                log.exception("a table listener failed")

    # ------------------------------------------------------------------ loading
    async def _get_live(self, match_id: str) -> LiveMatch:
        live = self._live.get(match_id)
        if live is not None:
            self._live.move_to_end(match_id)
            return live
        lock = self._load_locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            live = self._live.get(match_id)
            if live is not None:
                return live
            async with self._sessions() as session:
                row = await repo.get_match(session, match_id)
                if row is None:
                    raise NotFound(match_id)
                users = await repo.users_by_id(
                    session, [u for u in (row.seat0_user_id, row.seat1_user_id) if u is not None]
                )
            live = self._live_from_row(row, users)
            self._remember(live)
            self._run_commit_hooks(live)
            return live

    def _remember(self, live: LiveMatch) -> None:
        """Keep ``live`` in memory; beyond ``cache_size`` matches, drop the least recently used
        ones that nothing is using (the database holds them all; they reload on demand)."""
        self._live[live.id] = live
        self._live.move_to_end(live.id)
        excess = len(self._live) - self.cache_size
        for old_id in list(self._live)[:max(0, excess)]:
            old = self._live[old_id]
            if old is live or old.lock.locked() or old_id in self._tasks:
                continue
            del self._live[old_id]
            self._load_locks.pop(old_id, None)

    async def _fresh_live(self, match_id: str) -> LiveMatch:
        """The match as stored now: the copy in memory if no other process (or a failed write)
        moved the stored version on, else a fresh load."""
        live = self._live.get(match_id)
        if live is not None:
            async with self._sessions() as session:
                version = await repo.match_version(session, match_id)
            if version is None:
                self._forget(match_id)
                raise NotFound(match_id)
            if version == live.version:
                return live
            self._forget(match_id)
        return await self._get_live(match_id)

    def _live_from_row(self, row: MatchRow, users: dict[int, Any]) -> LiveMatch:
        match = read_record(row.record, complete=False, rng=self._rng_factory())
        seats = []
        pairs = ((row.seat0_user_id, row.seat0_bot), (row.seat1_user_id, row.seat1_bot))
        for user_id, bot in pairs:
            user = users.get(user_id) if user_id is not None else None
            seats.append(Seat(user_id, user.nickname if user is not None else None, bot))
        started = (row.record.get("meta") or {}).get("started") or row.created_at.isoformat()
        return LiveMatch(row.id, match, row.version, row.status, seats, started,
                         rated=row.rated)

    def _forget(self, match_id: str) -> None:
        """Drop the in-memory copy (it may be ahead of or behind the database)."""
        self._live.pop(match_id, None)

    # ------------------------------------------------------------------ creating and joining
    async def create_match(
        self,
        creator_id: int,
        creator_name: str,
        opponent: str,
        target: int,
        bazaar: str,
        password: str | None = None,
        *,
        rated: bool = False,
        opponent_user: tuple[int, str] | None = None,
    ) -> tuple[str, str | None]:
        """Create a match; return its id and, for a table, the token of its link.

        ``opponent`` is ``bot:<level>``, ``friend`` (a closed table, by link, with an optional
        ``password``), ``open`` (an open table, listed in the lobby) or ``player``: the user
        ``opponent_user`` (id, nickname) a quick game paired with the creator, seated at once.
        Only open tables and quick games may be ``rated``; whether both players may play rated
        is the caller's check (guests may not). ValueError names a bad setting.
        """
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}")
        if bazaar not in BAZAAR_RULES:
            raise ValueError("bazaar must be 'draw' or 'pass-only'")
        if opponent.startswith("bot:"):
            level = opponent[4:]
            if level not in bots.LEVELS:
                raise ValueError(f"unknown bot level {level!r}")
            seat1 = Seat(bot=level)
            status = "active"
        elif opponent in ("friend", "open"):
            seat1 = Seat()
            status = "waiting"
        elif opponent == "player":
            if opponent_user is None or opponent_user[0] == creator_id:
                raise ValueError("a paired match needs another player")
            seat1 = Seat(opponent_user[0], opponent_user[1])
            status = "active"
        else:
            raise ValueError("opponent must be bot:easy, bot:normal, bot:hard, friend, open "
                             "or player")
        if rated and opponent not in ("open", "player"):
            raise ValueError("only open tables and quick games can be rated")
        if password and len(password) > 128:
            raise ValueError("the password is too long")
        match = Match(target, bazaar, self._rng_factory())  # type: ignore[arg-type]
        match_id = secrets.token_urlsafe(9)
        started = utcnow()
        live = LiveMatch(match_id, match, 1, status, [Seat(creator_id, creator_name), seat1],
                         started.isoformat(), rated=rated)
        token = secrets.token_urlsafe(18) if opponent in ("friend", "open") else None
        hashed = await hash_password(password) if (opponent == "friend" and password) else None
        async with self._sessions() as session, session.begin():
            session.add(MatchRow(
                id=match_id, status=status, target=target, bazaar=bazaar, rated=rated,
                seat0_user_id=creator_id, seat1_user_id=seat1.user_id, seat0_bot=None,
                seat1_bot=seat1.bot, version=1, record=self._record(live),
                created_at=started, updated_at=started,
            ))
            await session.flush()
            if token is not None:
                session.add(TableRow(match_id=match_id, token=token, password_hash=hashed,
                                     created_by=creator_id,
                                     kind="open" if opponent == "open" else "closed"))
        self._remember(live)
        self._schedule_next(live)
        self._run_commit_hooks(live)
        if opponent == "open":
            await self._tables_changed()
        return match_id, token

    async def table(self, token: str) -> tuple[str, bool]:
        """The match id behind a table token and whether the table has a password."""
        async with self._sessions() as session:
            table = await repo.table_by_token(session, token)
        if table is None:
            raise NotFound(token)
        return table.match_id, table.password_hash is not None

    async def join_table(
        self, token: str, user_id: int, nickname: str, password: str | None, *,
        registered: bool = False,
    ) -> tuple[str, int | None]:
        """Take the free seat of a table, closed or open (or watch it once both seats are
        taken, or once it was cancelled).

        Returns the match id and the seat taken (None: a spectator). Raises
        :class:`WrongPassword` when the table has a password and ``password`` does not match,
        and :class:`RatedOnly` when a rated table is still waiting and the joiner is not
        ``registered`` (guests play casual only).
        """
        async with self._sessions() as session:
            table = await repo.table_by_token(session, token)
        if table is None:
            raise NotFound(token)
        live = await self._fresh_live(table.match_id)
        seat = live.seat_of(user_id)
        if seat is not None:
            return live.id, seat
        if table.password_hash is not None and not (
            password and await verify_password(password, table.password_hash)
        ):
            raise WrongPassword(token)
        if live.rated and not registered and live.status == "waiting":
            raise RatedOnly(token)
        async with live.lock:
            live = await self._fresh_live(table.match_id)
            free = live.seats[1].user_id is None and live.seats[1].bot is None
            if free and live.status == "waiting":
                live.seats[1] = Seat(user_id, nickname)
                live.status = "active"
                await self._commit(live, join_event(1), seat1_user_id=user_id)
                joined = True
            else:
                joined = False
        if joined:
            await self._tables_changed()
            return live.id, 1
        return live.id, None

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        """Cancel a table still waiting for its second player, for its creator (seat 0).

        Returns False, changing nothing, when the table is no longer waiting (someone joined)
        or ``user_id`` did not open it. A cancelled match takes no moves and leaves lists.
        """
        live = await self._fresh_live(match_id)
        async with live.lock:
            live = await self._fresh_live(match_id)
            if live.status != "waiting" or live.seat_of(user_id) != 0:
                return False
            live.status = "cancelled"
            try:
                await self._commit(live, {"kind": "cancel", "p": 0})
            except PlayError:
                return False
        await self._tables_changed()
        return True

    # ------------------------------------------------------------------ reading
    async def info(self, match_id: str, user_id: int | None) -> MatchInfo:
        """The facts the game page renders (raises :class:`NotFound`)."""
        live = await self._fresh_live(match_id)
        token, has_password, open_table = None, False, False
        seat = live.seat_of(user_id)
        if live.status == "waiting" and seat == 0:
            async with self._sessions() as session:
                table = await repo.table_of_match(session, match_id)
            if table is not None:
                token, has_password = table.token, table.password_hash is not None
                open_table = table.kind == "open"
        return MatchInfo(
            id=live.id, status=live.status, target=live.match.target, bazaar=live.match.bazaar,
            seat=seat, players=[s.public() for s in live.seats], table_token=token,
            has_password=has_password, version=live.version, open_table=open_table,
        )

    async def state_for(self, match_id: str, user_id: int | None) -> dict[str, Any]:
        """The ``state`` message for this viewer now, with no event (a resync)."""
        live = await self._fresh_live(match_id)
        async with live.lock:
            return self._state_message(live, live.seat_of(user_id), None)

    async def finished_record(self, match_id: str) -> dict[str, Any] | None:
        """The record of a finished match; None while it is in progress (raises NotFound)."""
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
        if row is None:
            raise NotFound(match_id)
        return row.record if row.status == "finished" else None

    async def matches_of(self, user_id: int) -> list[MatchSummary]:
        """The user's recent matches for the home page."""
        async with self._sessions() as session:
            rows = await repo.matches_of_user(session, user_id)
            others = [
                (r.seat1_user_id if r.seat0_user_id == user_id else r.seat0_user_id) for r in rows
            ]
            users = await repo.users_by_id(session, [u for u in others if u is not None])
        out = []
        for row, other in zip(rows, others, strict=True):
            seat = 0 if row.seat0_user_id == user_id else 1
            bot = row.seat1_bot if seat == 0 else row.seat0_bot
            name = users[other].nickname if other is not None and other in users else None
            score = row.record.get("score") or [0, 0]
            out.append(MatchSummary(row.id, row.status, row.target, name, bot,
                                    (score[seat], score[1 - seat]), seat, row.winner))
        return out

    # ------------------------------------------------------------------ acting
    async def act(
        self, match_id: str, user_id: int | None, version: Any, action: Any
    ) -> None:
        """Apply a player's action at ``version``; :class:`PlayError` says why not."""
        live = await self._fresh_live(match_id)
        async with live.lock:
            seat = self._check_seated(live, user_id)
            if isinstance(version, bool) or not isinstance(version, int) or (
                version != live.version
            ):
                raise PlayError("stale", f"the match is at version {live.version}")
            match = live.match
            if match.turn != seat:
                raise PlayError("not_your_turn", "it is not your turn")
            try:
                code = action_from_json(action, match.legal_codes())
            except IllegalAction as exc:
                raise PlayError("illegal", str(exc)) from None
            hand_index = len(match.hands) - 1
            match.apply(code, player=seat)
            await self._commit(live, action_event(match, hand_index))

    async def resign(self, match_id: str, user_id: int | None) -> None:
        """The player resigns: the match ends at once, the opponent wins."""
        live = await self._fresh_live(match_id)
        async with live.lock:
            seat = self._check_seated(live, user_id)
            live.match.forfeit(seat, "resign")
            await self._commit(live, resign_event(live.match, seat))

    async def forfeit(
        self, match_id: str, seat: int, reason: str, expected_version: int | None = None
    ) -> None:
        """``seat`` loses the match at once for ``reason`` (``abandon`` or ``timeout``: the
        server decides these, not the player). With ``expected_version``, nothing happens
        unless the match is still at that version (a timer armed for that position)."""
        if reason not in ("abandon", "timeout"):
            raise ValueError("a forfeit by the server is for 'abandon' or 'timeout'")
        live = await self._fresh_live(match_id)
        async with live.lock:
            if live.match.over or live.status != "active":
                raise PlayError("over", "the match is over")
            if expected_version is not None and live.version != expected_version:
                raise PlayError("stale", f"the match is at version {live.version}")
            live.match.forfeit(seat, reason)  # type: ignore[arg-type]
            await self._commit(live, {"kind": "forfeit", "p": seat, "reason": reason,
                                      "winner": live.match.winner})

    def prepare_match(
        self, seats: list[Seat], target: int, bazaar: str, *, rated: bool = False
    ) -> MatchRow:
        """The row of a new active match between two given seats (users or bots), not yet
        stored: the caller adds it in its own transaction, then calls :meth:`activate`.
        A rematch uses this to start the new match in the transaction that accepts it."""
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}")
        if bazaar not in BAZAAR_RULES:
            raise ValueError("bazaar must be 'draw' or 'pass-only'")
        if len(seats) != 2 or any((s.user_id is None) == (s.bot is None) for s in seats):
            raise ValueError("a match needs two seats, each a user or a bot")
        if any(s.bot is not None and s.bot not in bots.LEVELS for s in seats):
            raise ValueError("unknown bot level")
        started = utcnow()
        live = LiveMatch(secrets.token_urlsafe(9), Match(target, bazaar,  # type: ignore[arg-type]
                         self._rng_factory()), 1, "active", list(seats), started.isoformat(),
                         rated=rated)
        return MatchRow(
            id=live.id, status="active", target=target, bazaar=bazaar, rated=rated,
            seat0_user_id=seats[0].user_id, seat1_user_id=seats[1].user_id,
            seat0_bot=seats[0].bot, seat1_bot=seats[1].bot, version=1,
            record=self._record(live), created_at=started, updated_at=started,
        )

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else (:meth:`prepare_match`): load it and
        schedule the bot or forced turn that is due."""
        live = await self._fresh_live(match_id)
        self._schedule_next(live)
        self._run_commit_hooks(live)

    def _check_seated(self, live: LiveMatch, user_id: int | None) -> int:
        seat = live.seat_of(user_id)
        if seat is None:
            raise PlayError("not_seated", "you are not a player of this match")
        if live.match.over or live.status == "finished":
            raise PlayError("over", "the match is over")
        if live.status == "waiting":
            raise PlayError("illegal", "the match starts when your opponent joins")
        if live.status == "cancelled":
            raise PlayError("over", "this table was cancelled")
        return seat

    # ------------------------------------------------------------------ committing
    def _record(self, live: LiveMatch) -> dict[str, Any]:
        return write_record(
            live.match,
            players=[{"name": s.record_name()} for s in live.seats],
            meta={"match_id": live.id, "rated": live.rated, "started": live.created_at},
        )

    async def _commit(
        self, live: LiveMatch, event: Event | None, *, seat1_user_id: int | None = None
    ) -> None:
        """Store the match at the next version, then publish it; the caller holds the lock.

        If the write is refused (someone else wrote first) or fails, the in-memory copy is
        dropped, so the next access reloads the stored truth, and a ``stale`` error is raised.
        """
        match = live.match
        finished = match.over
        if finished:
            live.status = "finished"
        try:
            async with self._sessions() as session, session.begin():
                ok = await repo.save_match_state(
                    session, live.id, live.version, record=self._record(live), status=live.status,
                    winner=match.winner if finished else None,
                    end_reason=(match.forfeit_reason or "points") if finished else None,
                    finished_at=utcnow() if finished else None, seat1_user_id=seat1_user_id,
                )
                if not ok:
                    raise PlayError("stale", "the match changed meanwhile")
                if finished:  # rated matches: both ratings move in this same transaction
                    changes = await rate_finished_match(session, live.id)
                    if changes and event is not None:
                        event = {**event, "ratings": [
                            {"before": round(c.before.rating), "after": round(c.after.rating)}
                            for c in changes]}
        except BaseException:
            self._forget(live.id)
            raise
        live.version += 1
        await self._publish(live, event)
        self._schedule_next(live)
        self._run_commit_hooks(live)

    def _run_commit_hooks(self, live: LiveMatch) -> None:
        for hook in self.commit_hooks:
            try:
                hook(live)
            except Exception:  # a hook must never undo or block a committed change
                log.exception("commit hook failed for match %s", live.id)

    def _state_message(
        self, live: LiveMatch, seat: int | None, event: Event | None
    ) -> dict[str, Any]:
        view = view_to_json(player_view(live.match, seat))
        if live.status != "active":
            view["legal"] = []  # a table waiting for its second player takes no moves yet
        return {
            "type": "state",
            "version": live.version,
            "view": view,
            "event": event_for(event, seat),
            "status": live.status,
            "players": [s.public() for s in live.seats],
            "you": seat,
        }

    async def _publish(self, live: LiveMatch, event: Event | None) -> None:
        states = {
            key: self._state_message(live, None if key == "s" else int(key), event)
            for key in VIEWER_KEYS
        }
        try:
            await self._broker.publish(topic(live.id), {"version": live.version, "states": states})
        except Exception:  # committed already: clients resync on reconnect
            log.exception("publishing match %s v%d failed", live.id, live.version)

    # ------------------------------------------------------------------ bots and forced turns
    def _schedule_next(self, live: LiveMatch) -> None:
        """Schedule the bot move or forced action that is due, if any."""
        if self._stopping or live.status != "active" or live.match.over:
            return
        seat = live.match.turn
        assert seat is not None
        legal = live.match.legal_codes()
        forced = legal in ([DRAW], [PASS])
        bot = live.seats[seat].bot
        if bot is None and not forced:
            return
        delay = self.forced_delay if forced else self.bot_delay
        previous = self._tasks.get(live.id)
        if previous is not None and not previous.done() and previous is not asyncio.current_task():
            previous.cancel()
        task = asyncio.create_task(self._auto_turn(live.id, live.version, bot, forced, delay),
                                   name=f"kva-turn-{live.id}-v{live.version}")
        self._tasks[live.id] = task
        task.add_done_callback(lambda t, mid=live.id: self._task_done(mid, t))

    def _task_done(self, match_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(match_id) is task:
            del self._tasks[match_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("automatic turn in match %s failed", match_id, exc_info=task.exception())

    async def _auto_turn(
        self, match_id: str, version: int, bot: str | None, forced: bool, delay: float
    ) -> None:
        """Play the forced action or the bot's choice, if the match is still at ``version``."""
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        live = await self._get_live(match_id)
        if live.version != version or live.match.over:
            return
        seat = live.match.turn
        assert seat is not None
        legal = live.match.legal_codes()
        if forced:
            code = legal[0]
        else:
            assert bot is not None
            view = player_view(live.match, seat)
            seed = self._rng_factory().getrandbits(63)
            try:
                code = await bots.choose(bot, view, seed, self._bot_executor)
            except Exception:  # a broken worker must not leave the match waiting forever
                log.exception("bot %s failed in match %s; it plays a random legal move", bot,
                              match_id)
                code = random.Random(seed).choice(legal)
        async with live.lock:
            current = await self._get_live(match_id)
            if current is not live or live.version != version or live.match.over:
                return
            hand_index = len(live.match.hands) - 1
            try:
                live.match.apply(code, player=seat)
            except IllegalAction:
                log.error("bot %s chose an illegal action %d in %s", bot, code, match_id)
                return
            try:
                await self._commit(live, action_event(live.match, hand_index))
            except PlayError:
                return
