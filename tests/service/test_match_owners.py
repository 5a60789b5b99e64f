"""One owner per live match across processes (issue 14, item 3): two play services on one
database and one Redis, as two processes would be. The process that creates a match holds its
lease; changes asked of the other are forwarded to it and answered with the same errors; a
finished match gives its lease up; an owner that dies without releasing is taken over once its
lease runs out, from the journal, with no committed action lost and none applied twice.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.rules import verify_record
from kva.service import PlayError
from kva.service.play import PlayService, topic
from kva.service.play.scheduler import TimerKind
from kva.storage import repo
from kva.storage.db import Database
from kva.storage.models import MatchAction
from tests.helpers.community_help import make_user
from tests.helpers.owners_help import Cluster, lease_router, running_cluster
from tests.helpers.play import make_play


@pytest.fixture
async def cluster(database: Database, sessions: async_sessionmaker) -> AsyncIterator[Cluster]:
    async with running_cluster(database) as c:
        yield c


async def _new_match(sessions: async_sessionmaker, play: PlayService) -> tuple[str, list[int]]:
    a = await make_user(sessions, kind="guest")
    b = await make_user(sessions, kind="guest")
    match_id, _ = await play.create_match(a.id, a.nickname, "player", 75, "draw",
                                          opponent_user=(b.id, b.nickname))
    return match_id, [a.id, b.id]


async def _position(sessions: async_sessionmaker, play: PlayService, match_id: str,
                    ids: list[int]) -> tuple[int, int, list[Any]]:
    """Whose turn (user id), the version, and the legal actions, as stored now (what a
    client on any process is shown)."""
    for _ in range(200):
        state = await play.state_for(match_id, ids[0])
        view = state["view"]
        if view["turn"] is not None or view["over"]:
            break
        await asyncio.sleep(0.01)
    turn = view["turn"]
    assert turn is not None, view
    mover = await play.state_for(match_id, ids[turn])
    return ids[turn], mover["version"], mover["view"]["legal"]


async def _journal(sessions: async_sessionmaker, match_id: str) -> list[int]:
    async with sessions() as session:
        return list(await session.scalars(
            select(MatchAction.seq).where(MatchAction.match_id == match_id)
            .order_by(MatchAction.seq)))


async def _finished_record(sessions: async_sessionmaker, match_id: str) -> dict[str, Any]:
    async with sessions() as session:
        row = await repo.get_match(session, match_id)
    assert row is not None and row.status == "finished", row and row.status
    verify_record(row.record)
    return row.record


def test_one_process_alone_has_no_owners(database: Database, sessions: async_sessionmaker) -> None:
    play = make_play(database)
    assert play.owners is None  # the embedded default: every change made here, no extra hop


class _Socket:
    """A socket as the service's watchers see it."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat


