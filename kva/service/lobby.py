"""The lobby: open tables waiting for an opponent, listed live and joined in one click.

An open table is a waiting match with a ``tables`` row of kind ``open`` (closed tables, the
friend-by-link ones, are kind ``closed`` and never appear here, nor can they be joined through
the lobby). The list is read from the database, so every process shows the same tables; each
change (a table opened, taken or cancelled) publishes the new list on the broker topic
``lobby``, and each lobby connection passes it on, cut for its viewer (which table is theirs,
which they may join).

A rated open table is only joinable by a registered player: guests always play casual.

A table whose creator has left (no connection on any process for the disconnection grace
period) is cancelled by :class:`kva.service.sweeper.TableSweeper`; the sockets count their
users in :attr:`Lobby.attendance` for it.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.attendance import Attendance
from kva.service.broker import Broker
from kva.service.errors import NotFound
from kva.service.messages import LobbyTable
from kva.service.play import PlayService
from kva.service.play.clock import NO_CLOCK, clock_preset
from kva.storage import repo
from kva.storage import tables as table_store
from kva.storage.models import User

log = logging.getLogger(__name__)

#: The broker topic of lobby changes.
TOPIC = "lobby"
#: The most tables listed (the oldest first): enough for a lobby page, bounded for a message.
MAX_TABLES = 100
#: A rating deviation above this marks a rating as provisional ("1500?").
PROVISIONAL_RD = 110.0


class LobbyError(Exception):
    """A lobby action refused; ``code`` says why (``taken``, ``rated_only``, ``not_yours``)."""

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

    def for_viewer(self, user_id: int | None, registered: bool) -> LobbyTable:
        """This line for one viewer: public facts, whether it is theirs, whether they may join.

        The creator's user id is left out: the viewer only learns whether it is them."""
        mine = user_id is not None and user_id == self.creator_id
        return {"id": self.id, "creator": self.creator, "rating": self.rating,
                "provisional": self.provisional, "target": self.target, "bazaar": self.bazaar,
                "rated": self.rated, "created_at": self.created_at, "mine": mine,
                "stake": self.stake, "clock": self.clock,
                "can_join": not mine and (registered or not (self.rated or self.stake))}


class Lobby:
    """Lists the open tables and tells lobby viewers when the list changes."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], broker: Broker,
                 service: PlayService, attendance: Attendance | None = None) -> None:
        self._sessions = sessions
        self._broker = broker
        self._service = service
        #: Who has a socket (lobby or game page), on any process: the table sweeper asks it.
        self.attendance = attendance if attendance is not None else Attendance()

    async def tables(self) -> list[OpenTable]:
        """The open tables now, oldest first."""
        async with self._sessions() as session:
            found = await table_store.open_tables(session, MAX_TABLES)
        return [
            OpenTable(
                id=match.id, creator_id=user.id, creator=user.nickname,
                rating=round(user.rating), provisional=user.rating_deviation > PROVISIONAL_RD,
                target=match.target, bazaar=match.bazaar, rated=match.rated,
                created_at=match.created_at.isoformat(), stake=match.stake,
                clock=clock_preset(match.record),
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

    async def join(self, match_id: str, user: User, registered: bool) -> str:
        """Take the free seat of the open table ``match_id``; the match id.

        Raises NotFound (no such open table), LobbyError ``rated_only`` (a guest at a rated
        table) or ``taken`` (someone else sat down first, or it was cancelled).
        """
        async with self._sessions() as session:
            found = await table_store.open_table(session, match_id)
        if found is None:
            raise NotFound(match_id)
        table, match = found
        if match.seat0_user_id == user.id:
            return str(match.id)
        if match.rated and not registered:
            raise LobbyError("rated_only", "rated tables are for registered players")
        if match.status != "waiting":
            raise LobbyError("taken", "this table is no longer open")
        joined_id, seat = await self._service.join_table(
            table.token, user.id, user.nickname, None, registered=registered)
        if seat is None:
            raise LobbyError("taken", "someone else took this table")
        return joined_id

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
