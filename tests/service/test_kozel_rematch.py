"""A rematch of a Kozel table of three seats, two people and a bot: it starts only once both
people agreed (the bot agrees), with the same game and options and the seats moved one place
round the table; a decline ends the offer, and a withdrawal takes one's agreement back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from kva.service.cluster.broker import MemoryBroker
from kva.service.errors import PlayError
from kva.service.lobby.rematch import RematchService
from kva.service.play import PlayService, topic
from kva.storage.models import MatchRow
from tests.helpers.community_help import make_user
from tests.helpers.kozel_finished import finished_kozel_match
from tests.helpers.play import make_play


@pytest.fixture
async def services(database, sessions  # type: ignore[no-untyped-def]
                   ) -> AsyncIterator[tuple[PlayService, RematchService, MemoryBroker]]:
    broker = MemoryBroker()
    with ThreadPoolExecutor(max_workers=1) as pool:
        play = make_play(database, broker, bot_executor=pool)
        try:
            yield play, RematchService(sessions, broker, play), broker
        finally:
            await play.stop()


async def test_the_rematch_starts_when_both_people_agree_seats_moved_round(
    sessions, services,  # type: ignore[no-untyped-def]
) -> None:
    _play, rematch, broker = services
    a, b = await make_user(sessions), await make_user(sessions)
    old = await finished_kozel_match(sessions, [a, "easy", b])
    sub = await broker.subscribe(topic(old.id))
    assert await rematch.status(old.id) == {
        "type": "rematch", "state": "none", "by": None, "match_id": None, "agreed": []}
    offered = await rematch.offer(old.id, b.id)
    assert offered == {"type": "rematch", "state": "offered", "by": 2, "match_id": None,
                       "agreed": [2]}
    assert (await sub.get())["broadcast"] == offered
    assert await rematch.offer(old.id, b.id) == offered  # agreeing twice changes nothing
    with pytest.raises(PlayError):
        await rematch.decline(old.id, b.id)  # one who agreed withdraws, not declines
    accepted = await rematch.accept(old.id, a.id)
    assert accepted["state"] == "accepted" and accepted["agreed"] == [0, 2]
    assert (await sub.get())["broadcast"] == accepted
    async with sessions() as session:
        new = await session.get(MatchRow, accepted["match_id"])
    assert new is not None and new.status == "active" and new.game == "kozel"
    # one place round the table: old seat 1 (the bot) is seat 0, old seat 0 the last
    assert [(s.user_id, s.bot) for s in new.seats] == [(None, "easy"), (b.id, None),
                                                       (a.id, None)]
    assert new.record["meta"]["options"] == old.record["meta"]["options"]
    with pytest.raises(PlayError, match="started already"):
        await rematch.offer(old.id, a.id)


async def test_a_decline_ends_the_offer_and_a_withdrawal_takes_an_agreement_back(
    sessions, services,  # type: ignore[no-untyped-def]
) -> None:
    _play, rematch, _broker = services
    a, b, c = [await make_user(sessions) for _ in range(3)]
    old = await finished_kozel_match(sessions, [a, b, c])
    await rematch.offer(old.id, a.id)
    assert (await rematch.offer(old.id, b.id))["agreed"] == [0, 1]
    assert (await rematch.withdraw(old.id, b.id))["agreed"] == [0]
    declined = await rematch.decline(old.id, c.id)
    assert (declined["state"], declined["match_id"]) == ("declined", None)
    again = await rematch.offer(old.id, c.id)
    assert (again["state"], again["agreed"]) == ("offered", [2])
    assert (await rematch.withdraw(old.id, c.id))["state"] == "withdrawn"
    with pytest.raises(PlayError):
        await rematch.withdraw(old.id, c.id)


async def test_alone_with_bots_the_rematch_starts_at_once(
    sessions, services,  # type: ignore[no-untyped-def]
) -> None:
    _play, rematch, _broker = services
    me = await make_user(sessions)
    old = await finished_kozel_match(sessions, [me, "easy", "hard", "easy"])
    started = await rematch.offer(old.id, me.id)
    assert started["state"] == "accepted" and started["agreed"] == [0]
    async with sessions() as session:
        new = await session.get(MatchRow, started["match_id"])
    assert new is not None and new.seat_users() == [None, None, None, me.id]
