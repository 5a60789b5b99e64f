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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import AnyGame, live_play_of, new_client_seed
from kva.games import get as get_game
from kva.service.accounts.passwords import hash_password, verify_password
from kva.service.coins.stakes import CoinError, check_stake
from kva.service.errors import NotFound, PlayError, RatedOnly, WrongPassword
from kva.service.play import bot_moves as bots
from kva.service.play.clock import DEFAULT_CLOCK, NO_CLOCK, Clock, check_clock
from kva.service.play.commit import Committer, advance_clock, record_of
from kva.service.play.events import join_event, public
from kva.service.play.live import FairState, LiveMatch, LiveStore, Seat
from kva.service.play.seeds import Seeds
from kva.settings.clocks import PRESETS
from kva.settings.routing import new_match_id as new_match_id_default
from kva.status import MatchStatus
from kva.storage import coins_repo, repo
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


def other_seats(opponent: str, opponent_user: tuple[int, str] | None,
                seats: int = 2, seated: Sequence[Seat] = ()) -> list[Seat]:
    """Seats 1 and on of a new match of ``seats`` seats against ``opponent`` (see
    :meth:`Tables.create_match`): each the bot, each nobody yet (a table), the paired
    player ``opponent_user`` (a quick game for two), or ``seated`` as given (a quick game's
    table of more: the players grouped with the creator, then any bots they accepted)."""
    if opponent == "player" and seated:
        if len(seated) != seats - 1 or any((s.user_id is None) == (s.bot is None)
                                           for s in seated):
            raise ValueError("a quick game seats a user or a bot at every other seat")
        return list(seated)
    if opponent.startswith("bot:"):
        return [Seat(bot=opponent[4:]) for _ in range(1, seats)]
    if opponent in ("friend", "open"):
        return [Seat() for _ in range(1, seats)]
    if opponent == "player" and opponent_user is not None:
        if seats != 2:
            raise ValueError("a quick game is for two players")
        return [Seat(opponent_user[0], opponent_user[1])]
    raise ValueError(f"opponent must be {OPPONENTS}")


def checked_terms(
    rated: bool, opponent: str, password: str | None, stake: int, clock: str | None,
) -> tuple[int, str]:
    """The stake and clock preset of a new match against ``opponent``, checked with whether
    it is ``rated`` and its password (ValueError or :class:`~kva.service.coins.stakes.CoinError`
    says what is wrong; see :meth:`Tables.create_match`)."""
    if rated and opponent not in ("open", "player"):
        raise ValueError("only open tables and quick games can be rated")
    if password and len(password) > 128:
        raise ValueError("the password is too long")
    stake = check_stake(stake)
    if stake and opponent.startswith("bot:"):
        raise CoinError("bot_stake", "coin tables are person against person")
    clock = check_clock(clock, casual=not (rated or stake or opponent == "player"),
                        default=NO_CLOCK if opponent.startswith("bot:") else DEFAULT_CLOCK)
    return stake, clock


def stored_options(row: MatchRow) -> dict[str, Any]:
    """The options of the stored match ``row`` as a plain dict (its game's
    :meth:`~kva.games.Game.options_to_dict`): what a rematch is created with."""
    game = get_game(row.game)
    options = live_play_of(game).options_from_stored(row.target, row.bazaar, row.record)
    return game.options_to_dict(options)


def _seat_counts(game: AnyGame) -> str:
    """The seat counts ``game`` plays, in words for an error (``two``; ``2, 3 or 4``)."""
    if game.seats == (2,):
        return "two"
    counts = [str(n) for n in game.seats]
    return counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} or {counts[-1]}"


def _form_options(
    target: Any, bazaar: Any, options: Mapping[str, object] | None,
) -> Mapping[str, object]:
    """The options of a new match: ``options`` when given, else the site's table form (a
    Georgian table's ``target`` and ``bazaar``, each left to its default when not given)."""
    if options is not None:
        return options
    form: dict[str, object] = {}
    if target is not None:
        form["target"] = target
    if bazaar is not None:
        form["bazaar"] = bazaar
    return form


