"""Reading matches: what the game page renders, a viewer's state, records and match lists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.errors import NotFound
from kva.service.play.commit import state_message
from kva.service.play.live import LiveMatch, LiveStore
from kva.service.play.tables import TableInfo
from kva.storage import repo


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
    #: The visitor may watch (or play) this match: false for a private match they neither
    #: play nor gave the password of.
    may_watch: bool = True


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
        if live.status == "waiting" and seat == 0:
            table = await self._table_of(match_id)
            if table is not None:
                token, has_password = table.token, table.password_hash is not None
                open_table = table.kind == "open"
        return MatchInfo(
            id=live.id, status=live.status, target=live.settings.target,
            bazaar=live.settings.bazaar, seat=seat, players=[s.public() for s in live.seats],
            table_token=token, has_password=has_password, version=live.version,
            open_table=open_table, may_watch=await self._may_watch(live, user_id),
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
        return row.record if row.status == "finished" else None

    async def matches_of(self, user_id: int) -> list[MatchSummary]:
        """The user's recent matches for the home page."""
        async with self._sessions() as session:
            rows = await repo.matches_of_user(session, user_id)
            others = [
                (r.seat1_user_id if r.seat0_user_id == user_id else r.seat0_user_id) for r in rows
            ]
            users = await repo.users_by_id(session, [u for u in others if u is not None])
            # a match in progress: its checkpoint's score is the one at its last checkpoint;
            # the score now is in its journal
            scores = {row.id: (await repo.current_record(session, row))[0].get("score")
                      for row in rows if row.status == "active"}
        out = []
        for row, other in zip(rows, others, strict=True):
            seat = 0 if row.seat0_user_id == user_id else 1
            bot = row.seat1_bot if seat == 0 else row.seat0_bot
            name = users[other].nickname if other is not None and other in users else None
            score = scores.get(row.id) or row.record.get("score") or [0, 0]
            out.append(MatchSummary(row.id, row.status, row.target, name, bot,
                                    (score[seat], score[1 - seat]), seat, row.winner))
        return out
