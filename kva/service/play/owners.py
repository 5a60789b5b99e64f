"""Who serves each live match when several processes share Redis: one owner at a time.

A live match is served by the process holding its lease, the Redis key ``<prefix><match id>``
whose value is the owner's id (:attr:`Owners.me`, new at every process start). The lease is
taken with ``SET NX PX`` (by the process that creates or loads the match, or that needs it
once the key is gone), renewed by its owner every third of its life while it holds the match,
and released (compare-and-delete) when the match ends, when the match leaves the owner's
memory and when the owner stops. A process killed without releasing loses its leases when they
run out (:attr:`Owners.ttl_ms`); the next process that needs one of its matches takes it over
and loads it from the database (the journal is the truth).

Only the owner changes a match; the other processes forward the changes their sockets ask for
over the broker: a request on the owner's topic ``owner:<owner id>`` with a correlation id,
the command's kind, its match and its wire form (:mod:`kva.service.play.commands`), and the
reply on the asker's topic (the same :class:`~kva.service.errors.PlayError` codes as a local
call; a request that is not a command is refused with
:class:`~kva.service.play.commands.BadCommand` before anything runs). An owner that no longer
holds the lease answers ``moved`` and the asker looks again. An owner slower than
:attr:`Owners.timeout` is waited for as long as it holds its lease (it is alive: it renews it),
never asked twice; once its lease is gone (it died) the asker takes the match over and makes
the change itself. A change the dead owner committed before dying is in the journal, and the
retried request is judged against it (its version is behind: ``stale``), so nothing is applied
twice.

The lease also follows the match's sockets: a process whose socket says ``hello`` to a match
it does not own sends the owner a ``hello`` request, and an owner with no socket of the match
releases the lease (after the change in progress) for the asker to take (see
:mod:`kva.service.play.routing.handoff`; nginx routes a match's sockets to one process,
docs/deployment.md). An owner that keeps the match notes instead that the asker watches it
(the viewer keys of the asker's sockets, for :attr:`Owners.watch_expiry_s`, renewed every
:attr:`Owners.watch_s` with a ``watching`` request) and answers with the current state: the
owner sends a match's states to Redis only while another process watches it. These requests
are not counted in :attr:`Owners.forwarded` nor ``served``.

This is the lichess split: a socket may be on any process (the "socket tier"), the match's
state lives in exactly one (its "round" owner); states travel on the match topic, which every
process's sockets relay.

This module is the protocol alone: what a process does with a lease it takes or loses, and with
a request it is sent, is its :class:`LeaseEvents` (the lease router of
:mod:`kva.service.play.routing`), given to :meth:`Owners.start`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Iterable
from typing import Any, Protocol

from kva.service.cluster.broker import Broker, Subscription
from kva.service.errors import NotFound, PlayError
from kva.service.play.commands import BadCommand

log = logging.getLogger(__name__)

#: The default key prefix of the leases.
PREFIX = "kva:own:"
#: The default life of a lease (ms); its owner renews it every third of that.
TTL_MS = 5000
#: Seconds a forwarded request waits for its reply before the lease is looked at again (an
#: owner still holding it is waited for again; one that lost it or died is not).
TIMEOUT = 2.0

# KEYS: the lease. ARGV: me, ttl (ms). Take the lease if it is free (SET NX PX) or renew it
# if it is ours; the holder either way.
_TAKE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return ARGV[1] end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return holder
"""
# KEYS: leases. ARGV: me, ttl (ms). Renew each lease still ours: 1, else 0, per key.
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
# KEYS: leases. ARGV: me. Delete each lease that is still ours.
_RELEASE = """
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then n = n + redis.call('DEL', key) end
end
return n
"""
#: Leases per script call (renewal and release run in batches).
BATCH = 500
#: Seconds between a process's renewals of its remote watches (the matches its sockets watch
#: and another process owns); an owner believes a watch for :data:`WATCH_EXPIRY` renewals.
WATCH_S = 2.0
WATCH_EXPIRY = 3
#: Requests that change nothing: a lease asked for, a remote watch told (not counted in
#: :attr:`Owners.forwarded` nor :attr:`Owners.served`).
NOT_CHANGES = frozenset({"handoff", "hello", "watching"})


class Moved(Exception):
    """The process asked is not (or no longer) the owner: look the owner up again."""


class Unanswered(Exception):
    """The owner did not answer a forwarded request in time."""


