"""Rematches: at the end of a match either player offers, the other accepts or declines, an
offer can be withdrawn, and accepting starts a new match with the same settings and the seats
swapped. A bot accepts at once.

A table of more than two seats (Kozel) waits for every person: each offers (or accepts, the
same thing there), the new match starts once every seat a person holds has agreed (bots
agree), and any of them declining ends the offer; one who agreed may withdraw, which ends it
once nobody is left agreeing. Its seats move one place round the table (seat 1 becomes seat
0, …, seat 0 the last), which at two seats is the swap; a pair's partners stay opposite.

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

from kva.service.cluster.broker import Broker
from kva.service.errors import NotFound, PlayError
from kva.service.messages import RematchMessage, RematchState
from kva.service.play import PlayService, Seat, topic
from kva.service.play.clock import DEFAULT_CLOCK, NO_CLOCK
from kva.service.play.tables import stored_options
from kva.status import MatchStatus
from kva.storage import rematches as rematch_store
from kva.storage import repo
from kva.storage.community import Rematch
from kva.storage.models import MatchRow, User

#: Client message types this service answers (docs/web-contract.md).
REMATCH_TYPES: tuple[str, ...] = (
    "rematch_offer", "rematch_accept", "rematch_decline", "rematch_withdraw")


def rematch_message(rm: Rematch | None, seats: int = 2) -> RematchMessage:
    """The ``rematch`` message every viewer gets: where the conversation stands (at a table of
    ``seats`` > 2 also who agreed)."""
    if seats > 2:
        agreed = _seats_in(rm.offered_by or 0 if rm is not None else 0, seats)
        message: RematchMessage = rematch_message(rm)
        message["by"] = agreed[0] if agreed else None
        message["agreed"] = agreed
        return message
    if rm is None:
        return {"type": "rematch", "state": "none", "by": None, "match_id": None}
    return {"type": "rematch", "state": cast(RematchState, rm.state), "by": rm.offered_by,
            "match_id": rm.new_match_id}


def _seats_in(mask: int, seats: int) -> list[int]:
    """The seats of a bitmask of seats, in order."""
    return [s for s in range(seats) if mask & (1 << s)]


def _people_mask(row: MatchRow) -> int:
    """The seats of ``row`` a person holds, as a bitmask."""
    return sum(1 << s.seat for s in row.seats if s.user_id is not None)


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
            rm = await rematch_store.get_rematch(session, match_id)
            seats = await rematch_store.seat_count(session, match_id)
        return rematch_message(rm, seats)

    async def _seated(self, match_id: str, user_id: int | None) -> tuple[MatchRow, int]:
        """The finished match and the asker's seat; PlayError says why not."""
        async with self._sessions() as session:
            row = await repo.get_match(session, match_id)
        if row is None:
            raise NotFound(match_id)
        seat = row.seat_of(user_id)
        if seat is None:
            raise PlayError("not_seated", "only the players can ask for a rematch")
        if row.status != MatchStatus.FINISHED:
            raise PlayError("illegal", "a rematch can be offered once the match is over")
        return row, seat

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
        if len(row.seats) > 2:
            return await self._agree(row, seat)
        opponent_bot = row.bot_at(1 - seat) is not None
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
                return await self._start(row, offered_by=seat, alone=True)
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
        if len(row.seats) > 2:
            return await self._agree(row, seat)
        return await self._start(row, offered_by=1 - seat, alone=row.bot_at(1 - seat) is not None)

    async def decline(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Decline the opponent's offer (at a larger table: end the offer the others agreed)."""
        row, seat = await self._seated(match_id, user_id)
        if len(row.seats) > 2:
            return await self._leave(row, seat, declining=True)
        return await self._answer(match_id, offered_by=1 - seat, state="declined",
                                  refusal="there is no rematch offer to decline")

    async def withdraw(self, match_id: str, user_id: int | None) -> RematchMessage:
        """Take one's own offer back (at a larger table: one's agreement)."""
        row, seat = await self._seated(match_id, user_id)
        if len(row.seats) > 2:
            return await self._leave(row, seat, declining=False)
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

    # ------------------------------------------------------------ more than two seats
    async def _agree(self, row: MatchRow, seat: int) -> RematchMessage:
        """``seat`` agrees to a rematch of a table of more than two seats: the offer stands
        with its agreement, or, the last person to agree, the new match starts."""
        bit, people = 1 << seat, _people_mask(row)
        for _attempt in range(3):
            async with self._sessions() as session:
                current = await rematch_store.get_rematch(session, row.id)
            if current is not None and current.state == "accepted":
                raise PlayError("illegal", "the rematch has started already")
            standing = current is not None and current.state == "offered"
            agreed = (current.offered_by or 0) if current is not None and standing else 0
            if agreed & bit:
                return rematch_message(current, len(row.seats))
            together = agreed | bit
            if together & people == people:  # the last person: bots agree, so it starts
                return await self._start(row, offered_by=agreed, alone=not standing,
                                         first=together)
            try:
                async with self._sessions() as session, session.begin():
                    if current is None:
                        await rematch_store.insert_rematch(session, row.id, state="offered",
                                                           offered_by=together)
                        changed = True
                    elif standing:
                        changed = await rematch_store.agree_to_offer(session, row.id, agreed,
                                                                     together)
                    else:
                        changed = await rematch_store.offer_again(
                            session, row.id, together, ("declined", "withdrawn"))
            except IntegrityError:  # another seat agreed at the same moment: look again
                continue
            if changed:
                return await self._announce(row.id)
        raise PlayError("stale", "the rematch changed meanwhile")

    async def _leave(self, row: MatchRow, seat: int, *, declining: bool) -> RematchMessage:
        """``seat`` declines the standing offer (one who has not agreed), or withdraws its
        agreement (one who has), at a table of more than two seats."""
        bit = 1 << seat
        for _attempt in range(3):
            async with self._sessions() as session:
                current = await rematch_store.get_rematch(session, row.id)
            agreed = (current.offered_by or 0) if current is not None \
                and current.state == "offered" else 0
            if declining and (not agreed or agreed & bit):
                raise PlayError("illegal", "there is no rematch offer to decline")
            if not declining and not agreed & bit:
                raise PlayError("illegal", "you have no rematch offer to withdraw")
            left = agreed & ~bit
            async with self._sessions() as session, session.begin():
                if declining or not left:
                    changed = await rematch_store.answer_offer(
                        session, row.id, agreed, "declined" if declining else "withdrawn")
                else:
                    changed = await rematch_store.agree_to_offer(session, row.id, agreed, left)
            if changed:
                return await self._announce(row.id)
        raise PlayError("stale", "the rematch changed meanwhile")

    # ------------------------------------------------------------------ starting
    async def _start(self, row: MatchRow, *, offered_by: int, alone: bool,
                     first: int | None = None) -> RematchMessage:
        """Create the new match and mark the rematch accepted, in one transaction; refused
        (nothing created) unless an offer by ``offered_by`` stands, or nobody else had to
        agree (``alone``: the others are bots; then the row is written accepted by ``first``,
        else ``offered_by``)."""
        async with self._sessions() as session:
            users = {u.id: u for u in await _users(session, row)}
        old = [Seat(s.user_id, _nick(users, s.user_id), s.bot) for s in row.seats]
        # the same clock; a match from before clocks gets one if it was rated or for coins
        clock = ((row.record.get("meta") or {}).get("clock") or {}).get(
            "preset", DEFAULT_CLOCK if row.rated or row.stake else NO_CLOCK)
        # one place round the table: at two seats, the seats swapped
        new_row = self._play.prepare_match(old[1:] + old[:1], rated=row.rated,
                                           private=row.private, clock=str(clock),
                                           game=row.game, options=stored_options(row))
        try:
            async with self._sessions() as session, session.begin():
                await rematch_store.add_match(session, new_row)
                if row.private:  # whoever may watch this match may watch its rematch
                    await repo.copy_watch_grants(session, row.id, new_row.id)
                if alone:
                    await rematch_store.insert_rematch(
                        session, row.id, state="accepted",
                        offered_by=offered_by if first is None else first,
                        new_match_id=new_row.id)
                elif not await rematch_store.answer_offer(session, row.id, offered_by,
                                                          "accepted", new_row.id, agreed=first):
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
    return [u for u in [await repo.get_user(session, uid) for uid in row.seated_users()]
            if u is not None]


def _nick(users: dict[int, User], user_id: int | None) -> str | None:
    return users[user_id].nickname if user_id is not None and user_id in users else None