def _checked_rated(rated: object) -> bool:
    """``rated`` as a bool: True or False (anything else names the field, as a bad option
    does)."""
    if not isinstance(rated, bool):
        raise ValueError("rated: must be true or false")
    return rated


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
        seat: Callable[[str, int, str], Awaitable[int | None]] | None = None,
        adopt: Callable[[str], Awaitable[None]] | None = None,
        new_match_id: Callable[[], str] | None = None,
        clock_presets: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self._seeds = seeds
        self._sessions = sessions
        #: Draws the id of each new match (:func:`kva.settings.routing.match_ids_for` behind
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
        self, seats: list[Seat], game: AnyGame, options: Any, *, rated: bool = False,
        private: bool = False, clock: str = NO_CLOCK,
    ) -> tuple[LiveMatch, MatchRow]:
        """A new match of ``game`` with its ``options`` and its row (with its kva-fair/1
        inputs), not yet stored. With every seat taken it is active, and dealt once every
        client seed is in (at once for a server with no seed wait); with a seat empty it is a
        table waiting (undealt) for its players. ``clock``: its time control's preset (checked
        by the caller)."""
        if len(seats) not in game.seats or not seats[0].taken:
            raise ValueError(f"a match needs {_seat_counts(game)} seats, the first one taken")
        if any(s.user_id is not None and s.bot is not None for s in seats):
            raise ValueError("a seat is a user or a bot, not both")
        if any(s.bot is not None and s.bot not in bots.levels_of(game.name) for s in seats):
            raise ValueError("unknown bot level")
        if rated and game.rating_kind == "unrated":  # the ratings hook settles the others
            raise ValueError(f"matches of {game.name} are not rated")
        waiting = not all(s.taken for s in seats)
        users = [s.user_id for s in seats if s.user_id is not None]
        if not waiting and len(set(users)) != len(users):
            raise ValueError("a match needs two different players")
        started = utcnow()
        status = MatchStatus.WAITING if waiting else MatchStatus.ACTIVE
        live = LiveMatch(self.new_match_id(), game, options, rated, None, 1, status,
                         list(seats), started.isoformat(), private=private,
                         fair=FairState.new(seats),
                         clock=Clock.new(clock, self._committer.now_ms, self.clock_presets,
                                         seats=len(seats))
                         or Clock.first_move(self.first_move_s, self._committer.now_ms,
                                             seats=len(seats)))
        self._seeds.prepare(live)
        if live.clock is not None and live.match is not None:  # dealt now: its time runs
            advance_clock(live, live.clock, self._committer.now_ms(),
                          by=self._committer.process_id)
        fair = live.fair
        assert fair is not None
        target, bazaar = live.play.stored_columns(options)
        row = MatchRow(
            id=live.id, status=live.status, target=target, bazaar=bazaar,
            rated=rated, private=private, game=game.name, version=1,
            seats=[fair.seat_row(live.id, i, seat) for i, seat in enumerate(seats)],
            record=record_of(live), created_at=started, updated_at=started,
        )
        row.fair = fair.row(live.id)  # stored with the row, in the caller's transaction
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
        target: Any = None,
        bazaar: Any = None,
        password: str | None = None,
        *,
        rated: bool = False,
        opponent_user: tuple[int, str] | None = None,
        stake: int = 0,
        clock: str | None = None,
        game: str = "georgian",
        options: Mapping[str, object] | None = None,
        seats: int = 2,
        seated: Sequence[Seat] = (),
    ) -> tuple[str, str | None]:
        """Create a match; return its id and, for a table, the token of its link.

        ``opponent`` is ``bot:<level>``, ``friend`` (a closed table, by link, with an optional
        ``password``), ``open`` (an open table, listed in the lobby) or ``player``: the user
        ``opponent_user`` (id, nickname) a quick game paired with the creator, seated at once.
        Only open tables and quick games may be ``rated``; whether both players may play rated
        is the caller's check (guests may not). ``game`` names the game (:mod:`kva.games`) and
        ``options`` its options (:meth:`~kva.games.Game.parse_options`); without them, the
        site's table form's ``target`` and ``bazaar`` are the options. ValueError
        (:class:`~kva.games.BadOptions` for the options) names a bad setting. ``stake``: Domino
        Coin per player (person against person only; :mod:`kva.service.coins.wallets`), moved to
        the escrow when the match starts: here for a quick game (CoinError, nothing stored, if a
        player cannot cover it); a coin match is for two. ``seats``: how many seats the match
        has (among the game's :attr:`~kva.games.Game.seats`): the creator's, then each the
        bot's, or each free for a table's joiners. ``seated``: with ``player``, instead of
        ``opponent_user``, the quick game's other seats in order (each a user or a bot).
        ``clock``: the time control's preset (:data:`~kva.service.play.clock.CLOCK_CHOICES`;
        None: ``none`` against a bot, else ``standard``); ``none`` is refused (ValueError)
        for a rated match, a coin table and a quick game.
        """
        played = get_game(game)
        chosen = played.parse_options(_form_options(target, bazaar, options))
        rated = _checked_rated(rated)
        others = other_seats(opponent, opponent_user, seats, seated)
        stake, clock = checked_terms(rated, opponent, password, stake, clock)
        if stake and (seats != 2 or played.name != "georgian"):
            # The escrow settles a stake on one winner between two players: a two-seat Kozel
            # match may end with both players goats, and no winner.
            raise ValueError("a coin match is two players of Georgian domino")
        protected = opponent == "friend" and bool(password)
        live, row = self.new_match([Seat(creator_id, creator_name), *others], played, chosen,
                                   rated=rated, private=protected, clock=clock)
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
        self, seats: list[Seat], target: Any = None, bazaar: Any = None, *,
        rated: bool = False, private: bool = False, clock: str = NO_CLOCK,
        game: str = "georgian", options: Mapping[str, object] | None = None,
    ) -> MatchRow:
        """The row of a new active match between given seats (users or bots), not yet
        stored: the caller adds it in its own transaction, then calls :meth:`activate`.
        A rematch uses this to start the new match in the transaction that accepts it (with
        the same ``clock`` preset). The options are given as to :meth:`create_match`."""
        played = get_game(game)
        if len(seats) not in played.seats or any(
                (s.user_id is None) == (s.bot is None) for s in seats):
            raise ValueError(f"a match of {game} needs {played.seats} seats, each a user or a bot")
        _live, row = self.new_match(
            seats, played, played.parse_options(_form_options(target, bazaar, options)),
            rated=_checked_rated(rated), private=private, clock=clock)
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
        """Take the first free seat of a table, closed or open (or watch it once every seat
        is taken, or once it was cancelled). The match starts with the last seat taken; it
        is dealt once every client seed is in (:mod:`kva.service.play.seeds`).

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
        if live.rated and not registered and live.status == MatchStatus.WAITING:
            raise RatedOnly(token)
        seat = await self._seat(live.id, user_id, nickname)
        if seat is not None:
            if table.kind == "open":  # the lobby lists open tables only
                await self.changed()
            return live.id, seat
        if live.private and granted is None:
            granted = await self._granted(live.id, user_id)
        if live.private and not granted:
            async with self._sessions() as session, session.begin():
                await repo.grant_watch(session, live.id, user_id)
        return live.id, None

    async def seat_player(self, match_id: str, user_id: int, nickname: str) -> int | None:
        """Seat ``user_id`` in the first free seat of a waiting table, and start the match
        once no seat is free (the change a join makes, on the match's owner); the seat they
        sit in now (None: none was free for them)."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            already = live.seat_of(user_id)
            free = [i for i, s in enumerate(live.seats) if not s.taken]
            if already is not None or not free or live.status != MatchStatus.WAITING:
                return already
            seat = free[0]
            live.seats[seat] = Seat(user_id, nickname)
            if len(free) == 1:  # the last seat: the match starts
                live.status = MatchStatus.ACTIVE
                live.created_at = utcnow().isoformat()
            await self._seeds.joined(live)  # dealt now if every client seed is in
            await self._committer.commit(live, public(join_event(seat)),
                                         seated=(seat, user_id))
            return seat

    async def seat_bot(self, match_id: str, user_id: int, level: str) -> int | None:
        """Put a bot of ``level`` in the first free seat of a waiting table, for its creator
        (seat 0), and start the match once no seat is free; the bot's seat (None, changing
        nothing: the table is no longer waiting, has no free seat, is rated or has a coin
        stake, is not ``user_id``'s, or is of a game played by two only). A bot's seat gets
        its client seed from the server at once, as at a bot match's creation. ValueError:
        ``level`` is not one of the game's bot levels."""
        live = await self._store.fresh(match_id)
        if level not in bots.levels_of(live.game.name):
            raise ValueError("unknown bot level")
        if len(live.game.seats) == 1:  # a game for two only (Georgian): person against person
            return None
        async with self._sessions() as session:  # a stake is played person against person
            if await coins_repo.stake_of(session, match_id):
                return None
        async with live.lock:
            live = await self._store.fresh(match_id)
            free = [i for i, s in enumerate(live.seats) if not s.taken]
            if (live.status != MatchStatus.WAITING or not free or live.rated
                    or live.seat_of(user_id) != 0 or live.fair is None):
                return None
            seat = free[0]
            live.seats[seat] = Seat(bot=level)
            live.fair.client_seeds[seat] = new_client_seed()
            live.fair.seed_by[seat] = "server"
            values = {"bot": level, "client_seed": live.fair.client_seeds[seat],
                      "seed_by": "server"}
            if len(free) == 1:  # the last seat: the match starts
                live.status = MatchStatus.ACTIVE
                live.created_at = utcnow().isoformat()
            await self._seeds.joined(live)  # dealt now if every client seed is in
            await self._committer.commit(live, public(join_event(seat)),
                                         reseated=(seat, values))
        await self.changed()
        return seat

    async def leave_seat(self, match_id: str, user_id: int) -> bool:
        """Free the seat ``user_id`` took at a table still waiting for players (a joiner who
        leaves before the start; its creator cancels the table instead,
        :meth:`cancel_waiting`). Whether the seat was freed: False, changing nothing, when
        the match has started or ended, or ``user_id`` sits in no seat but the creator's."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            seat = live.seat_of(user_id)
            if live.status != MatchStatus.WAITING or seat is None or seat == 0:
                return False
            live.seats[seat] = Seat()
            if live.fair is not None:  # the next player chooses the seat's seed anew
                live.fair.client_seeds[seat] = None
                live.fair.seed_by[seat] = None
            values = {"user_id": None, "client_seed": None, "seed_by": None}
            await self._committer.commit(live, public({"kind": "leave", "p": seat}),
                                         reseated=(seat, values))
        await self.changed()
        return True

    async def cancel_waiting(self, match_id: str, user_id: int) -> bool:
        """Cancel a table still waiting for its second player, for its creator (seat 0).

        Returns False, changing nothing, when the table is no longer waiting (someone joined)
        or ``user_id`` did not open it. A cancelled match takes no moves and leaves lists.
        """
        live = await self._store.fresh(match_id)
        async with live.lock:
            live = await self._store.fresh(match_id)
            if live.status != MatchStatus.WAITING or live.seat_of(user_id) != 0:
                return False
            live.status = MatchStatus.CANCELLED
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