class LeaseEvents(Protocol):
    """What this process does as leases change hands and requests arrive."""

    async def serve(self, op: str, match_id: str, body: object) -> Any:
        """Run a request forwarded to this process (raise :class:`Moved` if it is not the
        owner; :class:`BadCommand` if ``body`` is not what ``op`` carries); its result is the
        reply."""

    async def taken(self, match_id: str) -> None:
        """This process newly took the lease of ``match_id``: called (awaited) before anyone
        here uses the match, to load it from the database and resume its turns and timers."""

    def lost(self, match_id: str) -> None:
        """The lease of ``match_id`` turned out to be lost (another process holds it now)."""

    def sweep_candidates(self) -> Iterable[str]:
        """The matches the periodic sweep takes over when their lease is free (the ones
        watched from this process and not known to be over)."""


class Owners:
    """This process's leases, and the request channel to the owners of the others' matches."""

    def __init__(self, url: str, broker: Broker, *, prefix: str = PREFIX, ttl_ms: int = TTL_MS,
                 timeout: float = TIMEOUT, watch_s: float = WATCH_S) -> None:
        import redis.asyncio as redis

        self._redis: Any = redis.from_url(url, decode_responses=True)
        self._broker = broker
        self.prefix = prefix
        self.ttl_ms = ttl_ms
        self.timeout = timeout
        #: Seconds between renewals of this process's remote watches; an owner believes one
        #: for :attr:`watch_expiry_s`.
        self.watch_s = watch_s
        #: This process's owner id: new at every start, so a restarted process owns nothing.
        self.me = secrets.token_hex(8)
        #: Matches held here → until when (monotonic) the lease is surely still ours.
        self._held: dict[str, float] = {}
        #: Matches owned elsewhere → (owner, until when (monotonic) to believe it).
        self._known: dict[str, tuple[str, float]] = {}
        self._taking: dict[str, asyncio.Task[str]] = {}
        #: Set by :meth:`abandon`: this process is dead and takes no lease.
        self._abandoned = False
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._sub: Subscription | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._take_script = self._redis.register_script(_TAKE)
        self._renew_script = self._redis.register_script(_RENEW)
        self._release_script = self._redis.register_script(_RELEASE)
        #: What this process does with leases and requests (given to :meth:`start`; until
        #: then a lease taken loads nothing and a request is answered ``moved``).
        self._events: LeaseEvents | None = None
        #: Forwarded requests sent (changes, not lease handoffs) and served (diagnostics,
        #: tests).
        self.forwarded = 0
        self.served = 0

    @property
    def watch_expiry_s(self) -> float:
        """How long an owner believes a remote watch it was told of (three renewals)."""
        return self.watch_s * WATCH_EXPIRY

    @property
    def _hold_s(self) -> float:
        """How long after a successful take or renewal the lease is surely ours (two thirds
        of its life: the renewal comes every third)."""
        return self.ttl_ms / 1000 * 2 / 3

    def key(self, match_id: str) -> str:
        return self.prefix + match_id

    # ------------------------------------------------------------------ lifecycle
    async def start(self, events: LeaseEvents) -> None:
        """Answer requests and renew leases from now on, telling ``events`` of them."""
        self._events = events
        self._sub = await self._broker.subscribe(self.topic(self.me))
        self._loops = [asyncio.create_task(self._listen(self._sub), name="kva-own-listen"),
                       asyncio.create_task(self._renew_loop(), name="kva-own-renew")]

    async def stop(self) -> None:
        """Stop renewing and answering, and release every lease held (other processes may
        take the matches at once)."""
        for task in [*self._loops, *self._tasks]:
            task.cancel()
        for task in [*self._loops, *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._loops.clear()
        if self._sub is not None:
            await self._sub.close()
            self._sub = None
        held, self._held = list(self._held), {}
        with contextlib.suppress(Exception):
            for i in range(0, len(held), BATCH):
                await self._release_script(keys=[self.key(m) for m in held[i:i + BATCH]],
                                           args=[self.me])
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    def abandon(self) -> None:
        """Stop at once without releasing anything (a process that dies: for tests). A dead
        process takes no lease either: whatever of it still runs in the test's event loop (a
        socket's timer, a late reply) must not win the match back from its heir."""
        for task in [*self._loops, *self._tasks]:
            task.cancel()
        self._loops.clear()
        self._held.clear()
        self._abandoned = True

    # ------------------------------------------------------------------ leases
    def owns(self, match_id: str) -> bool:
        """Whether this process surely holds the lease now (no Redis call)."""
        until = self._held.get(match_id)
        return until is not None and until > time.monotonic()

    def holds(self, match_id: str) -> bool:
        """Whether this process took the lease and has not lost nor released it since (it
        may be due for renewal: :meth:`owns` is the sure answer)."""
        return match_id in self._held

    def held(self) -> list[str]:
        return list(self._held)

    async def ensure(self, match_id: str) -> str:
        """The owner of ``match_id``: this process if it holds the lease or the lease was
        free (then it takes it, and :meth:`LeaseEvents.taken` has run), else the holder."""
        if self.owns(match_id):
            return self.me
        known = self._known.get(match_id)
        if known is not None and known[1] > time.monotonic():
            return known[0]
        task = self._taking.get(match_id)
        if task is None:
            task = asyncio.create_task(self._take(match_id), name=f"kva-own-take-{match_id}")
            self._taking[match_id] = task
            task.add_done_callback(lambda t: self._taking.pop(match_id, None))
        return await asyncio.shield(task)

    async def lookup(self, match_id: str) -> str | None:
        """The owner of ``match_id`` as noted, or read from Redis (None: nobody holds the
        lease); unlike :meth:`ensure`, a free lease is not taken."""
        if self.owns(match_id):
            return self.me
        now = time.monotonic()
        known = self._known.get(match_id)
        if known is not None and known[1] > now:
            return known[0]
        holder = await self.holder(match_id)
        if holder is not None and holder != self.me:
            self._known[match_id] = (holder, now + self.ttl_ms / 1000)
        return holder

    async def adopt(self, match_id: str) -> bool:
        """Take the lease of a match this process just created (its copy is the truth: no
        :meth:`LeaseEvents.taken`); whether it got it."""
        started = time.monotonic()
        holder = await self._take_script(keys=[self.key(match_id)],
                                         args=[self.me, self.ttl_ms])
        if holder == self.me:
            self._held[match_id] = started + self._hold_s
            self._known.pop(match_id, None)
            return True
        return False

    async def _take(self, match_id: str) -> str:
        if self._abandoned:
            raise RuntimeError(f"an abandoned process takes no lease (match {match_id})")
        started = time.monotonic()
        holder = str(await self._take_script(keys=[self.key(match_id)],
                                             args=[self.me, self.ttl_ms]))
        if holder != self.me:
            if match_id in self._held:
                self._lost(match_id)
            self._known[match_id] = (holder, started + self.ttl_ms / 1000)
            return holder
        newly = match_id not in self._held
        self._held[match_id] = started + self._hold_s
        self._known.pop(match_id, None)
        if newly and self._events is not None:
            try:
                await self._events.taken(match_id)
            except BaseException:
                await self.release(match_id)
                raise
        return self.me

    def forget(self, match_id: str) -> None:
        """Stop believing in the owner noted for ``match_id`` (it did not answer)."""
        self._known.pop(match_id, None)

    async def release(self, match_id: str) -> None:
        """Give the lease up (if it is still ours)."""
        if self._held.pop(match_id, None) is None:
            return
        try:
            await self._release_script(keys=[self.key(match_id)], args=[self.me])
        except Exception:  # it runs out by itself
            log.exception("releasing the lease of match %s failed", match_id)

    def release_soon(self, match_id: str) -> None:
        """:meth:`release` in the background (from synchronous code)."""
        if match_id in self._held:
            self._spawn(self.release(match_id), f"kva-own-release-{match_id}")

    async def holder(self, match_id: str) -> str | None:
        """Who holds the lease now (None: nobody)."""
        holder = await self._redis.get(self.key(match_id))
        return None if holder is None else str(holder)

    async def is_free(self, match_ids: list[str]) -> list[bool]:
        """Whether each lease is free (nobody holds it)."""
        if not match_ids:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.exists(self.key(match_id))
            found = await pipe.execute()
        return [not bool(n) for n in found]

    def _lost(self, match_id: str) -> None:
        self._held.pop(match_id, None)
        log.warning("lost the lease of match %s to another process", match_id)
        if self._events is not None:
            self._events.lost(match_id)

    async def renew(self) -> None:
        """Renew every lease held; drop the ones another process holds now, and the owners
        noted for other processes' matches once they are no longer believed."""
        now = time.monotonic()
        for match_id in [m for m, (_o, until) in self._known.items() if until <= now]:
            del self._known[match_id]
        held = list(self._held)
        for i in range(0, len(held), BATCH):
            batch = held[i:i + BATCH]
            started = time.monotonic()
            kept = await self._renew_script(keys=[self.key(m) for m in batch],
                                            args=[self.me, self.ttl_ms])
            for match_id, ok in zip(batch, kept, strict=True):
                if match_id not in self._held:
                    continue  # released meanwhile
                if ok:
                    self._held[match_id] = started + self._hold_s
                else:
                    self._lost(match_id)

    async def sweep(self) -> None:
        """Take over the free leases of the matches watched here (their owner died)."""
        if self._events is None:
            return
        candidates = [m for m in self._events.sweep_candidates() if m not in self._held]
        free = await self.is_free(candidates)
        for match_id, is_free in zip(candidates, free, strict=True):
            if is_free:
                self._known.pop(match_id, None)
                try:
                    await self.ensure(match_id)
                except NotFound:
                    pass
                except Exception:
                    log.exception("taking over match %s failed", match_id)

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self.ttl_ms / 1000 / 3)
            try:
                await self.renew()
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("renewing match leases failed")

    # ------------------------------------------------------------------ requests
    @staticmethod
    def topic(owner: str) -> str:
        return f"owner:{owner}"

    async def request(self, owner: str, op: str, match_id: str,
                      body: dict[str, object]) -> Any:
        """Ask ``owner`` to run ``op`` on ``match_id`` with ``body`` (a command's wire form,
        for a change); its result, or the error it raised (:class:`PlayError`,
        :class:`NotFound`, :class:`BadCommand`), :class:`Moved` or :class:`Unanswered`."""
        rid = next(self._ids)
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = waiter
        if op not in NOT_CHANGES:  # a lease asked for, a watch told: not changes forwarded
            self.forwarded += 1
        try:
            await self._broker.publish(self.topic(owner), {
                "q": rid, "from": self.me, "op": op, "m": match_id, "a": body})
            give_up = time.monotonic() + 3 * self.ttl_ms / 1000
            while True:
                try:
                    reply = await asyncio.wait_for(asyncio.shield(waiter), self.timeout)
                    break
                except TimeoutError:
                    # A slow owner that still holds the lease (it renews it: it is alive) is
                    # waited for, not asked twice; a dead one's lease runs out.
                    if (time.monotonic() > give_up
                            or await self.holder(match_id) != owner):
                        raise Unanswered(owner) from None
        finally:
            self._waiting.pop(rid, None)
            if not waiter.done():
                waiter.cancel()
        if "e" in reply:
            code, message = reply["e"]
            raise PlayError(code, message)
        if "bad" in reply:
            raise BadCommand(str(reply["bad"]))
        if reply.get("nf"):
            raise NotFound(match_id)
        if reply.get("moved"):
            raise Moved(match_id)
        if "x" in reply:
            raise RuntimeError(f"the owner of match {match_id} failed: {reply['x']}")
        return reply.get("ok")

    async def _listen(self, sub: Subscription) -> None:
        async for message in sub:
            if "r" in message:
                waiter = self._waiting.get(message["r"])
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)
            elif "q" in message:
                self._spawn(self._serve(message), "kva-own-serve")

    async def _serve(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"r": message["q"]}
        try:
            if self._events is None:
                raise Moved(message["m"])
            if message["op"] not in NOT_CHANGES:
                self.served += 1
            reply["ok"] = await self._events.serve(str(message["op"]), str(message["m"]),
                                                   message.get("a"))
        except PlayError as exc:
            reply["e"] = [exc.code, exc.message]
        except BadCommand as exc:  # refused before anything ran: the asker is told why
            log.warning("a forwarded %s on match %s was refused: %s", message.get("op"),
                        message.get("m"), exc)
            reply["bad"] = str(exc)
        except NotFound:
            reply["nf"] = 1
        except Moved:
            reply["moved"] = 1
        except Exception as exc:
            log.exception("a forwarded %s on match %s failed", message.get("op"), message.get("m"))
            reply["x"] = type(exc).__name__
        try:
            await self._broker.publish(self.topic(str(message["from"])), reply)
        except Exception:  # the asker times out and looks at the lease again
            log.exception("replying to a forwarded %s failed", message.get("op"))

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
