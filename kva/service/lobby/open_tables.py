"""The lobby: open tables waiting for an opponent, listed live and joined in one click.

An open table is a waiting match with a ``tables`` row of kind ``open`` (closed tables, the
friend-by-link ones, are kind ``closed`` and never appear here, nor can they be joined through
the lobby). The list is read from the database, so every process shows the same tables; each
change (a table opened, taken or cancelled) publishes the new list on the broker topic
``lobby``, and each lobby connection passes it on, cut for its viewer (which table is theirs,
which they may join).

A rated open table is only joinable by a registered player: guests always play casual.

A table whose creator has left (no connection on any process for the disconnection grace
period) is cancelled by :class:`kva.service.lobby.sweeper.TableSweeper`; the sockets count their
users in :attr:`Lobby.attendance` for it.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.cluster.broker import Broker
from kva.service.errors import NotFound
from kva.service.lobby.attendance import Attendance, MemoryAttendance
from kva.service.messages import LobbySeat, LobbyTable
from kva.service.play import PlayService
from kva.service.play.clock import NO_CLOCK, clock_preset
from kva.service.play.tables import stored_options
from kva.status import MatchStatus
from kva.storage import repo
from kva.storage import tables as table_store
from kva.storage.models import MatchRow, User

log = logging.getLogger(__name__)

#: The broker topic of lobby changes.
TOPIC = "lobby"
#: The most tables listed (the oldest first): enough for a lobby page, bounded for a message.
MAX_TABLES = 100
#: A rating deviation above this marks a rating as provisional ("1500?").
PROVISIONAL_RD = 110.0


class LobbyError(Exception):
    """A lobby action refused; ``code`` says why (``taken``, ``rated_only``, ``not_yours``,
    ``started``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class OpenTable:
    """One line of the lobby, as everyone may see it."""

    id: str
    creator_id: int
    creator: str
    rating: int
    provisional: bool
    target: int
    bazaar: str
    rated: bool
    created_at: str
    #: Domino Coin per player (0: no stake); guests may not join a coin table.
    stake: int = 0
    #: The clock preset (``none``: no clock; docs/rules.md, "Time control").
    clock: str = NO_CLOCK
    #: The game played (:mod:`kva.games`) and its options (the game's
    #: :meth:`~kva.games.Game.options_to_dict`: Kozel's fish rule and pair game).
    game: str = "georgian"
    options: dict[str, Any] = field(default_factory=dict)
    #: Each seat in turn order: ``{"user_id", "name", "bot"}``, all None while it is free.
    seats: list[dict[str, Any]] = field(default_factory=list)

    def for_viewer(self, user_id: int | None, registered: bool) -> LobbyTable:
        """This line for one viewer: public facts, whether it is theirs, whether they sit at
        it, whether they may join.

        User ids are left out: the viewer only learns which seat, if any, is theirs."""
        mine = user_id is not None and user_id == self.creator_id
        seated = mine or (user_id is not None
                          and any(s.get("user_id") == user_id for s in self.seats))
        return {"id": self.id, "creator": self.creator, "rating": self.rating,
                "provisional": self.provisional, "target": self.target, "bazaar": self.bazaar,
                "rated": self.rated, "created_at": self.created_at, "mine": mine,
                "stake": self.stake, "clock": self.clock,
                "can_join": not seated and (registered or not (self.rated or self.stake)),
                "game": self.game, "options": dict(self.options), "seated": seated,
                "seats": [_seat_for(s, user_id) for s in self.seats]}


def _seat_for(seat: dict[str, Any], user_id: int | None) -> LobbySeat:
    """One seat of a lobby line for one viewer: who sits there (a nickname, a bot's level,
    or nobody) and whether it is the viewer."""
    name, bot = seat.get("name"), seat.get("bot")
    return {"taken": name is not None or bot is not None, "name": name, "bot": bot,
            "you": user_id is not None and seat.get("user_id") == user_id}


def _seats_of(match: MatchRow, users: dict[int, User]) -> list[dict[str, Any]]:
    """The seats of ``match`` as a lobby line keeps them (see :attr:`OpenTable.seats`)."""
    out: list[dict[str, Any]] = []
    for row in match.seats:
        user = users.get(row.user_id) if row.user_id is not None else None
        out.append({"user_id": row.user_id, "name": user.nickname if user else None,
                    "bot": row.bot})
    return out


class Lobby:
    """Lists the open tables and tells lobby viewers when the list changes."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], broker: Broker,
                 service: PlayService, attendance: Attendance | None = None) -> None:
        self._sessions = sessions
        self._broker = broker
        self._service = service
        #: Who has a socket (lobby or game page), on any process: the table sweeper asks it.
        self.attendance = attendance if attendance is not None else MemoryAttendance()

    async def tables(self) -> list[OpenTable]:
        """The open tables now, oldest first."""
        async with self._sessions() as session:
            found = await table_store.open_tables(session, MAX_TABLES)
            joiners = sorted({s.user_id for match, _user in found for s in match.seats
                              if s.user_id is not None})
            users = await repo.users_by_id(session, joiners)
        return [
            OpenTable(
                id=match.id, creator_id=user.id, creator=user.nickname,
                rating=round(user.rating), provisional=user.rating_deviation > PROVISIONAL_RD,
                target=match.target, bazaar=match.bazaar, rated=match.rated,
                created_at=match.created_at.isoformat(), stake=match.stake,
                clock=clock_preset(match.record), game=match.game,
                options=stored_options(match), seats=_seats_of(match, users),
            )
            for match, user in found
        ]

    async def changed(self) -> None:
        """Publish the current list on :data:`TOPIC` (errors are logged: the change itself is
        committed, and viewers get the list again on their next change or reconnect)."""
        try:
            tables = await self.tables()
            await self._broker.publish(TOPIC, {"tables": [asdict(t) for t in tables]})
        except Exception:
            log.exception("publishing the lobby failed")

    async def is_open(self, match_id: str) -> bool:
        """Whether ``match_id`` is an open table: asked before a visitor without a session
        gets a guest, so that joining an unknown table creates nobody."""
        async with self._sessions() as session:
            return await table_store.open_table(session, match_id) is not None

    async def join(self, match_id: str, user: User, registered: bool) -> str:
        """Take the first free seat of the open table ``match_id``; the match id (also when
        ``user`` sits there already: one seat per user per table).

        Raises NotFound (no such open table), LobbyError ``rated_only`` (a guest at a rated
        table) or ``taken`` (someone else sat down first, or it was cancelled).
        """
        async with self._sessions() as session:
            found = await table_store.open_table(session, match_id)
        if found is None:
            raise NotFound(match_id)
        table, match = found
        if user.id in match.seat_users():
            return str(match.id)
        if match.rated and not registered:
            raise LobbyError("rated_only", "rated tables are for registered players")
        if match.status != MatchStatus.WAITING:
            raise LobbyError("taken", "this table is no longer open")
        joined_id, seat = await self._service.join_table(
            table.token, user.id, user.nickname, None, registered=registered)
        if seat is None:
            raise LobbyError("taken", "someone else took this table")
        return joined_id

    async def leave(self, match_id: str, user_id: int) -> None:
        """Free the seat ``user_id`` took at an open or friend's table not started yet.

        Raises NotFound (no such table) or LobbyError ``started`` (the match has begun, or
        they sit in no seat they may leave: a creator cancels instead)."""
        async with self._sessions() as session:
            table = await repo.table_of_match(session, match_id)
        if table is None:
            raise NotFound(match_id)
        if not await self._service.leave_seat(match_id, user_id):
            raise LobbyError("started", "this table has started, or you have no seat there")

    async def cancel(self, match_id: str, user_id: int) -> None:
        """Cancel ``user_id``'s own table (open, or a friend's closed one) while nobody has
        joined it.

        Raises NotFound (no such table), LobbyError ``not_yours`` or ``taken``."""
        async with self._sessions() as session:
            table = await repo.table_of_match(session, match_id)
        if table is None:
            raise NotFound(match_id)
        if table.created_by != user_id:
            raise LobbyError("not_yours", "only its creator may cancel a table")
        if not await self._service.cancel_waiting(match_id, user_id):
            raise LobbyError("taken", "someone already joined this table")


async def open_tables_of(sessions: async_sessionmaker[AsyncSession], user_id: int) -> int:
    """How many open tables of ``user_id`` wait in the lobby for a second player."""
    async with sessions() as session:
        return await table_store.waiting_open_tables_of(session, user_id)


def view_for(message: dict[str, Any], user_id: int | None,
             registered: bool) -> list[LobbyTable]:
    """A published lobby message cut for one viewer (see :meth:`OpenTable.for_viewer`)."""
    out = []
    for raw in message.get("tables", []):
        try:
            table = OpenTable(**raw)
        except TypeError:
            log.warning("dropping a malformed lobby entry")
            continue
        out.append(table.for_viewer(user_id, registered))
    return out