async def test_actions_at_the_other_process_are_forwarded_to_the_owner(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    owner, other = await cluster.process(), await cluster.process()
    assert owner.owners is not None and other.owners is not None
    match_id, ids = await _new_match(sessions, owner)
    assert await cluster.lease(match_id) == owner.owners.me  # the creator holds the lease
    # A socket on each process: the owner's keeps the match there; the other process's
    # subscribes, says hello (the owner notes the remote watch and publishes to Redis).
    owner.watchers.add(match_id, _Socket(0))
    other.watchers.add(match_id, _Socket(None))
    sub = await other._broker.subscribe(topic(match_id))
    await other.state_for(match_id, None)
    assert await cluster.lease(match_id) == owner.owners.me

    # The errors come back with the codes a local call raises.
    user, version, legal = await _position(sessions, other, match_id, ids)
    with pytest.raises(PlayError) as refused:
        await other.act(match_id, user, version - 1, legal[0])
    assert refused.value.code == "stale"
    with pytest.raises(PlayError) as refused:
        await other.act(match_id, ids[1] if user == ids[0] else ids[0], version, legal[0])
    assert refused.value.code == "not_your_turn"

    rng = random.Random(4)
    moves = 0
    while True:
        user, version, legal = await _position(sessions, other, match_id, ids)
        await other.act(match_id, user, version, rng.choice(legal))
        moves += 1
        if owner._live[match_id].match.over:  # type: ignore[union-attr]
            break
        if moves == 10:  # a resignation is forwarded too, and ends the match
            await other.resign(match_id, user)
            moves += 1
            break
    assert other.owners.forwarded == owner.owners.served >= moves
    assert owner.owners.forwarded == 0
    assert not other.timers.has(match_id, TimerKind.TURN)  # the other one schedules nothing
    record = await _finished_record(sessions, match_id)
    assert record["hands"][0]["moves"]
    # Only the owner built states: each version published once, in order, none missing.
    versions = []
    while not sub._queue.empty():
        message = sub._queue.get_nowait()
        if "states" in message:
            versions.append(message["version"])
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert versions[-1] == owner._live[match_id].version
    await sub.close()
    for _ in range(100):  # the finished match gave its lease up
        if await cluster.lease(match_id) is None:
            break
        await asyncio.sleep(0.02)
    assert await cluster.lease(match_id) is None
    # the owner noted while forwarding is believed one lease life (1 s here), then forgotten
    await asyncio.sleep(1.0)
    await other.owners.renew()
    assert match_id not in other.owners._known


async def test_a_dead_owner_is_taken_over_with_nothing_lost_or_applied_twice(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    owner, other = await cluster.process(), await cluster.process()
    assert owner.owners is not None and other.owners is not None
    match_id, ids = await _new_match(sessions, owner)
    rng = random.Random(9)
    for _ in range(6):  # some moves forwarded from the other process
        user, version, legal = await _position(sessions, other, match_id, ids)
        await other.act(match_id, user, version, rng.choice(legal))
    # The owner commits one more move itself, then dies before anyone hears of it (no
    # state published, no release, no renewal, no answers).
    sub = await other._broker.subscribe(topic(match_id))  # a socket on the other process
    await asyncio.sleep(0.05)
    user, version, legal = await _position(sessions, other, match_id, ids)

    async def dies_before_publishing(*_args: Any) -> None:
        return None

    owner._committer._publish = dies_before_publishing  # type: ignore[method-assign]
    await owner.act(match_id, user, version, legal[0])
    committed = version + 1
    owner.owners.abandon()
    await owner.timers.stop()
    assert await cluster.lease(match_id) == owner.owners.me  # still held, by a dead owner

    # A client that never saw that move sends it again: after the lease runs out the other
    # process takes the match over from the journal, and the retry is judged against it.
    with pytest.raises(PlayError) as refused:
        await other.act(match_id, user, version, legal[0])
    assert refused.value.code == "stale"  # committed once, not applied twice
    assert await cluster.lease(match_id) == other.owners.me
    assert other._live[match_id].version == committed  # nothing committed was lost
    # the new owner published the state the dead one never did: the sockets catch up
    published = []
    while not sub._queue.empty():
        published.append(sub._queue.get_nowait().get("version"))
    assert committed in published
    await sub.close()
    while not other._live[match_id].match.over:  # type: ignore[union-attr]
        user, version, legal = await _position(sessions, other, match_id, ids)
        await other.act(match_id, user, version, rng.choice(legal))
    record = await _finished_record(sessions, match_id)
    seqs = await _journal(sessions, match_id)
    assert len(seqs) == len(set(seqs))  # one journal row per version
    moves = sum(len(hand["moves"]) for hand in record["hands"])
    assert moves >= 8
    async with sessions() as session:
        row = await repo.get_match(session, match_id)
    assert row is not None and row.version == other._live[match_id].version


async def test_a_hello_takes_over_a_match_whose_owner_died(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """Nobody acts, a client reconnects to the other process: its resync takes the free lease,
    so the match's automatic turns and timers go on there."""
    owner, other = await cluster.process(ttl_ms=600), await cluster.process(ttl_ms=600)
    assert owner.owners is not None and other.owners is not None
    match_id, ids = await _new_match(sessions, owner)
    owner.owners.abandon()
    await asyncio.sleep(0.7)  # the lease runs out
    state = await other.state_for(match_id, ids[0])
    assert state["type"] == "state"
    assert await cluster.lease(match_id) == other.owners.me
    assert other.owners.owns(match_id)


async def test_a_slow_owner_is_waited_for_not_asked_twice(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """An owner slower than the request timeout but alive (it holds its lease) is waited for:
    the action is sent once and applied, not sent again and refused as ``stale`` (seen under
    load in ``kva bench server``)."""
    owner, other = await cluster.process(ttl_ms=3000), await cluster.process(ttl_ms=3000)
    assert owner.owners is not None and other.owners is not None
    match_id, ids = await _new_match(sessions, owner)
    router = lease_router(owner)
    serve = router.serve

    async def slow(op: str, mid: str, args: list[Any]) -> Any:
        await asyncio.sleep(0.8)  # the request times out (0.3 s) twice meanwhile
        return await serve(op, mid, args)

    router.serve = slow  # type: ignore[method-assign]
    user, version, legal = await _position(sessions, other, match_id, ids)
    await other.act(match_id, user, version, legal[0])
    assert owner.owners.served == 1
    assert owner._live[match_id].version == version + 1
