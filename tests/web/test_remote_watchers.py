"""Remote watcher leases (issue 14): the owner of a match builds the states of the viewer keys
watched on it and on the other processes that told it so, and sends them to Redis only while
another process watches. A process with sockets on a match it does not own subscribes to the
match's topic first, then says ``hello`` to the owner (which notes the watch before it answers
with the state), and renews the watch while its sockets stay; a watch not renewed expires; a
match taken over is sent to everyone until the watchers have found the new owner.

Two or three play services ("processes") on one database and one Redis, each with its own
broker, as in tests/service/test_match_owners.py; a socket is what kva.web.ws makes of one (a
subscription of the topic, a watcher of the play service, a ``hello`` answered by
``state_for``). One test runs two real app instances with WebSockets.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from kva.service.cluster.broker import RedisBroker, Subscription
from kva.service.play import PlayService, topic, viewer_key
from kva.service.play.owners import WATCH_EXPIRY
from kva.storage.db import Database
from kva.storage.models import User
from kva.web.services import services
from tests.helpers.owners_help import Cluster, lease_router, running_cluster
from tests.helpers.webhelp import ServerThread, Visitor


class RedisSpy:
    """What a broker sends to Redis on one match's channel: (version, viewer keys) of each
    state message; every other message on the channel is counted in :attr:`others`."""

    def __init__(self, broker: RedisBroker, match_id: str) -> None:
        self.sent: list[tuple[int, set[str]]] = []
        self.others = 0
        channel = broker.prefix + topic(match_id)
        real = broker._redis.publish

        async def publish(name: Any, data: Any, **kwargs: Any) -> Any:
            if name == channel:
                message = json.loads(data[RedisBroker.ORIGIN_LEN:])
                if "states" in message:
                    self.sent.append((message["version"], set(message["states"])))
                else:
                    self.others += 1
            return await real(name, data, **kwargs)

        broker._redis.publish = publish


#: The watch period of the test that lets a watch expire.
WATCH_S = 0.25


@pytest.fixture
async def cluster(database: Database, sessions: async_sessionmaker) -> AsyncIterator[Cluster]:
    async with running_cluster(database, watch_s=0.2) as c:
        yield c


class Viewer:
    """A socket as kva.web.ws makes one: it subscribes to the match's topic, becomes a watcher
    of its process, and says hello (``state_for``); it keeps the versions of the states
    relayed to its viewer key, and the keys of every state message it sees."""

    def __init__(self, play: PlayService, match_id: str, user_id: int | None,
                 seat: int | None) -> None:
        self.play = play
        self.match_id = match_id
        self.user_id = user_id
        self.seat = seat
        self.hello_version = -1
        self.versions: list[int] = []
        self.keys_seen: list[set[str]] = []
        self._sub: Subscription | None = None
        self._relay: asyncio.Task[None] | None = None

    async def open(self) -> Viewer:
        self._sub = await self.play._broker.subscribe(topic(self.match_id))
        self.play.watchers.add(self.match_id, self)
        self._relay = asyncio.create_task(self._run(self._sub))
        state = await self.play.state_for(self.match_id, self.user_id)
        self.seat = state["you"]
        self.hello_version = state["version"]
        return self

    async def _run(self, sub: Subscription) -> None:
        async for message in sub:
            states = message.get("states")
            if isinstance(states, dict):
                self.keys_seen.append(set(states))
                if viewer_key(self.seat) in states:
                    self.versions.append(message["version"])

    def missing(self, last: int) -> list[int]:
        """The versions after the hello's, up to ``last``, this socket was not sent."""
        return sorted(set(range(self.hello_version + 1, last + 1)) - set(self.versions))

    async def close(self) -> None:
        self.play.watchers.discard(self.match_id, self)
        if self._relay is not None:
            self._relay.cancel()
        if self._sub is not None:
            await self._sub.close()


async def _guest(sessions: async_sessionmaker) -> User:
    async with sessions() as session, session.begin():
        user = User(nickname="g" + secrets.token_hex(5), kind="guest")
        session.add(user)
    return user


async def _new_match(sessions: async_sessionmaker, play: PlayService) -> tuple[str, list[int]]:
    a, b = await _guest(sessions), await _guest(sessions)
    match_id, _ = await play.create_match(a.id, a.nickname, "player", 75, "draw",
                                          opponent_user=(b.id, b.nickname))
    return match_id, [a.id, b.id]


