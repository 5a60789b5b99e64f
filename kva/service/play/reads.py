"""Reading matches: what the game page renders, a viewer's state, records and match lists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.games import get as get_game
from kva.games import live_play_of
from kva.games.standing import kozel_limit, kozel_place, seat_scores
from kva.service.errors import NotFound
from kva.service.history import OtherSeat
from kva.service.play.commit import state_message
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.tables import TableInfo
from kva.status import MatchStatus
from kva.storage import repo
from kva.storage.models import MatchRow


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What the game page needs to render around the live view."""

    id: str
    status: MatchStatus
    target: int
    bazaar: str
    seat: int | None
    players: list[dict[str, Any] | None]
    table_token: str | None
    has_password: bool
    version: int
    #: The table is listed in the lobby (an open table), not a friend's closed one.
    open_table: bool = False
    #: The visitor may watch (or play) this match: false for a private match they neither
    #: play nor gave the password of.
    may_watch: bool = True
    #: The game played (:mod:`kva.games` name): which table the page renders.
    game: str = "georgian"


@dataclass(frozen=True, slots=True)
class Invite:
    """What a friend's table link says before the friend takes the seat: who set the table
    up and what match it is, so nobody accepts a match they did not expect."""

    inviter: str | None
    target: int
    bazaar: str
    rated: bool
    #: The clock preset (``none``: no clock).
    clock: str
    #: Whether a seat is still free (otherwise the link only lets one watch).
    open_seat: bool
    #: The game (:mod:`kva.games` name) and its options (the game's
    #: :meth:`~kva.games.Game.options_to_dict`: Kozel's fish rule and pair game).
    game: str = "georgian"
    options: dict[str, Any] = field(default_factory=dict)
    #: Each seat in turn order: the nickname of who sits there, the bot level, or None (free).
    seats: list[dict[str, Any] | None] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of a user's match list.

    ``opponent``/``opponent_bot`` name the next seat (of two, the opponent); ``others`` names
    every other seat in seat order, which a table of three or four lists whole. ``won`` says
    how a finished match went for this player: Georgian, whether they are its winner; Kozel,
    whether they are not a козёл (as the history counts it)."""

    id: str
    status: MatchStatus
    target: int
    opponent: str | None
    opponent_bot: str | None
    score: tuple[int, int]
    seat: int
    winner: int | None
    game: str = "georgian"
    others: tuple[OtherSeat, ...] = ()
    won: bool = False


def _next_seat(row: MatchRow, user_id: int) -> int:
    """The seat after ``user_id``'s in ``row``: the opponent a summary names (of two seats,
    the other one)."""
    return (row.seat_of_player(user_id) + 1) % len(row.seats)


class Reads:
    """The read side of the play service."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        store: LiveStore,
        may_watch: Callable[[LiveMatch, int | None], Awaitable[bool]],
        table_of: Callable[[str], Awaitable[TableInfo | None]] | None = None,
    ) -> None:
        self._sessions = sessions
        self._store = store
        self._may_watch = may_watch
        #: The table of a match (:meth:`Tables.table_of`, which remembers them).
        self._table_of = table_of if table_of is not None else self._read_table

    async def _read_table(self, match_id: str) -> TableInfo | None:
        async with self._sessions() as session:
            row = await repo.table_of_match(session, match_id)
        return TableInfo.of(row) if row is not None else None

    async def info(self, match_id: str, user_id: int | None) -> MatchInfo:
        """The facts the game page renders (raises :class:`NotFound`)."""
        live = await self._store.fresh(match_id)
        token, has_password, open_table = None, False, False
        seat = live.seat_of(user_id)
        if live.status == MatchStatus.WAITING and seat == 0:
            table = await self._table_of(match_id)
            if table is not None:
                token, has_password = table.token, table.password_hash is not None
                open_table = table.kind == "open"
        target, bazaar = live.play.stored_columns(live.options)
        return MatchInfo(
            id=live.id, status=live.status, target=target, bazaar=bazaar, seat=seat,
            players=[s.public() for s in live.seats],
            table_token=token, has_password=has_password, version=live.version,
            open_table=open_table, may_watch=await self._may_watch(live, user_id),
            game=live.game.name,
        )

    async def invite(self, match_id: str) -> Invite:
        """The facts a table's invite page names (raises :class:`NotFound`)."""
        live = await self._store.fresh(match_id)
        host = live.seats[0].public() or {}
        target, bazaar = live.play.stored_columns(live.options)
        return Invite(
            inviter=host.get("name"), target=target, bazaar=bazaar, rated=live.rated,
            clock=live.clock.preset if live.clock is not None else "none",
            open_seat=live.status == MatchStatus.WAITING, game=live.game.name,
            options=live.game.options_to_dict(live.options),
            seats=[seat.public() for seat in live.seats],
        )

    async def state_for(self, match_id: str, user_id: int | None) -> dict[str, Any]:
        """The ``state`` message for this viewer now, with no event (a resync)."""
        live = await self._store.fresh(match_id)
        async with live.lock:
            return state_message(live, live.seat_of(user_id), None)

    async def finished_record(self, match_id: str) -> dict[str, Any] | None:
        """The record of a finished match; None while it is in progress (raises NotFound)."""
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
        if row is None:
            raise NotFound(match_id)
        return row.record if row.status == MatchStatus.FINISHED else None

    async def matches_of(self, user_id: int) -> list[MatchSummary]:
        """The user's recent matches for the home page."""
        async with self._sessions() as session:
            rows = await repo.matches_of_user(session, user_id)
            seated = {u for r in rows for u in r.seat_users()} - {None, user_id}
            users = await repo.users_by_id(session, [u for u in seated if u is not None])
            # a match in progress: its checkpoint's score is the one at its last checkpoint;
            # the score now is in its journal
            records = {row.id: (await repo.current_record(
                           session, row, live_play_of(get_game(row.game)).apply_change))[0]
                       for row in rows if row.status == MatchStatus.ACTIVE}
        out = []
        for row in rows:
            seat, opposite = row.seat_of_player(user_id), _next_seat(row, user_id)
            others = tuple(OtherSeat(users[s.user_id].nickname if s.user_id in users else None,
                                     s.bot) for s in row.seats if s.seat != seat)
            other = row.user_at(opposite)
            name = users[other].nickname if other is not None and other in users else None
            bot = row.bot_at(opposite)
            # per seat: a Kozel record scores per side, which a pair shares
            record = records.get(row.id) or row.record
            score = seat_scores(record, len(row.seats))
            # a Kozel row keeps no target: its limit is in its record's options
            target = kozel_limit(record) if row.game == "kozel" else row.target
            finished = row.status == MatchStatus.FINISHED
            won = (not kozel_place(record, len(row.seats), seat)[1] if row.game == "kozel"
                   else row.winner == seat) if finished else False
            out.append(MatchSummary(row.id, MatchStatus(row.status), target, name, bot,
                                    (score[seat], score[opposite]), seat, row.winner,
                                    game=row.game, others=others, won=won))
        return out
