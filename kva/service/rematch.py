"""Rematches: at the end of a match either player offers, the other accepts or declines, an
offer can be withdrawn, and accepting starts a new match with the same settings and the seats
swapped. A bot accepts at once.

The conversation is one ``rematches`` row per finished match, changed only by guarded updates
(``... WHERE state = 'offered' AND offered_by = ...``), so two processes, or two clicks racing,
can never start two rematches. Every change is published on the finished match's broker topic
as ``{"broadcast": <rematch message>}``; the WebSocket relays it to every viewer, and both
players' pages go to the new match once it is accepted.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from kva.service.broker import Broker
from kva.service.errors import NotFound, PlayError
from kva.service.messages import RematchMessage, RematchState
from kva.service.play import PlayService, Seat, topic
from kva.service.play.clock import DEFAULT_CLOCK, NO_CLOCK
from kva.storage import rematches as rematch_store
from kva.storage import repo
from kva.storage.community import Rematch
from kva.storage.models import MatchRow, User

#: Client message types this service answers (docs/web-contract.md).
REMATCH_TYPES: tuple[str, ...] = (
    "rematch_offer", "rematch_accept", "rematch_decline", "rematch_withdraw")


def rematch_message(rm: Rematch | None) -> RematchMessage:
    """The ``rematch`` message every viewer gets: where the conversation stands."""
    if rm is None:
        return {"type": "rematch", "state": "none", "by": None, "match_id": None}
    return {"type": "rematch", "state": cast(RematchState, rm.state), "by": rm.offered_by,
            "match_id": rm.new_match_id}


class RematchService:
    """Offers, answers and the start of the new match."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], broker: Broker,
                 play: PlayService) -> None:
        self._sessions = sessions
        self._broker = broker
        self._play = play

    # ------------------------------------------------------------------ reading
    async def status(self, match_id: str) -> RematchMessage:
        """The current ``rematch`` message of a match (state ``none`` if nobody offered)."""
        async with self._sessions() as session:
            return rematch_message(await rematch_store.get_rematch(session, match_id))

    async def _seated(self, match_id: str, user_id: int | None) -> tuple[MatchRow, int]:
        """The finished match and the asker's seat; PlayError says why not."""
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
        if row is None:
            raise NotFound(match_id)
        seats = (row.seat0_user_id, row.seat1_user_id)
        if user_id is None or user_id not in seats:
            raise PlayError("not_seated", "only the players can ask for a rematch")
        if row.status != "finished":
            raise PlayError("illegal", "a rematch can be offered once the match is over")
        return row, seats.index(user_id)

    # ------------------------------------------------------------------ acting
    async def handle(self, kind: str, match_id: str, user_id: int | None) -> RematchMessage:
        """Apply a client's ``rematch_*`` message; the resulting ``rematch`` message."""
        if kind == "rematch_offer":
            return await self.offer(match_id, user_id)
        if kind == "rematch_accept":
            return await self.accept(match_id, user_id)
        if kind == "rematch_decline":
            return await self.decline(match_id, user_id)
        if kind == "rematch_withdraw":
            return await self.withdraw(match_id, user_id)
        raise ValueError(f"not a rematch message: {kind!r}")

    async def offer(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Offer a rematch. Against a bot it is accepted at once; if the opponent offered
        already, offering accepts theirs. Offering twice changes nothing."""
        row, seat = await self._seated(match_id, user_id)
        opponent_bot = (row.seat1_bot if seat == 0 else row.seat0_bot) is not None
        for _attempt in range(3):
            async with self._sessions() as session:
                current = await rematch_store.get_rematch(session, match_id)
            if current is not None and current.state == "accepted":
                raise PlayError("illegal", "the rematch has started already")
            if current is not None and current.state == "offered":
                if current.offered_by == seat:
                    return rematch_message(current)
                return await self.accept(match_id, user_id)
            if opponent_bot:
                return await self._start(row, seat, offered_by=seat)
            try:
                async with self._sessions() as session, session.begin():
                    if current is None:
                        await rematch_store.insert_rematch(session, match_id, state="offered",
                                                           offered_by=seat)
                        changed = True
                    else:
                        changed = await rematch_store.offer_again(
                            session, match_id, seat, ("declined", "withdrawn"))
            except IntegrityError:  # the opponent offered at the same moment: look again
                continue
            if changed:
                return await self._announce(match_id)
        raise PlayError("stale", "the rematch changed meanwhile")

    async def accept(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Accept the opponent's offer: start the new match (seats swapped)."""
        row, seat = await self._seated(match_id, user_id)
        return await self._start(row, seat, offered_by=1 - seat)

    async def decline(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Decline the opponent's offer."""
        _row, seat = await self._seated(match_id, user_id)
        return await self._answer(match_id, offered_by=1 - seat, state="declined",
                                  refusal="there is no rematch offer to decline")

    async def withdraw(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Take one's own offer back."""
        _row, seat = await self._seated(match_id, user_id)
        return await self._answer(match_id, offered_by=seat, state="withdrawn",
                                  refusal="you have no rematch offer to withdraw")

    async def _answer(
        self, match_id: str, *, offered_by: int, state: str, refusal: str
    ) -> RematchMessage:
        async with self._sessions() as session, session.begin():
            changed = await rematch_store.answer_offer(session, match_id, offered_by, state)
        if not changed:
            raise PlayError("illegal", refusal)
        return await self._announce(match_id)

    async def _start(self, row: MatchRow, seat: int, *, offered_by: int) -> RematchMessage:
        """Create the new match and mark the rematch accepted, in one transaction; refused
        (nothing created) unless an offer by ``offered_by`` stands, or the opponent is a bot."""
        opponent_bot = (row.seat1_bot if seat == 0 else row.seat0_bot) is not None
        async with self._sessions() as session:
            users = {u.id: u for u in await _users(session, row)}
        old = [
            Seat(row.seat0_user_id, _nick(users, row.seat0_user_id), row.seat0_bot),
            Seat(row.seat1_user_id, _nick(users, row.seat1_user_id), row.seat1_bot),
        ]
        # the same clock; a match from before clocks gets one if it was rated or for coins
        clock = ((row.record.get("meta") or {}).get("clock") or {}).get(
            "preset", DEFAULT_CLOCK if row.rated or row.stake else NO_CLOCK)
        new_row = self._play.prepare_match([old[1], old[0]], row.target, row.bazaar,
                                           rated=row.rated, private=row.private,
                                           clock=str(clock))
        try:
            async with self._sessions() as session, session.begin():
                await rematch_store.add_match(session, new_row)
                if row.private:  # whoever may watch this match may watch its rematch
                    await repo.copy_watch_grants(session, row.id, new_row.id)
                if opponent_bot:
                    await rematch_store.insert_rematch(session, row.id, state="accepted",
                                                       offered_by=offered_by,
                                                       new_match_id=new_row.id)
                elif not await rematch_store.answer_offer(session, row.id, offered_by,
                                                          "accepted", new_row.id):
                    raise PlayError("illegal", "there is no rematch offer to accept")
        except IntegrityError:  # a bot rematch started by a concurrent click
            raise PlayError("illegal", "the rematch has started already") from None
        await self._play.activate(new_row.id)
        return await self._announce(row.id)

    async def _announce(self, match_id: str) -> RematchMessage:
        """Publish the rematch's current state to every viewer of the match; return it."""
        message = await self.status(match_id)
        await self._broker.publish(topic(match_id), {"broadcast": dict(message)})
        return message


async def _users(session: AsyncSession, row: MatchRow) -> list[User]:
    ids = [u for u in (row.seat0_user_id, row.seat1_user_id) if u is not None]
    return [u for u in [await repo.get_user(session, uid) for uid in ids] if u is not None]


def _nick(users: dict[int, User], user_id: int | None) -> str | None:
    return users[user_id].nickname if user_id is not None and user_id in users else None