async def _move(owner: PlayService, match_id: str, ids: list[int], rng: random.Random) -> int:
    """One legal action of the player on turn, made on (and read from) the match's owner;
    the version it committed."""
    live = owner._live[match_id]
    for _ in range(200):
        match = live.match
        if match is not None and (match.over or match.turn is not None):
            break
        await asyncio.sleep(0.01)
    assert live.match is not None and not live.match.over
    user = ids[live.match.turn]
    state = await owner.state_for(match_id, user)
    await owner.act(match_id, user, state["version"], rng.choice(state["view"]["legal"]))
    return int(owner._live[match_id].version)


async def _settle() -> None:
    await asyncio.sleep(0.1)  # what Redis delivers to the other processes arrives


async def test_a_match_watched_only_on_its_owner_sends_nothing_to_redis(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """(a) Both players' sockets on the owner, none elsewhere: not one state goes to Redis,
    and only the keys watched ("0", "1") are built, not the spectator's."""
    owner, _other = await cluster.process(), await cluster.process()
    match_id, ids = await _new_match(sessions, owner)
    spy = RedisSpy(owner._broker, match_id)  # type: ignore[arg-type]
    players = [await Viewer(owner, match_id, ids[s], s).open() for s in (0, 1)]
    rng = random.Random(3)
    last = 0
    for _ in range(6):
        last = await _move(owner, match_id, ids, rng)
    await _settle()
    assert spy.sent == []
    for viewer in players:
        assert viewer.missing(last) == []
        assert viewer.keys_seen and all(keys == {"0", "1"} for keys in viewer.keys_seen)
    for viewer in players:
        await viewer.close()


async def test_a_remote_watch_stops_the_redis_publishes_once_it_expires(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """(c) A spectator on the other process makes the owner send the states (with the
    spectator's key) to Redis; once it has gone and its watch is not renewed, they stop."""
    # The watch is renewed every WATCH_S and expires after 3 × WATCH_S unrenewed. 0.1 s
    # once failed on a loaded machine (the two passes of the suite in parallel), most likely
    # a renewal late by 0.3 s expiring a watch still wanted; 0.25 s leaves 0.75 s of slack.
    owner = await cluster.process(watch_s=WATCH_S)
    other = await cluster.process(watch_s=WATCH_S)
    assert owner.owners is not None
    match_id, ids = await _new_match(sessions, owner)
    players = [await Viewer(owner, match_id, ids[s], s).open() for s in (0, 1)]
    spy = RedisSpy(owner._broker, match_id)  # type: ignore[arg-type]
    rng = random.Random(5)
    spectator = await Viewer(other, match_id, None, None).open()
    first = spectator.hello_version + 1
    last = 0
    for _ in range(3):
        last = await _move(owner, match_id, ids, rng)
    await asyncio.sleep(4 * WATCH_S)  # longer than the expiry, renewed meanwhile: still watched
    for _ in range(2):
        last = await _move(owner, match_id, ids, rng)
    await _settle()
    assert spectator.missing(last) == []
    assert [v for v, _ in spy.sent] == list(range(first, last + 1))
    assert all(keys == {"0", "1", "s"} for _, keys in spy.sent)

    await spectator.close()
    await asyncio.sleep(WATCH_EXPIRY * WATCH_S + 0.3)  # not renewed: expired
    before = len(spy.sent)
    for _ in range(3):
        last = await _move(owner, match_id, ids, rng)
    await _settle()
    assert len(spy.sent) == before
    assert all(keys == {"0", "1"} for keys in players[0].keys_seen[-3:])
    for viewer in players:
        await viewer.close()


async def test_remote_watchers_keep_getting_states_after_a_takeover(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """(d) The owner dies (kill -9: no release, no answers); a third process takes the match
    over. It sends everything to Redis at first, and the spectator's renewal finds it
    meanwhile: after that grace period the states still reach the spectator, built for its
    key alone."""
    owner = await cluster.process(ttl_ms=600, timeout=0.2)
    watcher = await cluster.process(ttl_ms=600, timeout=0.2)
    heir = await cluster.process(ttl_ms=600, timeout=0.2)
    assert owner.owners is not None and watcher.owners is not None and heir.owners is not None
    # the heir takes the match over, not it
    lease_router(watcher).sweep_candidates = lambda: []  # type: ignore[method-assign]
    match_id, ids = await _new_match(sessions, owner)
    seat0 = await Viewer(owner, match_id, ids[0], 0).open()  # the owner keeps the match
    spectator = await Viewer(watcher, match_id, None, None).open()
    rng = random.Random(8)
    last = await _move(owner, match_id, ids, rng)

    owner.owners.abandon()
    await owner.timers.stop()
    await lease_router(owner).watches.stop()  # dead: it renews nothing either
    for _ in range(100):  # the dead owner's lease runs out
        if await cluster.lease(match_id) is None:
            break
        await asyncio.sleep(0.02)
    names = {owner.owners.me: "owner", watcher.owners.me: "watcher", heir.owners.me: "heir"}
    taker = await heir.owners.ensure(match_id)
    assert names.get(taker, taker) == "heir"
    spy = RedisSpy(heir._broker, match_id)  # type: ignore[arg-type]
    for _ in range(2):  # within the grace period
        last = await _move(heir, match_id, ids, rng)
    await asyncio.sleep(3 * 0.2 + 0.2)  # the grace is over
    for _ in range(3):
        last = await _move(heir, match_id, ids, rng)
    await _settle()
    assert spectator.missing(last) == []
    assert spy.sent[-3:] == [(v, {"s"}) for v in range(last - 2, last + 1)]
    await spectator.close()
    await seat0.close()


async def test_a_match_handed_over_is_not_dealt_behind_its_new_owners_back(
    cluster: Cluster, sessions: async_sessionmaker
) -> None:
    """The process that hands a match over before both client seeds are in cancels its seed
    wait, as it does its turns: left armed, it chose the missing seeds and dealt the match
    behind the new owner's back, whose copy stayed undealt, so the players' own seeds and
    actions were refused as ``illegal`` (stalls in the two-process bench)."""
    creator, sockets = await cluster.process(), await cluster.process()
    assert sockets.owners is not None
    creator.seed_wait, sockets.seed_wait = 0.3, 30.0
    a, b = await _guest(sessions), await _guest(sessions)
    match_id, _ = await creator.create_match(a.id, a.nickname, "player", 75, "draw",
                                             opponent_user=(b.id, b.nickname))
    assert creator._live[match_id].match is None  # waiting for the client seeds
    viewer = await Viewer(sockets, match_id, a.id, 0).open()  # handed over at this hello
    assert await cluster.lease(match_id) == sockets.owners.me
    await asyncio.sleep(0.6)  # the creator's wait would be over
    for user in (a, b):
        await sockets.seed(match_id, user.id, secrets.token_hex(16))  # neither refused
    live = sockets._live[match_id]
    assert live.match is not None and live.fair is not None
    assert live.fair.seed_by == ["player", "player"]
    await _move(sockets, match_id, [a.id, b.id], random.Random(2))
    await viewer.close()


async def test_sockets_on_the_other_instance_get_every_state_from_their_hello(
    make_server: Callable[..., ServerThread], redis_url: str
) -> None:
    """(b) Two app instances. The players' sockets are on the owner; states go nowhere else
    (not built for spectators either). A spectator's socket opens on the other instance:
    from its hello on, every state reaches it, the very next move included, and the owner
    sends the states to Redis, with the spectator's key, only from then on."""
    first = make_server(broker_url=redis_url)
    second = make_server(broker_url=redis_url)
    async with Visitor(first.base_url) as host, Visitor(first.base_url) as guest, \
            Visitor(second.base_url) as watcher:
        match_id = await host.new_match("friend", target=75)
        token = await host.share_token(match_id)
        r = await guest.http.get(f"/t/{token}")  # the guest joins on the owner
        assert r.status_code == 303
        broker = services(first.app).broker
        assert isinstance(broker, RedisBroker)
        spy = RedisSpy(broker, match_id)
        a, b = await host.connect(match_id), await guest.connect(match_id)

        async def move() -> int:
            for _ in range(200):
                mover = a if a.my_turn() else b if b.my_turn() else None
                if mover is not None:
                    reply = await mover.play_first_legal()
                    assert reply["type"] == "state", reply
                    return int(reply["version"])
                await asyncio.sleep(0.02)
            raise AssertionError("nobody's turn")

        for _ in range(2):
            await move()
        await asyncio.sleep(0.2)
        assert spy.sent == []  # nobody elsewhere: nothing to Redis
        w = await watcher.connect(match_id)  # a spectator on the second instance
        hello = w.state["version"]
        assert w.state["you"] is None
        last = await move()  # the very next move
        await w.wait_state(last)
        for _ in range(4):
            last = await move()
        await w.wait_state(last)
        await a.wait_state(last)
        await b.wait_state(last)
        # Every version from the hello on, none missed (the server's own forced move may
        # already have followed the last one).
        got = [s["version"] for s in w.states]
        assert got == list(range(hello, got[-1] + 1)) and got[-1] >= last
        assert spy.sent and all(keys == {"0", "1", "s"} for _, keys in spy.sent)
        assert spy.sent[0][0] > hello - 1 and spy.sent[-1][0] >= last
        for sock in (a, b, w):
            await sock.close()
