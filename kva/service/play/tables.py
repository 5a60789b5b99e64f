"""Starting matches: one path builds every new match (against a bot, a paired player, a
rematch, or a table waiting for its second player); tables are joined, cancelled and, when
they have a password, watched only by whoever gave it.

A waiting table is not dealt: the deal happens when the second player sits down, so the
creator can never see a hand (or the forced opening) before the match starts and cancel to
shop for a better one.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.rules import MatchSettings
from kva.service import bots
from kva.service.errors import NotFound, PlayError, RatedOnly, WrongPassword
from kva.service.events import join_event, public
from kva.service.passwords import hash_password, verify_password
from kva.service.play.clock import DEFAULT_CLOCK, NO_CLOCK, PRESETS, Clock, check_clock
from kva.service.play.commit import Committer, record_of
from kva.service.play.live import FairState, LiveMatch, LiveStore, Seat
from kva.service.play.seeds import Seeds
from kva.service.routing import new_match_id as new_match_id_default
from kva.service.stakes import CoinError, check_stake
from kva.storage import repo
from kva.storage.models import MatchRow, TableRow, utcnow

log = logging.getLogger(__name__)

OPPONENTS = "bot:easy, bot:normal, bot:hard, friend, open or player"
#: How many tables :class:`Tables` remembers (their rows never change once written).
TABLES_KEPT = 2000


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What a ``tables`` row says. A row is written once, with its match, and never changed
    nor deleted, so a copy held in memory stays true on every process."""

    match_id: str
    token: str
    password_hash: str | None
    kind: str

    @classmethod
    def of(cls, row: TableRow) -> TableInfo:
        return cls(row.match_id, row.token, row.password_hash, row.kind)


def second_seat(opponent: str, opponent_user: tuple[int, str] | None) -> Seat:
    """Seat 1 of a new match against ``opponent`` (see :meth:`Tables.create_match`): a bot,
    nobody yet (a table), or the paired player ``opponent_user``."""
    if opponent.startswith("bot:"):
        return Seat(bot=opponent[4:])
    if opponent in ("friend", "open"):
        return Seat()
    if opponent == "player" and opponent_user is not None:
        return Seat(opponent_user[0], opponent_user[1])
    raise ValueError(f"opponent must be {OPPONENTS}")


def checked_terms(
    settings: MatchSettings, opponent: str, password: str | None, stake: int,
    clock: str | None,
) -> tuple[int, str]:
    """The stake and clock preset of a new match against ``opponent``, checked with its
    settings and password (ValueError or :class:`~kva.service.stakes.CoinError` says what is
    wrong; see :meth:`Tables.create_match`)."""
    if settings.rated and opponent not in ("open", "player"):
        raise ValueError("only open tables and quick games can be rated")
    if password and len(password) > 128:
        raise ValueError("the password is too long")
    stake = check_stake(stake)
    if stake and opponent.startswith("bot:"):
        raise CoinError("bot_stake", "coin tables are person against person")
    clock = check_clock(clock, casual=not (settings.rated or stake or opponent == "player"),
                        default=NO_CLOCK if opponent.startswith("bot:") else DEFAULT_CLOCK)
    return stake, clock


