"""Rematches at the service level: offer, accept (seats swapped, same settings), decline,
withdraw, a bot's instant yes, and every refusal changing nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from kva.service.cluster.broker import MemoryBroker
from kva.service.errors import PlayError
from kva.service.lobby.rematch import RematchService
from kva.service.play import PlayService, topic
from kva.storage.models import MatchRow, MatchSeat
from tests.helpers.community_help import finished_match, make_user
from tests.helpers.play import make_play


@pytest.fixture
async def services(database, sessions
                   ) -> AsyncIterator[tuple[PlayService, RematchService, MemoryBroker]]:
    broker = MemoryBroker()
    with ThreadPoolExecutor(max_workers=1) as pool:
        play = make_play(database, broker, bot_executor=pool)
        try:
            yield play, RematchService(sessions, broker, play), broker
        finally:
            await play.stop()


async def _matches_with(sessions, *user_ids: int) -> int:  # type: ignore[no-untyped-def]
    async with sessions() as session:
        return int(await session.scalar(select(func.count(MatchSeat.match_id.distinct()))
                                         .where(MatchSeat.user_id.in_(user_ids))))


async def test_offer_then_accept_starts_the_new_match_with_seats_swapped(
    sessions, services
) -> None:
    play, rematch, broker = services
    a, b = await make_user(sessions), await make_user(sessions)
    old = await finished_match(sessions, a, b, rated=True)
    sub = await broker.subscribe(topic(old.id))
    offered = await rematch.offer(old.id, a.id)
    assert offered == {"type": "rematch", "state": "offered", "by": 0, "match_id": None}
    assert (await sub.get())["broadcast"] == offered
    accepted = await rematch.accept(old.id, b.id)
    assert accepted["state"] == "accepted" and accepted["by"] == 0
    assert (await sub.get())["broadcast"] == accepted
    async with sessions() as session:
        new = await session.get(MatchRow, accepted["match_id"])
    assert new is not None and new.status == "active"
    assert new.seat_users() == [b.id, a.id]
    assert (new.target, new.bazaar, new.rated) == (old.target, old.bazaar, old.rated)
    assert new.record["players"] == [{"name": b.nickname}, {"name": a.nickname}]
    assert new.record["meta"]["rated"] is True
    info = await play.info(new.id, b.id)
    assert info.seat == 0 and info.status == "active"
    # Everything after the start is refused and starts nothing more.
    for act, user in ((rematch.accept, b), (rematch.offer, a), (rematch.decline, b),
                      (rematch.withdraw, a)):
        with pytest.raises(PlayError) as refused:
            await act(old.id, user.id)
        assert refused.value.code == "illegal"
    assert await _matches_with(sessions, a.id, b.id) == 2
    assert await rematch.status(old.id) == accepted
    await sub.close()


async def test_decline_and_withdraw_close_an_offer_and_a_new_offer_may_follow(
    sessions, services
) -> None:
    _play, rematch, _broker = services
    a, b = await make_user(sessions), await make_user(sessions, kind="guest")
    old = await finished_match(sessions, a, b, rated=False)
    assert (await rematch.status(old.id))["state"] == "none"
    await rematch.offer(old.id, a.id)
    with pytest.raises(PlayError):  # one's own offer cannot be accepted or declined
        await rematch.accept(old.id, a.id)
    with pytest.raises(PlayError):
        await rematch.decline(old.id, a.id)
    with pytest.raises(PlayError):  # nor withdrawn by the other player
        await rematch.withdraw(old.id, b.id)
    assert (await rematch.decline(old.id, b.id))["state"] == "declined"
    with pytest.raises(PlayError):
        await rematch.accept(old.id, b.id)
    assert (await rematch.offer(old.id, b.id)) == {
        "type": "rematch", "state": "offered", "by": 1, "match_id": None}
    assert (await rematch.offer(old.id, b.id))["by"] == 1  # offering twice: no change
    assert (await rematch.withdraw(old.id, b.id))["state"] == "withdrawn"
    with pytest.raises(PlayError):
        await rematch.accept(old.id, a.id)
    assert await _matches_with(sessions, a.id, b.id) == 1
    # Both offering: the second offer accepts the first.
    await rematch.offer(old.id, a.id)
    both = await rematch.offer(old.id, b.id)
    assert both["state"] == "accepted" and both["by"] == 0
    assert await _matches_with(sessions, a.id, b.id) == 2


async def test_a_bot_accepts_at_once_and_moves_when_it_is_its_turn(sessions, services) -> None:
    play, rematch, _broker = services
    me = await make_user(sessions, kind="guest")
    old = await finished_match(sessions, me, None, bots=(None, "easy"), rated=False)
    answer = await rematch.offer(old.id, me.id)
    assert answer["state"] == "accepted" and answer["by"] == 0
    async with sessions() as session:
        new = await session.get(MatchRow, answer["match_id"])
    assert (new.bot_at(0), new.user_at(1), new.user_at(0)) == ("easy", me.id, None)
    # Whoever opens, it becomes the human's turn: the bot plays when it has to.
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        state = await play.state_for(new.id, me.id)
        if state["view"]["turn"] == 1 and state["view"]["legal"]:
            break
        assert asyncio.get_running_loop().time() < deadline, state["view"]
        await asyncio.sleep(0.02)
    assert state["you"] == 1


async def test_refusals_for_spectators_unfinished_matches_and_unknown_ids(
    sessions, services
) -> None:
    play, rematch, _broker = services
    a, b, stranger = [await make_user(sessions) for _ in range(3)]
    old = await finished_match(sessions, a, b)
    with pytest.raises(PlayError) as refused:
        await rematch.offer(old.id, stranger.id)
    assert refused.value.code == "not_seated"
    with pytest.raises(PlayError):
        await rematch.offer(old.id, None)
    row = play.prepare_match([play_seat(a), play_seat(b)], 75, "draw")
    async with sessions() as session, session.begin():
        session.add(row)
    with pytest.raises(PlayError) as refused:
        await rematch.offer(row.id, a.id)
    assert refused.value.code == "illegal"
    from kva.service.errors import NotFound

    with pytest.raises(NotFound):
        await rematch.offer("nope", a.id)
    assert (await rematch.status(old.id))["state"] == "none"
    with pytest.raises(ValueError):
        await rematch.handle("rematch_maybe", old.id, a.id)


async def test_two_accepts_at_once_start_one_match(sessions, services) -> None:
    _play, rematch, _broker = services
    a, b = await make_user(sessions), await make_user(sessions)
    old = await finished_match(sessions, a, b)
    await rematch.offer(old.id, a.id)
    results = await asyncio.gather(rematch.accept(old.id, b.id), rematch.accept(old.id, b.id),
                                   return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == ["PlayError", "dict"]
    assert await _matches_with(sessions, a.id, b.id) == 2


def play_seat(user):  # type: ignore[no-untyped-def]
    from kva.service.play import Seat

    return Seat(user.id, user.nickname)
