"""Publish/subscribe between the play service and the connections, in one process or many.

One small interface, two implementations: :class:`MemoryBroker` (one process, the default) and
:class:`RedisBroker` (Redis pub/sub, so that several app instances sharing a database reach each
other's clients). Messages are JSON-serialisable dicts; a topic is a string like ``match:abc``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, cast

from kva.service.eager import run_eagerly

log = logging.getLogger(__name__)

#: What a subscription with a handler calls with each message (a socket's delivery).
Handler = Callable[[dict[str, Any]], Awaitable[None]]


class Subscription:
    """A stream of messages on one topic; iterate it, and ``close()`` it when done.

    Or, with a ``handler``, messages are not queued for an iterator: each is handed to the
    handler at once, run in the publisher's task up to its first wait
    (:func:`kva.service.eager.run_eagerly`). A match socket's delivery of a state (pick the
    viewer's text, send it) almost never waits, so a commit reaches its sockets with no task
    woken per socket, and no relay task waits between messages. A delivery that has to wait
    goes on in a task, and the messages that come meanwhile wait behind it, in order."""

    def __init__(self, topic: str, broker: _FanOut, handler: Handler | None = None) -> None:
        self.topic = topic
        self._broker = broker
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._handler = handler
        #: With a handler: messages that came while a delivery waited.
        self._backlog: deque[dict[str, Any]] = deque()
        #: With a handler: whether a delivery is under way, and its task once it waited.
        self._busy = False
        self._task: asyncio.Task[Any] | None = None

    def _deliver(self, message: dict[str, Any]) -> None:
        if self._handler is None:
            self._queue.put_nowait(message)
            return
        self._backlog.append(message)
        if self._busy:  # the delivery under way takes it, after what came before it
            return
        self._busy = True
        self._task = run_eagerly(self._deliver_backlog(self._handler))

    async def _deliver_backlog(self, handler: Handler) -> None:
        try:
            while self._backlog:
                message = self._backlog.popleft()
                try:
                    await handler(message)
                except Exception:
                    log.exception("a subscriber of %s failed on a message", self.topic)
        finally:
            self._busy = False
            self._task = None

    async def get(self) -> dict[str, Any]:
        """The next message (waits for one)."""
        return await self._queue.get()

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self._queue.get()

    async def close(self) -> None:
        """Stop receiving (a handler's delivery under way is cancelled)."""
        await self._broker._unsubscribe(self)
        self._backlog.clear()
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class Broker(Protocol):
    """What the service and the web shell need from a broker."""

    @property
    def url(self) -> str | None:
        """The Redis URL of the processes this broker joins, which the other parts they share
        (match leases) use too; None for a process alone, whose messages reach no other."""
        ...

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def publish(self, topic: str, message: dict[str, Any]) -> None: ...
    async def publish_local(self, topic: str, message: dict[str, Any]) -> None: ...
    async def subscribe(self, topic: str, handler: Handler | None = None) -> Subscription: ...


class _FanOut:
    """Local subscribers by topic: the part both brokers share."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscription]] = defaultdict(set)

    def _fan_out(self, topic: str, message: dict[str, Any]) -> None:
        for sub in list(self._subs.get(topic, ())):
            sub._deliver(message)

    async def publish_local(self, topic: str, message: dict[str, Any]) -> None:
        """Hand ``message`` to this process's subscribers of ``topic`` only (no other process
        gets it): the owner of a match that no other process watches publishes its states so
        (:mod:`kva.service.play.commit`)."""
        self._fan_out(topic, message)

    async def subscribe(self, topic: str, handler: Handler | None = None) -> Subscription:
        """A new subscription of ``topic``; once this returns, every message published on the
        topic afterwards, by any process, reaches it (with Redis: the ``SUBSCRIBE`` is
        confirmed): queued for iteration, or handed to ``handler`` (see
        :class:`Subscription`)."""
        sub = Subscription(topic, self, handler)
        first = not self._subs.get(topic)
        self._subs[topic].add(sub)
        if first:
            await self._first_subscriber(topic)
        else:
            await self._subscribed(topic)
        return sub

    async def _unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.topic)
        if subs is None or sub not in subs:
            return
        subs.discard(sub)
        if not subs:
            del self._subs[sub.topic]
            await self._last_unsubscribed(sub.topic)

    async def _first_subscriber(self, topic: str) -> None:
        """Hook: a topic got its first local subscriber."""

    async def _subscribed(self, topic: str) -> None:
        """Hook: a topic got another local subscriber (wait until the first one's is live)."""

    async def _last_unsubscribed(self, topic: str) -> None:
        """Hook: a topic lost its last local subscriber."""


class MemoryBroker(_FanOut):
    """In-process broker: publish hands the message to every local subscriber of the topic."""

    #: No other process hears this broker (see :attr:`Broker.url`).
    url: str | None = None

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        self._fan_out(topic, message)


class RedisBroker(_FanOut):
    """Redis pub/sub: one connection publishes, one listens to the topics local clients want.

    A message published here reaches this process's subscribers at once, in publish order (as
    with :class:`MemoryBroker`), and the other processes through one Redis ``PUBLISH``. Each
    message on Redis starts with its publisher's :attr:`origin`; since this process listens to
    the topics its own subscribers want, Redis sends it its own messages back, and those are
    dropped by the tag before any decoding. So a message costs one JSON encoding and one
    publish on its process, and one decoding on each other process with a subscriber of the
    topic (none elsewhere): the owner of a match whose sockets are all on it, as nginx routes
    them (docs/deployment.md), does not read back and decode every state it publishes.
    """

    #: What every channel's name starts with: ``kva:``, and the URL's database number when it
    #: is not 0 (``kva:3:``). Redis keeps keys per database but has one pub/sub space for all:
    #: two deployments (or two test runs) on one Redis, told apart by their database, would
    #: otherwise hear each other's messages on the topics they share.
    PREFIX = "kva:"
    #: Seconds a new subscription waits for Redis to confirm its ``SUBSCRIBE``.
    CONFIRM_S = 5.0
    #: Length of :attr:`origin`, the tag in front of every message on Redis.
    ORIGIN_LEN = 16

    def __init__(self, url: str) -> None:
        super().__init__()
        import redis.asyncio as redis

        #: The Redis URL (the play service keeps its match leases on the same Redis).
        self.url = url
        #: This broker's tag (hex, new at every start of the process): its messages on Redis
        #: start with it, and the ones that come back with it are its own echo.
        self.origin = secrets.token_hex(self.ORIGIN_LEN // 2)
        self._origin_bytes = self.origin.encode()
        self._redis = redis.from_url(url)
        database = int(self._redis.connection_pool.connection_kwargs.get("db") or 0)
        #: This broker's channel prefix (see :data:`PREFIX`).
        self.prefix = self.PREFIX if database == 0 else f"{self.PREFIX}{database}:"
        self._pubsub = self._redis.pubsub()
        self._reader: asyncio.Task[None] | None = None
        #: Channels whose ``SUBSCRIBE`` Redis has not confirmed yet → resolved when it has.
        self._confirming: dict[str, asyncio.Future[None]] = {}

    async def start(self) -> None:
        await self._redis.ping()
        # A placeholder channel, so the pubsub connection exists before the first real topic.
        await self._pubsub.subscribe(self.prefix + "_")
        self._reader = asyncio.create_task(self._read(), name="kva-redis-broker")

    async def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            # Typed in some redis releases and not in others: checked as Any either way.
            await cast(Any, self._pubsub).aclose()
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        """Hand ``message`` to the local subscribers of ``topic`` now, then to Redis for the
        other processes' (encoded once; an unserialisable message reaches no one). If Redis
        fails the local subscribers have it already, and the error is raised to the caller."""
        data = self.origin + json.dumps(message, ensure_ascii=False)
        self._fan_out(topic, message)
        await self._redis.publish(self.prefix + topic, data)

    async def _first_subscriber(self, topic: str) -> None:
        """Subscribe on Redis and wait for its confirmation: a caller that then asks another
        process for something (a match's owner, for its state) gets every message that
        process publishes afterwards. A ``SUBSCRIBE`` merely sent could reach Redis after
        the request, sent on another connection, and its answer."""
        channel = self.prefix + topic
        confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirming[channel] = confirmed
        try:
            await self._pubsub.subscribe(channel)
            await self._confirmed(confirmed, channel)
        finally:
            if self._confirming.get(channel) is confirmed:
                del self._confirming[channel]

    async def _subscribed(self, topic: str) -> None:
        confirmed = self._confirming.get(self.prefix + topic)
        if confirmed is not None:
            await self._confirmed(confirmed, self.prefix + topic)

    async def _confirmed(self, confirmed: asyncio.Future[None], channel: str) -> None:
        if self._reader is None:  # not started: nothing reads the confirmation
            return
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), self.CONFIRM_S)
        except TimeoutError:
            log.warning("Redis did not confirm the subscription of %s in time", channel)

    async def _last_unsubscribed(self, topic: str) -> None:
        with contextlib.suppress(Exception):
            await self._pubsub.unsubscribe(self.prefix + topic)

    async def _read(self) -> None:
        while True:
            try:  # blocks until a message comes (no timer armed and cancelled per message)
                item = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:  # a dropped connection: redis-py reconnects on the next call
                log.exception("redis broker read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if item is None:
                continue
            kind = item.get("type")
            if kind == "message":
                self._received(item["channel"], item["data"])
            elif kind == "subscribe":
                self._confirm(item["channel"])

    def _confirm(self, channel: bytes | str) -> None:
        """Redis confirmed a ``SUBSCRIBE``: the subscription waiting for it is live."""
        if isinstance(channel, bytes):
            channel = channel.decode()
        confirmed = self._confirming.get(channel)
        if confirmed is not None and not confirmed.done():
            confirmed.set_result(None)

    def _received(self, channel: bytes | str, data: bytes | str) -> None:
        """One message from Redis: dropped if it is this broker's own (delivered already, at
        publish time), else decoded once and handed to the local subscribers of its topic."""
        if isinstance(data, str):
            data = data.encode()
        if data[:self.ORIGIN_LEN] == self._origin_bytes:
            return
        if isinstance(channel, bytes):
            channel = channel.decode()
        try:
            message = json.loads(data[self.ORIGIN_LEN:])
        except (ValueError, TypeError):
            message = None
        if not isinstance(message, dict):
            log.warning("dropping a malformed broker message on %s", channel)
            return
        self._fan_out(channel[len(self.prefix):], message)


def make_broker(url: str | None) -> Broker:
    """The broker for ``url``: Redis for ``redis://``, in-memory for None or ``memory``."""
    if not url or url == "memory":
        return MemoryBroker()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisBroker(url)
    raise ValueError(f"unsupported broker URL {url!r} (expected redis://... or memory)")