class Tables:
    """Creating, preparing, joining and cancelling matches and their tables."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        store: LiveStore,
        committer: Committer,
        rng_factory: Callable[[], random.Random],
        started: Callable[[LiveMatch], None],
        seeds: Seeds,
        *,
        seat: Callable[[str, int, str], Awaitable[bool]] | None = None,
        adopt: Callable[[str], Awaitable[None]] | None = None,
        new_match_id: Callable[[], str] | None = None,
        clock_presets: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self._seeds = seeds
        self._sessions = sessions
        #: Draws the id of each new match (:func:`kva.service.routing.match_ids_for` behind
        #: nginx, so that the match's sockets come to this process).
        self.new_match_id = new_match_id if new_match_id is not None else new_match_id_default
        self._store = store
        self._committer = committer
        self._rng_factory = rng_factory
        self._started = started
        self.listeners: list[Callable[[], Awaitable[None]]] = []
        #: Seats a joining player (:meth:`seat_player` on the match's owner: the play service
        #: routes it there when processes share Redis; by default, here).
        self._seat = seat if seat is not None else self.seat_player
        #: Called with each match created here, once it is served (the match router takes
        #: its lease).
        self._adopt = adopt
        #: The tables created or read here lately, by token and by match id (see
        #: :class:`TableInfo`): the creator's game page and the join of a new table read
        #: nothing. Only tables found are kept; the least recently used go beyond
        #: :data:`TABLES_KEPT`.
        self._by_token: OrderedDict[str, TableInfo] = OrderedDict()
        self._by_match: dict[str, TableInfo] = {}
        #: The time of each clock preset for new matches (``KVA_CLOCK_PRESETS``).
        self.clock_presets: dict[str, tuple[int, int]] = dict(
            PRESETS if clock_presets is None else clock_presets)
        #: A match with no clock: seconds for each player's turns until their first move
        #: (``KVA_FIRST_MOVE_TIMEOUT``).
        self.first_move_s = 120.0

    # ------------------------------------------------------------------ one path
    def new_match(
        self, seats: list[Seat], settings: MatchSettings, *, private: bool = False,
        clock: str = NO_CLOCK,
    ) -> tuple[LiveMatch, MatchRow]:
        """A new match and its row (with its kva-fair/1 inputs), not yet stored. With both
        seats taken it is active, and dealt once both client seeds are in (at once for a
        server with no seed wait); with seat 1 empty it is a table waiting (undealt) for its
        second player. ``clock``: its time control's preset (checked by the caller)."""
        if len(seats) != 2 or seats[0].user_id is None and seats[0].bot is None:
            raise ValueError("a match needs two seats, the first one taken")
        if any(s.user_id is not None and s.bot is not None for s in seats):
            raise ValueError("a seat is a user or a bot, not both")
        if any(s.bot is not None and s.bot not in bots.LEVELS for s in seats):
            raise ValueError("unknown bot level")
        waiting = seats[1].user_id is None and seats[1].bot is None
        if not waiting and seats[0].user_id is not None and seats[0].user_id == seats[1].user_id:
            raise ValueError("a match needs two different players")
        started = utcnow()
        live = LiveMatch(self.new_match_id(), settings, None, 1,
                         "waiting" if waiting else "active", list(seats), started.isoformat(),
                         private=private, fair=FairState.new(seats),
                         clock=Clock.new(clock, self._committer.now_ms, self.clock_presets)
                         or Clock.first_move(self.first_move_s, self._committer.now_ms))
        self._seeds.prepare(live)
        if live.clock is not None and live.match is not None:  # dealt now: its time runs
            live.clock.advance(live.match, (seats[0].bot is None, seats[1].bot is None), True,
                               self._committer.now_ms())
        row = MatchRow(
            id=live.id, status=live.status, target=settings.target, bazaar=settings.bazaar,
            rated=settings.rated, private=private,
            seat0_user_id=seats[0].user_id, seat1_user_id=seats[1].user_id,
            seat0_bot=seats[0].bot, seat1_bot=seats[1].bot, version=1,
            record=record_of(live), created_at=started, updated_at=started,
        )
        assert live.fair is not None
        row.fair = live.fair.row(live.id)  # stored with the row, in the caller's transaction
        return live, row

    def _serve(self, live: LiveMatch) -> None:
        self._store.remember(live)
        self._started(live)

    # ------------------------------------------------------------------ creating
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
        stake: int = 0,
        clock: str | None = None,
    ) -> tuple[str, str | None]:
        """Create a match; return its id and, for a table, the token of its link.

        ``opponent`` is ``bot:<level>``, ``friend`` (a closed table, by link, with an optional
        ``password``), ``open`` (an open table, listed in the lobby) or ``player``: the user
        ``opponent_user`` (id, nickname) a quick game paired with the creator, seated at once.
        Only open tables and quick games may be ``rated``; whether both players may play rated
        is the caller's check (guests may not). ValueError (:class:`~kva.rules.BadSettings`
        for the settings) names a bad setting. ``stake``: Domino Coin per player (person
        against person only; :mod:`kva.service.coins`), moved to the escrow when the match
        starts: here for a quick game (CoinError, nothing stored, if a player cannot cover it).
        ``clock``: the time control's preset (:data:`~kva.service.play.clock.CLOCK_CHOICES`;
        None: ``none`` against a bot, else ``standard``); ``none`` is refused (ValueError)
        for a rated match, a coin table and a quick game.
        """
        settings = MatchSettings.parse(target, bazaar, rated)
        seat1 = second_seat(opponent, opponent_user)
        stake, clock = checked_terms(settings, opponent, password, stake, clock)
        protected = opponent == "friend" and bool(password)
        live, row = self.new_match([Seat(creator_id, creator_name), seat1], settings,
                                   private=protected, clock=clock)
        token = await self._store_new(live, row, creator_id, opponent,
                                      password if protected else None, stake)
        self._serve(live)
        if self._adopt is not None:
            await self._adopt(live.id)
        if opponent == "open":
            await self.changed()
        return live.id, token

    async def _store_new(
        self, live: LiveMatch, row: MatchRow, creator_id: int, opponent: str,
        password: str | None, stake: int,
    ) -> str | None:
        """Store a match :meth:`create_match` made (with its table, for a ``friend`` or
        ``open`` opponent: its link's token is returned, the ``password`` kept hashed) and
        move the creator's ``stake`` to the escrow, in one transaction."""
        token = secrets.token_urlsafe(18) if opponent in ("friend", "open") else None
        hashed = await hash_password(password, "table") if password else None
        row.stake = stake
        kind = "open" if opponent == "open" else "closed"
        table = None if token is None else TableRow(
            match_id=live.id, token=token, password_hash=hashed, created_by=creator_id,
            kind=kind, created_at=utcnow())
        async with self._sessions() as session, session.begin():
            await repo.insert_match(session, row, row.fair, table)
            for hook in self._committer.hooks:  # a coin table's stake, for one
                await hook.created(session, row)
        if token is not None:  # committed
            self._keep(TableInfo(live.id, token, hashed, kind))
        return token

    def prepare_match(
        self, seats: list[Seat], target: int, bazaar: str, *, rated: bool = False,
        private: bool = False, clock: str = NO_CLOCK,
    ) -> MatchRow:
        """The row of a new active match between two given seats (users or bots), not yet
        stored: the caller adds it in its own transaction, then calls :meth:`activate`.
        A rematch uses this to start the new match in the transaction that accepts it (with
        the same ``clock`` preset)."""
        if len(seats) != 2 or any((s.user_id is None) == (s.bot is None) for s in seats):
            raise ValueError("a match needs two seats, each a user or a bot")
        _live, row = self.new_match(seats, MatchSettings.parse(target, bazaar, rated),
                                    private=private, clock=clock)
        return row

    async def activate(self, match_id: str) -> None:
        """Start serving a match stored by someone else (:meth:`prepare_match`): load it and
        schedule the bot or forced turn that is due."""
        self._started(await self._store.fresh(match_id))

    # ------------------------------------------------------------------ tables
    def _keep(self, table: TableInfo) -> None:
        self._by_token[table.token] = table
        self._by_token.move_to_end(table.token)
        self._by_match[table.match_id] = table
        while len(self._by_token) > TABLES_KEPT:
            _token, old = self._by_token.popitem(last=False)
            self._by_match.pop(old.match_id, None)

    async def table_by_token(self, token: str) -> TableInfo | None:
        """The table whose link carries ``token``, or None."""
        return await self._kept_or_read(self._by_token.get(token), repo.table_by_token, token)

    async def table_of(self, match_id: str) -> TableInfo | None:
        """The table of the match ``match_id``, or None (a bot match or a quick game)."""
        return await self._kept_or_read(self._by_match.get(match_id), repo.table_of_match,
                                        match_id)

    async def _kept_or_read(
        self, kept: TableInfo | None,
        read: Callable[[AsyncSession, str], Awaitable[TableRow | None]], key: str,
    ) -> TableInfo | None:
        """``kept`` (marked as just used), or the table ``read`` finds by ``key``, kept."""
        if kept is not None:
            self._by_token.move_to_end(kept.token)
            return kept
        async with self._sessions() as session:
            row = await read(session, key)
        if row is None:
            return None
        table = TableInfo.of(row)
        self._keep(table)
        return table

    async def table(self, token: str) -> tuple[str, bool]:
        """The match id behind a table token and whether the table has a password."""
        table = await self.table_by_token(token)
        if table is None:
            raise NotFound(token)
        return table.match_id, table.password_hash is not None

    async def join_table(
        self, token: str, user_id: int, nickname: str, password: str | None, *,
        registered: bool = False,
    ) -> tuple[str, int | None]:
        """Take the free seat of a table, closed or open (or watch it once both seats are
        taken, or once it was cancelled). The match starts here; it is dealt once both
        client seeds are in (:mod:`kva.service.play.seeds`).

        Returns the match id and the seat taken (None: a spectator, who may from now on watch
        the match even if it has a password). Raises :class:`WrongPassword` when the table has
        a password and ``password`` does not match (unless the visitor gave it before), and
        :class:`RatedOnly` when a rated table is still waiting and the joiner is not
        ``registered`` (guests play casual only).
        """
        table = await self.table_by_token(token)
        if table is None:
            raise NotFound(token)
        # whether they gave the password before: read only where a password matters
        granted: bool | None = None
        if table.password_hash is not None:
            granted = await self._granted(table.match_id, user_id)
        live = await self._store.fresh(table.match_id)
        seat = live.seat_of(user_id)
        if seat is not None:
            return live.id, seat
        if table.password_hash is not None and not granted and not (
            password and await verify_password(password, table.password_hash, "table")
        ):
            raise WrongPassword(token)
        if live.rated and not registered and live.status == "waiting":
            raise RatedOnly(token)
        if await self._seat(live.id, user_id, nickname):
            if table.kind == "open":  # the lobby lists open tables only
                await self.changed()
            return live.id, 1
        if live.private and granted is None:
            granted = await self._granted(live.id, user_id)
        if live.private and not granted:
            async with self._sessions() as session, session.begin():
                await repo.grant_watch(session, live.id, user_id)
        return live.id, None

    async def seat_player(self, match_id: str, user_id: int, nickname: str) -> bool:
        """Seat ``user_id`` in the free seat 1 of a waiting table and start the match (the
        change a join makes, on the match's owner); whether they sit there now."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            free = live.seats[1].user_id is None and live.seats[1].bot is None
            if not (free and live.status == "waiting" and live.seat_of(user_id) is None):
                return live.seat_of(user_id) == 1
            live.seats[1] = Seat(user_id, nickname)
            live.status = "active"
            await self._seeds.joined(live)  # dealt now if both client seeds are in
            live.created_at = utcnow().isoformat()
            await self._committer.commit(live, public(join_event(1)), seat1_user_id=user_id)
            return True

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        """Cancel a table still waiting for its second player, for its creator (seat 0).

        Returns False, changing nothing, when the table is no longer waiting (someone joined)
        or ``user_id`` did not open it. A cancelled match takes no moves and leaves lists.
        """
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            if live.status != "waiting" or live.seat_of(user_id) != 0:
                return False
            live.status = "cancelled"
            try:
                await self._committer.commit(live, public({"kind": "cancel", "p": 0}))
            except PlayError:
                return False
        await self.changed()
        return True

    async def _granted(self, match_id: str, user_id: int) -> bool:
        async with self._sessions() as session:
            return await repo.has_watch_grant(session, match_id, user_id)

    async def may_watch(self, live: LiveMatch, user_id: int | None) -> bool:
        """Whether ``user_id`` may watch ``live``: anyone may watch a public match; a private
        one (a password table) only its players and visitors who gave the password."""
        if not live.private or live.seat_of(user_id) is not None:
            return True
        if user_id is None:
            return False
        async with self._sessions() as session:
            return await repo.has_watch_grant(session, live.id, user_id)

    # ------------------------------------------------------------------ listeners
    async def changed(self) -> None:
        """Tell the listeners a waiting table was opened, taken or cancelled."""
        for listener in self.listeners:
            try:
                await listener()
            except Exception:  # the change is committed; a listener's failure is only logged
                log.exception("a table listener failed")
